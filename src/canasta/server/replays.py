"""Replays and hand history over HTTP: a finished match (or its finished hands) step by step.

Who may see what (docs/protocol.md, "Replays"):

- an offline table (mode ``computer`` or ``local``): its owner only (the account whose session
  owns the table), every hand shown if they like; anyone else is told there is no such table;
- any other table (online): nobody while the match goes on; once it is over, anyone, from any
  seat, every hand shown if they like (a link to it can be shared).

A table holds one match at a time; when a new match starts at it, the finished match's record
stays in the table's log (the ``new_match`` entry), so ``match=<seq>`` names an earlier match.
The steps are built by the core from the record (:mod:`canasta.playback`): what a step shows is a
seat's view, plus every hand when asked. Records leave the server through
:func:`canasta.fairness.public_record` only (finished hands; no secret before the end).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request, Response
from sqlalchemy import select

from ..errors import CanastaError
from ..fairness import public_record, shown_fairness
from ..game import Game, ReplayError, replay_record
from ..playback import hand_steps, replay_summary
from .app import ApiError
from .config import MAX_RECORD_BYTES, ServerConfig
from .db import AccountRow, Store, TableLogRow, TableRow
from .encoding import dumps_bytes
from .limits import KeyedLimiter
from .players import OWNER_SEAT, own_team, owner_seat
from .progress import OFFLINE_MODES
from .security import client_address, number
from .tables import Tables

__all__ = ["replay_router"]

#: an imported record may hold at most this many actions and hands (a long classic match
#: has fewer than 2,000 actions)
MAX_IMPORT_ACTIONS = 20_000
MAX_IMPORT_HANDS = 200
#: how many finished matches the list of recent matches shows
RECENT = 20
#: how many of the latest finished online tables the list looks through for the account's
ONLINE_SCAN = 500

_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")

AccountOf = Callable[[Request], Awaitable[AccountRow | None]]


@dataclass(frozen=True)
class _Match:
    """A match a replay may be of: where it is and the record as stored."""

    table: str
    match: int | None  # the log sequence number of the new_match entry keeping it; None: current
    mode: str
    profile: str | None
    seats: list[dict[str, Any]]
    record: dict[str, Any]
    accounts: list[str | None]  # online: the account at each seat

    def seat_of(self, account: AccountRow | None) -> int | None:
        """The seat the account played (the owner plays seat 0 offline), else None."""
        if account is None:
            return None
        if self.mode in OFFLINE_MODES:
            return OWNER_SEAT if account.id == self.profile else None
        return self.accounts.index(account.id) if account.id in self.accounts else None


def _may_see(m: _Match, account: AccountRow | None) -> bool:
    if m.mode in OFFLINE_MODES:
        return account is not None and m.profile is not None and account.id == m.profile
    return bool(m.record.get("over"))


def _seat_and_reveal(request: Request, players: int, default: int) -> tuple[int, bool]:
    seat = number(request.query_params.get("seat", str(default)), 2)
    if seat is None or not 0 <= seat < players:
        raise ApiError(400, "bad_seat", f"seat is 0..{players - 1}")
    reveal = request.query_params.get("reveal", "0")
    if reveal not in ("0", "1", "true", "false"):
        raise ApiError(400, "bad_request", "reveal is 0 or 1")
    return seat, reveal in ("1", "true")


def _hand_number(request: Request) -> int:
    hand = number(request.query_params.get("hand", "1"), 5)
    if hand is None or not 1 <= hand <= 10_000:
        raise ApiError(400, "bad_hand", "hand is a hand number, from 1")
    return hand


def _build(game: Game, request: Request, extra: dict[str, Any]) -> bytes:
    """The replay of one hand as JSON: the match summary, then that hand's steps (seen by
    default from the seat the asker played). Encoded here, in the builder's thread: a long
    hand's steps are a few hundred kB, which the event loop should not encode."""
    summary = {**replay_summary(game), **extra}
    seat, reveal = _seat_and_reveal(request, game.settings.players, extra.get("own_seat") or 0)
    number = _hand_number(request)
    if number > len(game.hands):
        raise ApiError(404, "no_such_hand", f"the replay has {len(game.hands)} hand(s)")
    steps = hand_steps(game, number, seat=seat, reveal=reveal)
    return dumps_bytes({"replay": summary, "hand": number, "seat": seat, "reveal": reveal, "steps": steps})


def _check_import(record: Any) -> None:
    """Cheap checks before the core replays a record (its size in actions and hands)."""
    if not isinstance(record, dict):
        raise ApiError(422, "bad_record", "a record is a JSON object")
    hands = record.get("hands")
    if not isinstance(hands, list) or not hands:
        raise ApiError(422, "bad_record", "a record needs a non-empty 'hands' list")
    if len(hands) > MAX_IMPORT_HANDS:
        raise ApiError(413, "record_too_long", f"a record may hold at most {MAX_IMPORT_HANDS} hands")
    total = 0
    for h in hands:
        actions = h.get("actions") if isinstance(h, dict) else None
        if not isinstance(actions, list):
            raise ApiError(422, "bad_record", "every hand needs an 'actions' list")
        total += len(actions)
    if total > MAX_IMPORT_ACTIONS:
        raise ApiError(413, "record_too_long", f"a record may hold at most {MAX_IMPORT_ACTIONS} actions")


def _replay_import(record: Any) -> Game:
    _check_import(record)
    try:
        game, _ = replay_record(record)
    except ReplayError as e:
        raise ApiError(
            422, "illegal_action", f"{e.message} [{e.code}]"
        ) from e
    except CanastaError as e:
        raise ApiError(422, e.code, e.message) from e
    except (TypeError, ValueError, KeyError, AttributeError, IndexError, RecursionError) as e:
        raise ApiError(422, "bad_record", f"not a canasta record ({type(e).__name__})") from e
    for h, log in zip(record["hands"], game.hands, strict=False):
        if "result" in h and (log.result is None or log.result.to_json() != h["result"]):
            raise ApiError(422, "result_mismatch", f"hand {log.number}: the actions do not reach the recorded result")
    return game


#: how long a replay waits for the one before it (then 503 ``try_again``), and how many
#: imported records are kept for the views that follow
BUILD_WAIT_SECONDS = 5.0
REPLAYED_KEPT = 16


def replay_router(store: Store, tables: Tables, config: ServerConfig, account_of: AccountOf) -> APIRouter:
    """The replay endpoints; ``account_of`` finds a request's account from its session cookie."""
    router = APIRouter()
    reads = KeyedLimiter(config.reads_per_minute_per_address)
    imports = KeyedLimiter(config.imports_per_minute_per_address)
    views = KeyedLimiter(config.replay_views_per_minute_per_address, burst=config.replay_views_burst)
    # one replay is built at a time on a node (an imported record's replay, a hand's steps):
    # its thread holds the interpreter while it runs, and the event loop that serves every
    # table must not share it with several
    building = asyncio.Semaphore(1)
    # the records replayed last, by their text's SHA-256: the page posts a record again for
    # each hand, seat or reveal it shows, and those views neither replay it nor count
    replayed: OrderedDict[str, Game] = OrderedDict()

    def count(request: Request) -> None:
        if not reads.allow(client_address(request.scope)):
            raise ApiError(429, "rate_limited", "too many requests: try again shortly")

    def count_view(request: Request) -> None:
        if not views.allow(client_address(request.scope)):
            raise ApiError(429, "rate_limited", "too many replays asked for: try again shortly")

    async def built(work: Callable[[], bytes]) -> Response:
        """``work`` (a replay's JSON) run in a thread, one at a time on this node."""
        try:
            await asyncio.wait_for(building.acquire(), timeout=BUILD_WAIT_SECONDS)
        except TimeoutError:
            raise ApiError(503, "try_again", "the server is replaying other matches: try again") from None
        try:
            return Response(await asyncio.to_thread(work), media_type="application/json")
        finally:
            building.release()

    async def find(table_id: str, match: str | None) -> _Match | None:
        if not _TABLE_ID.fullmatch(table_id):
            return None
        if match is not None:
            seq = number(match, 12)
            if seq is None:
                return None
            async with store.sessions() as s:
                row = await s.get(TableRow, table_id)
                entry = await s.scalar(
                    select(TableLogRow.entry).where(
                        TableLogRow.table_id == table_id, TableLogRow.seq == seq
                    )
                )
            if row is None or not isinstance(entry, dict) or not isinstance(entry.get("finished"), dict):
                return None
            return _Match(
                table_id, seq, row.mode, row.profile, row.options.get("seats") or [], entry["finished"], _accounts(row.options)
            )
        table = tables.peek(table_id)
        if table is not None:  # read at once, between two of its worker's steps
            seats = [s.to_json() for s in table.seats]
            return _Match(
                table_id, None, table.mode, table.profile, seats, table.game.to_record(), _accounts(table.options)
            )
        row = await store.load_table(table_id)
        if row is None:
            return None
        return _Match(
            table_id, None, row.mode, row.profile, row.options.get("seats") or [], row.record, _accounts(row.options)
        )

    async def visible(request: Request, table_id: str) -> tuple[_Match, dict[str, Any], int | None]:
        count(request)
        m = await find(table_id, request.query_params.get("match"))
        account = await account_of(request)
        # a table one may not see is no table at all (its existence is private too)
        if m is None or not _may_see(m, account):
            raise ApiError(404, "replay_not_found", "no such replay")
        record = public_record(m.record)
        if not record["hands"]:
            raise ApiError(404, "nothing_to_replay", "no hand of this match is over yet")
        return m, record, m.seat_of(account)

    @router.get("/api/replays")
    async def recent(request: Request) -> dict[str, Any]:
        """The account's recent finished matches, newest first."""
        account = await account_of(request)
        if account is None:
            raise ApiError(401, "no_session", "no session: POST /api/session first")
        count(request)
        rows = await store.list_tables(account.id, unfinished=False)
        out: list[dict[str, Any]] = []
        for r in rows:
            if r.status == "match_over":
                out.append(_listed(r.id, None, r.mode, r.record, r.updated_at.isoformat(), owner_seat(r.mode)))
        ids = [r.id for r in rows][:500]
        modes = {r.id: r.mode for r in rows}
        async with store.sessions() as s:
            if ids:
                q = (
                    select(TableLogRow.table_id, TableLogRow.seq, TableLogRow.entry, TableLogRow.created_at)
                    .where(TableLogRow.table_id.in_(ids), TableLogRow.entry["kind"].as_string() == "new_match")
                    .order_by(TableLogRow.created_at.desc())
                    .limit(RECENT)
                )
                for table_id, seq, entry, at in (await s.execute(q)).all():
                    finished = entry.get("finished") if isinstance(entry, dict) else None
                    if isinstance(finished, dict):
                        out.append(
                            _listed(table_id, seq, modes[table_id], finished, at.isoformat(), owner_seat(modes[table_id]))
                        )
            # online matches the account played (online tables have no owner: their players are
            # in the options; a participants table would index this, the scan is bounded)
            q2 = (
                select(TableRow.id, TableRow.options, TableRow.updated_at)
                .where(TableRow.mode.not_in(OFFLINE_MODES), TableRow.status == "match_over")
                .order_by(TableRow.updated_at.desc())
                .limit(ONLINE_SCAN)
            )
            played = {
                table_id: (at, _accounts(options).index(account.id))
                for table_id, options, at in (await s.execute(q2)).all()
                if account.id in _accounts(options)
            }
            if played:
                q3 = select(TableRow.id, TableRow.mode, TableRow.record).where(
                    TableRow.id.in_(list(played)[:RECENT])
                )
                for table_id, mode, record in (await s.execute(q3)).all():
                    at, seat = played[table_id]
                    out.append(_listed(table_id, None, mode, record, at.isoformat(), seat))
        out.sort(key=lambda x: x["finished_at"], reverse=True)
        return {"matches": out[:RECENT]}

    @router.get("/api/replays/{table_id}")
    async def replay(table_id: str, request: Request) -> Response:
        """One hand of a match, step by step (``hand``, ``seat``, ``reveal``, ``match``)."""
        m, record, own = await visible(request, table_id)
        count_view(request)
        extra = {
            "table": m.table,
            "match": m.match,
            "mode": m.mode,
            "seats": m.seats,
            "own_seat": own,
            "fairness": record.get("fairness"),
        }
        return await built(lambda: _build(Game.from_record(record), request, extra))

    @router.get("/api/replays/{table_id}/record")
    async def export(table_id: str, request: Request) -> Response:
        """The match's record in the core's format (finished hands only), as a download."""
        m, record, _ = await visible(request, table_id)
        name = f"canasta-{m.table}" + (f"-{m.match}" if m.match is not None else "") + ".json"
        return Response(
            json.dumps(record, indent=1),
            media_type="application/json",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    @router.post("/api/replays/import")
    async def imported(request: Request) -> Response:
        """Replay a record sent by the player (validated by the core; nothing is stored)."""
        count(request)
        count_view(request)
        content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if content_type != "application/json":
            raise ApiError(415, "unsupported_media_type", "send the record as application/json")
        body = await request.body()
        if len(body) > MAX_RECORD_BYTES:  # pragma: no cover - the middleware stops it first
            raise ApiError(413, "body_too_large", f"records are limited to {MAX_RECORD_BYTES} bytes")
        try:
            record = json.loads(body)
        except (ValueError, RecursionError) as e:
            raise ApiError(400, "bad_json", "the file is not valid JSON") from e
        digest = hashlib.sha256(body).hexdigest()
        cached = replayed.get(digest)
        if cached is None and not imports.allow(client_address(request.scope)):
            raise ApiError(429, "rate_limited", "too many imported records: try again in a minute")

        games: list[Game] = []  # the record's replay, once the core has replayed it

        def work() -> bytes:
            game = _replay_import(record) if cached is None else cached
            games.append(game)
            fairness = shown_fairness(record, MAX_IMPORT_HANDS)
            extra = {"table": None, "match": None, "mode": None, "seats": [], "own_seat": None, "fairness": fairness}
            return _build(game, request, extra)

        try:
            return await built(work)
        finally:  # kept for the views that follow (on the loop: the cache is the loop's)
            if cached is not None:
                if digest in replayed:  # (other imports may have pushed it out meanwhile)
                    replayed.move_to_end(digest)
            elif games:
                replayed[digest] = games[0]
                while len(replayed) > REPLAYED_KEPT:
                    replayed.popitem(last=False)

    return router


def _accounts(options: dict[str, Any]) -> list[str | None]:
    online = options.get("online") if isinstance(options, dict) else None
    accounts = online.get("accounts") if isinstance(online, dict) else None
    return list(accounts) if isinstance(accounts, list) else []


def _listed(
    table_id: str, match: int | None, mode: str, record: dict[str, Any], at: str, seat: int | None
) -> dict[str, Any]:
    """A finished match in the account's list; ``seat`` is the one the account played (None:
    every seat, in pass-and-play)."""
    raw = record.get("settings")
    # the record's settings: an object, or a preset's name (as Settings.from_json reads them)
    settings = raw if isinstance(raw, dict) else {"preset": raw} if isinstance(raw, str) else {}
    hands = record.get("hands") or []
    return {
        "replay": table_id if match is None else f"{table_id}/{match}",
        "table": table_id,
        "match": match,
        "mode": mode,
        "preset": settings.get("preset"),
        "players": settings.get("players"),
        "scores": record.get("scores"),
        "winners": record.get("winners"),
        # which of the scores is the account's (None: pass-and-play, every seat was theirs)
        "team": own_team(raw, seat),
        "hands": len(hands),
        "finished_at": at,
    }
