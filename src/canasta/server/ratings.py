"""Ratings of online players (openskill's Weng-Lin Plackett-Luce model, teams of partners),
leaderboards and profiles.

One rating per account for each kind of match: ``classic`` (four players in partnerships) and
``two-player``. A finished quick match (a public online table without a room, every seat a
person when it started) updates the ratings of its players once: the match's players are
inserted first, and their unique (table, account) rows make a second update impossible.
Players who left count as their team did. Ratings show on the scale
``1000 + 20 × (μ − 3σ)``: a new player shows 1000 and climbs as the model grows sure.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from openskill.models import PlackettLuce
from sqlalchemy import and_, func, or_, select
from sqlalchemy.exc import IntegrityError

from .db import AccountRow, StatsRow, Store, now, stats_json, stats_key
from .models_accounts import MatchPlayerRow, RatingRow

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from .lobby import QueueEntry
    from .table import Table

log = logging.getLogger("canasta.ratings")

KINDS = ("classic", "two-player")
MODEL = PlackettLuce()
#: the display scale: ``target + alpha × (μ − 3σ)``
DISPLAY_ALPHA = 20.0
DISPLAY_TARGET = 1000.0


def display(mu: float, sigma: float) -> int:
    """A rating as players see it.

    >>> display(25.0, 25.0 / 3)
    1000
    """
    return round(
        MODEL.rating(mu=mu, sigma=sigma).ordinal(alpha=DISPLAY_ALPHA, target=DISPLAY_TARGET)
    )


#: a new player's rating as shown
DISPLAY_NEW = display(MODEL.rating().mu, MODEL.rating().sigma)


def kind_of(players: int) -> str | None:
    return {4: "classic", 2: "two-player"}.get(players)


def kind_of_preset(preset: str) -> str:
    return "classic" if preset == "classic" else "two-player"


class Ratings:
    """Updates ratings when online matches end; the lobby's rating-aware quick match."""

    def __init__(self, store: Store) -> None:
        self.store = store
        # one update at a time in this process (one process serves a database)
        self._lock = asyncio.Lock()

    async def match_over(self, table: Table) -> None:
        """A ``tables.match_over_listeners`` entry: record the match, rate a quick match."""
        on = table.options.get("online") or {}
        accounts: list[str | None] = list(on.get("accounts") or [])
        if table.mode != "online" or not table.game.is_over:
            return
        kind = kind_of(len(accounts))
        if kind is None:
            return
        async with self._lock:
            changed = await self._record(table, accounts, kind, table.rated)
        if not changed and table.rated and table.online.get("ratings") is None:
            # recorded before (by a process that stopped, or a table that could not save what
            # it showed): the changes as the match's rows give them
            changed = await self.recorded_changes(table.id)
        if changed:  # the players see it at the end of the match
            table.show_ratings(
                [
                    None if a is None or a not in changed else {"kind": kind, **changed[a]}
                    for a in accounts
                ]
            )

    async def _record(
        self, table: Table, accounts: list[str | None], kind: str, rate: bool
    ) -> dict[str, dict[str, int]]:
        """Record the match's players (and rate them when ``rate``); the ratings changed:
        ``{account: {"before", "after"}}`` as players see them (none when the match was
        recorded already, or is not rated)."""
        g = table.game
        team_of = list(g.state.team_of)
        winners = list(g.winners)
        scores = list(g.scores)
        people = [(seat, a) for seat, a in enumerate(accounts) if a is not None]
        changed: dict[str, dict[str, int]] = {}
        if not people:
            return changed
        try:
            async with self.store.sessions() as s, s.begin():
                # an account deleted during the match (after leaving it) gets no row and no
                # rating: its seat still counts in its team's rating as a new player's
                # locked on PostgreSQL: a deletion under way finishes first (its account row
                # is the first it writes)
                kinds = select(AccountRow.id, AccountRow.kind).where(
                    AccountRow.id.in_([a for _, a in people])
                )
                if not self.store.url.startswith("sqlite"):
                    kinds = kinds.with_for_update()
                gone = {a for a, kind in (await s.execute(kinds)).all() if kind == "deleted"}
                rows: dict[str, MatchPlayerRow] = {}
                for seat, account in people:
                    if account in gone:
                        continue
                    team = team_of[seat]
                    rows[account] = MatchPlayerRow(
                        table_id=table.id,
                        account_id=account,
                        kind=kind,
                        rated=rate,
                        won=g.won(team),
                        score=scores[team],
                        against=sum(scores) - scores[team],
                        rating=None,
                        created_at=now(),
                    )
                    s.add(rows[account])
                # written first: a second listener call for this table fails here, and under
                # SQLite the write lock is taken before the ratings are read
                await s.flush()
                if not rate:
                    return changed
                q = select(RatingRow).where(
                    RatingRow.kind == kind, RatingRow.account_id.in_(list(rows))
                )
                if not self.store.url.startswith("sqlite"):
                    q = q.with_for_update()
                held = {r.account_id: r for r in (await s.scalars(q)).all()}
                teams_seats: dict[int, list[tuple[int, str]]] = {}
                for seat, account in people:
                    teams_seats.setdefault(team_of[seat], []).append((seat, account))
                order = sorted(teams_seats)
                teams = [
                    [
                        MODEL.rating(mu=held[a].mu, sigma=held[a].sigma)
                        if a in held
                        else MODEL.rating()
                        for _, a in teams_seats[t]
                    ]
                    for t in order
                ]
                ranks = [0 if (not winners or t in winners) else 1 for t in order]
                new = MODEL.rate(teams, ranks=ranks)
                for t, team_ratings in zip(order, new, strict=True):
                    for (_, account), r in zip(teams_seats[t], team_ratings, strict=True):
                        if account in gone:
                            continue
                        row = held.get(account)
                        before = DISPLAY_NEW if row is None else display(row.mu, row.sigma)
                        if row is None:
                            row = RatingRow(account_id=account, kind=kind, played=0)
                            s.add(row)
                        row.mu, row.sigma = float(r.mu), float(r.sigma)
                        row.ordinal = float(r.mu - 3 * r.sigma)
                        row.played = (row.played or 0) + 1
                        row.updated_at = now()
                        rows[account].rating = display(row.mu, row.sigma)
                        changed[account] = {"before": before, "after": rows[account].rating}
        except IntegrityError:
            log.info("table %s: match already recorded", table.id)
            return {}
        return changed

    async def recorded_changes(self, table_id: str) -> dict[str, dict[str, int]]:
        """The rating changes a rated match made, from the rows recorded for it: each player's
        rating after it, and before it their rating after their previous rated match of that
        kind (a new player's before their first)."""
        mp = MatchPlayerRow
        rated_rows = (mp.rated.is_(True), mp.rating.is_not(None))
        changed: dict[str, dict[str, int]] = {}
        async with self.store.sessions() as s:
            rows = (await s.scalars(select(mp).where(mp.table_id == table_id, *rated_rows))).all()
            gone = set(
                (
                    await s.scalars(
                        select(AccountRow.id).where(
                            AccountRow.id.in_([r.account_id for r in rows]),
                            AccountRow.kind == "deleted",
                        )
                    )
                ).all()
            )
            for r in rows:
                if r.account_id in gone:  # a deleted account's rating went with it
                    continue
                earlier = or_(
                    mp.created_at < r.created_at, and_(mp.created_at == r.created_at, mp.id < r.id)
                )
                before = await s.scalar(
                    select(mp.rating)
                    .where(mp.account_id == r.account_id, mp.kind == r.kind, *rated_rows, earlier)
                    .order_by(mp.created_at.desc(), mp.id.desc())
                    .limit(1)
                )
                assert r.rating is not None
                changed[r.account_id] = {
                    "before": DISPLAY_NEW if before is None else int(before),
                    "after": int(r.rating),
                }
        return changed

    async def ordinals(self, accounts: Sequence[str], kind: str) -> dict[str, float]:
        """μ − 3σ of each account (0.0, a new player's, when it has no rating yet)."""
        async with self.store.sessions() as s:
            rows = (
                await s.scalars(
                    select(RatingRow).where(
                        RatingRow.kind == kind, RatingRow.account_id.in_(list(accounts))
                    )
                )
            ).all()
        have = {r.account_id: r.ordinal for r in rows}
        return {a: have.get(a, 0.0) for a in accounts}

    async def pick_groups(
        self, preset: str, waiting: list[QueueEntry], n: int, now: float, window: float
    ) -> list[list[QueueEntry]]:
        """The lobby's choice of the quick matches to start now (see :func:`ready_groups`)."""
        if len(waiting) < n:
            return []
        r = await self.ordinals([e.account for e in waiting], kind_of_preset(preset))
        return ready_groups(waiting, n, lambda e: r[e.account], now=now, window=window)


#: the pairing window: the spread of ratings (μ − 3σ, ordinal points; 20 display points
#: each) a quick-match group may have for an entry that has just joined, and how much wider
#: it grows each second that entry waits; once it has waited the whole window
#: (``ServerConfig.pairing_seconds``) it plays with whoever is nearest
PAIRING_SPREAD = 2.0
PAIRING_WIDEN_PER_SECOND = 2.0


def allowed_spread(waited: float, window: float) -> float:
    """The rating spread an entry that has waited ``waited`` seconds accepts.

    >>> allowed_spread(0.0, 4.0), allowed_spread(1.5, 4.0), allowed_spread(4.0, 4.0)
    (2.0, 5.0, inf)
    """
    if waited >= window:
        return float("inf")
    return PAIRING_SPREAD + PAIRING_WIDEN_PER_SECOND * max(0.0, waited)


def ready_groups(
    waiting: list[QueueEntry],
    n: int,
    rating: Callable[[QueueEntry], float],
    *,
    now: float,
    window: float,
) -> list[list[QueueEntry]]:
    """The groups of ``n`` to seat now, out of the entries waiting for one game.

    Entries are taken oldest first: each one's closest-rated group (:func:`closest_group`)
    plays if its spread is within what that entry accepts after waiting
    (:func:`allowed_spread`). A close group therefore starts at once, a far one waits up to
    ``window`` seconds for nearer players, and an outlier never holds the others back.
    """
    left = sorted(waiting, key=lambda e: e.joined)
    groups: list[list[QueueEntry]] = []
    found = True
    while found and len(left) >= n:
        found = False
        for anchor in left:
            group = closest_group(left, n, rating, anchor=anchor)
            spread = rating(max(group, key=rating)) - rating(min(group, key=rating))
            if spread <= allowed_spread(now - anchor.joined, window):
                groups.append(group)
                left = [e for e in left if e not in group]
                found = True
                break
    return groups


def closest_group(
    waiting: list[QueueEntry],
    n: int,
    rating: Callable[[QueueEntry], float],
    *,
    anchor: QueueEntry | None = None,
) -> list[QueueEntry]:
    """Of the groups of ``n`` that hold ``anchor`` (by default ``waiting[0]``, the oldest
    entry) and are consecutive in rating order, the one with the smallest spread (ties: the
    earlier joiners)."""
    oldest = waiting[0] if anchor is None else anchor
    order = sorted(waiting, key=lambda e: (rating(e), e.joined))
    at = order.index(oldest)
    best: tuple[float, float, list[QueueEntry]] | None = None
    for start in range(max(0, at - n + 1), min(at, len(order) - n) + 1):
        group = order[start : start + n]
        key = (rating(group[-1]) - rating(group[0]), sum(e.joined for e in group))
        if best is None or key < best[:2]:
            best = (*key, group)
    assert best is not None
    return best[2]


# ---------------------------------------------------------------------- profiles, leaderboards


async def profile(store: Store, account: AccountRow, name: str) -> dict[str, Any]:
    """What the profile page shows: name, ratings with history, statistics, recent matches."""
    async with store.sessions() as s:
        rating_rows = {
            r.kind: r
            for r in (
                await s.scalars(select(RatingRow).where(RatingRow.account_id == account.id))
            ).all()
        }
        history = (
            await s.scalars(
                select(MatchPlayerRow)
                .where(MatchPlayerRow.account_id == account.id)
                .order_by(MatchPlayerRow.created_at.desc(), MatchPlayerRow.id.desc())
                .limit(200)
            )
        ).all()
        offline = await s.get(StatsRow, stats_key(account.id))
        online = await s.get(StatsRow, stats_key(account.id, "online"))
    ratings: dict[str, Any] = {}
    for kind in KINDS:
        row = rating_rows.get(kind)
        points = [
            {"rating": h.rating, "at": h.created_at.isoformat(), "table": h.table_id}
            for h in reversed(history)
            if h.kind == kind and h.rated and h.rating is not None
        ][-50:]
        ratings[kind] = {
            "rating": display(row.mu, row.sigma) if row else DISPLAY_NEW,
            "mu": row.mu if row else 25.0,
            "sigma": row.sigma if row else 25.0 / 3,
            "played": row.played if row else 0,
            "history": points,
        }
    return {
        "id": account.id,
        "name": name,
        "ratings": ratings,
        "stats": {"offline": stats_json(offline), "online": stats_json(online)},
        "matches": [
            {
                "table": h.table_id,
                "kind": h.kind,
                "rated": h.rated,
                "won": h.won,
                "score": h.score,
                "against": h.against,
                "rating": h.rating,
                "at": h.created_at.isoformat(),
            }
            for h in history[:20]
        ],
    }


async def leaderboard(
    store: Store, kind: str, viewer: str | None, limit: int = 20
) -> dict[str, Any]:
    """The top ``limit`` ratings of ``kind`` and the viewer's place. Places are positions in
    one order (rating, then who reached it first, then the account id), over the accounts that
    are not deleted, so a place in the list and the viewer's own place always agree, ties too.
    A guest merged into an account at a login is not listed either: nobody plays as it again,
    and nobody could take it off the list."""
    listed = (RatingRow.kind == kind, AccountRow.kind.not_in(("deleted", "merged")))
    async with store.sessions() as s:
        rows = (
            await s.execute(
                select(RatingRow, AccountRow)
                .join(AccountRow, AccountRow.id == RatingRow.account_id)
                .where(*listed)
                .order_by(RatingRow.ordinal.desc(), RatingRow.updated_at, RatingRow.account_id)
                .limit(limit)
            )
        ).all()
        mine = await s.get(RatingRow, (viewer, kind)) if viewer else None
        place = None
        if mine is not None:
            before = or_(
                RatingRow.ordinal > mine.ordinal,
                and_(
                    RatingRow.ordinal == mine.ordinal,
                    or_(
                        RatingRow.updated_at < mine.updated_at,
                        and_(RatingRow.updated_at == mine.updated_at, RatingRow.account_id < mine.account_id),
                    ),
                ),
            )
            above = await s.scalar(
                select(func.count())
                .select_from(RatingRow)
                .join(AccountRow, AccountRow.id == RatingRow.account_id)
                .where(*listed, before)
            )
            place = int(above or 0) + 1
    from .app import display_name

    return {
        "kind": kind,
        "top": [
            {
                "place": i + 1,
                "id": acc.id,
                "name": display_name(acc),
                "rating": display(r.mu, r.sigma),
                "played": r.played,
                "you": acc.id == viewer,
            }
            for i, (r, acc) in enumerate(rows)
        ],
        "you": None
        if mine is None
        else {"place": place, "rating": display(mine.mu, mine.sigma), "played": mine.played},
    }


def install(
    app: FastAPI, *, store: Store, require_account: Callable[[Request], Awaitable[AccountRow]]
) -> None:
    from .app import _TABLE_ID, ApiError, display_name

    @app.get("/api/profile")
    async def my_profile(request: Request) -> dict[str, Any]:
        account = await require_account(request)
        return await profile(store, account, display_name(account))

    @app.get("/api/players/{account_id}")
    async def player_profile(account_id: str, request: Request) -> dict[str, Any]:
        await require_account(request)
        account = None
        if _TABLE_ID.fullmatch(account_id):
            async with store.sessions() as s:
                account = await s.get(AccountRow, account_id)
        if account is None or account.kind == "deleted":
            raise ApiError(404, "player_not_found", "no such player")
        return await profile(store, account, display_name(account))

    @app.get("/api/leaderboard")
    async def get_leaderboard(request: Request, kind: str = "classic") -> dict[str, Any]:
        account = await require_account(request)
        if kind not in KINDS:
            raise ApiError(400, "bad_kind", "kind is 'classic' or 'two-player'")
        return await leaderboard(store, kind, account.id)
