"""Report a problem: a category, a description and, from a table, its match record; a
report about a player names that player's account.

Reports are stored in the database and read by the server's operator with
``canasta admin reports [--open] [--handle ID]``; nothing about them is ever sent to other
players. The record is the server's own (the page only names the table), so a report cannot
carry a made-up game; likewise at a table the page names the seat and the server reads whose
account sits there (the table's accounts never leave the server).
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from sqlalchemy import select, update

from .db import AccountRow, Store, now
from .models_accounts import ReportRow

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from .config import ServerConfig
    from .tables import Tables

CATEGORIES = ("bug", "rules", "player", "connection", "other")
DESCRIPTION_MAX = 2000


def clean_description(value: Any) -> str | None:
    """The description as stored: NFC, no control characters but new lines; None if empty."""
    if not isinstance(value, str):
        return None
    text = unicodedata.normalize("NFC", value)
    text = "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch)[0] != "C")
    text = text.strip()
    return text or None


async def add_report(
    store: Store,
    *,
    account_id: str | None,
    category: str,
    description: str,
    table_id: str | None,
    record: dict[str, Any] | None,
    client: dict[str, Any] | None,
    player_id: str | None = None,
    player_name: str | None = None,
) -> int:
    async with store.sessions() as s, s.begin():
        row = ReportRow(
            account_id=account_id,
            category=category,
            description=description,
            table_id=table_id,
            record=record,
            client=client,
            player_id=player_id,
            player_named=player_id is not None,
            player_name=player_name if player_id is not None else None,
            created_at=now(),
        )
        s.add(row)
        await s.flush()
        if player_id is not None:
            # the player's account may have been deleted since it was looked up: read it again
            # inside this transaction, after the insert (on SQLite the insert holds the write
            # lock, so the deletion committed before it or runs after it and clears this row
            # too; on PostgreSQL the shared lock waits for a deletion under way)
            kind = await s.scalar(
                select(AccountRow.kind).where(AccountRow.id == player_id).with_for_update(read=True)
            )
            if kind is None or kind == "deleted":
                row.player_id = None
                row.player_name = None
        return int(row.id)


async def list_reports(store: Store, *, open_only: bool = False) -> list[ReportRow]:
    async with store.sessions() as s:
        q = select(ReportRow).order_by(ReportRow.id)
        if open_only:
            q = q.where(ReportRow.handled_at.is_(None))
        return list((await s.scalars(q)).all())


async def seat_account(store: Store, tables: Tables, table_id: str, seat: int) -> str | None:
    """The account at ``seat`` of an online table, even after its player left (None: a
    computer's seat, or no such seat or online table)."""
    live = tables.peek(table_id)
    if live is not None:
        mode, options = live.mode, live.options
    else:
        row = await store.load_table(table_id)
        if row is None:
            return None
        mode, options = row.mode, row.options
    if mode != "online":
        return None
    accounts = (options.get("online") or {}).get("accounts") or []
    if not 0 <= seat < len(accounts):
        return None
    account = accounts[seat]
    return account if isinstance(account, str) else None


async def player_names(store: Store, ids: set[str]) -> dict[str, str]:
    """The display names of these accounts, by id (a deleted one is not listed)."""
    from .app import display_name

    if not ids:
        return {}
    async with store.sessions() as s:
        rows = (await s.scalars(select(AccountRow).where(AccountRow.id.in_(ids)))).all()
        return {r.id: display_name(r) for r in rows if r.kind != "deleted"}


async def mark_handled(store: Store, report_id: int) -> bool:
    async with store.sessions() as s, s.begin():
        result = await s.execute(
            update(ReportRow)
            .where(ReportRow.id == report_id, ReportRow.handled_at.is_(None))
            .values(handled_at=now())
            .execution_options(synchronize_session=False)
        )
        return bool(result.rowcount)  # type: ignore[attr-defined]


async def table_record(store: Store, tables: Tables, table_id: str) -> dict[str, Any] | None:
    """The match record of a table as the server holds it now (None: no such table)."""
    live = tables.peek(table_id)
    if live is not None:
        return live.game.to_record()  # type: ignore[no-any-return]
    row = await store.load_table(table_id)
    if row is None:
        return None
    record = dict(row.record)
    later = await store.load_log(table_id, row.snapshot_seq)
    if later:
        record["log_after_snapshot"] = later
    return record


def install(
    app: FastAPI,
    *,
    store: Store,
    tables: Tables,
    config: ServerConfig,
    require_account: Callable[[Request], Awaitable[AccountRow]],
) -> None:
    from .accounts import Limiter
    from .app import _TABLE_ID, ApiError, _json_body
    from .security import client_address

    per_account = Limiter(config.reports_per_hour, 3600)
    per_address = Limiter(config.reports_per_hour * 4, 3600)
    # refusals do not count against the reports stored, but each costs database reads: the
    # attempts have a looser limit of their own, checked before any of them
    attempts = Limiter(config.reports_per_hour * 10, 3600)

    async def reported_player(
        body: dict[str, Any], category: Any, table_id: str | None, reporter: str
    ) -> tuple[str, str] | None:
        """The account a report is about and its name now: ``player`` (an account id, as a
        profile names it) or ``seat`` (a seat of the reported online table); None when
        neither is given."""
        player, seat = body.get("player"), body.get("seat")
        if player is None and seat is None:
            return None
        if category != "player":
            raise ApiError(400, "bad_player", "only a report about a player names one")
        if player is not None and seat is not None:
            raise ApiError(400, "bad_player", "name the player or the seat, not both")
        if player is not None:
            if not isinstance(player, str) or not _TABLE_ID.fullmatch(player):
                raise ApiError(400, "bad_player", "player is an account id")
            found: str | None = player
        else:
            if isinstance(seat, bool) or not isinstance(seat, int) or table_id is None:
                raise ApiError(400, "bad_player", "seat is a seat number of the reported table")
            found = await seat_account(store, tables, table_id, seat)
        if found == reporter:
            raise ApiError(400, "self_report", "a report cannot be about yourself")
        names = {} if found is None else await player_names(store, {found})
        if found is None or found not in names:
            raise ApiError(404, "player_not_found", "no such player")
        return found, names[found]

    @app.post("/api/reports", status_code=201)
    async def post_report(request: Request) -> dict[str, Any]:
        body = await _json_body(request)
        account = await require_account(request)
        if not attempts.allow(account.id):
            raise ApiError(429, "too_many_reports", "too many reports: try again later")
        category = body.get("category")
        if category not in CATEGORIES:
            raise ApiError(400, "bad_category", f"category is one of {', '.join(CATEGORIES)}")
        description = clean_description(body.get("description"))
        if description is None:
            raise ApiError(400, "bad_description", "describe the problem")
        if len(description) > DESCRIPTION_MAX:
            raise ApiError(
                400, "bad_description", f"a description has at most {DESCRIPTION_MAX} characters"
            )
        table_id = body.get("table")
        if table_id is not None and (
            not isinstance(table_id, str) or not _TABLE_ID.fullmatch(table_id)
        ):
            raise ApiError(400, "bad_table", "table is a table id")
        record = None
        if table_id is not None:
            record = await table_record(store, tables, table_id)
            if record is None:
                raise ApiError(404, "table_not_found", "no such table")
        player = await reported_player(body, category, table_id, account.id)
        # refusals come before the limit: only a report that will be stored counts
        if not per_account.allow(account.id) or not per_address.allow(
            client_address(request.scope)
        ):
            raise ApiError(429, "too_many_reports", "too many reports: try again later")
        client = body.get("client")
        if not isinstance(client, dict):
            client = None
        else:
            client = {
                k: str(v)[:200]
                for k, v in list(client.items())[:10]
                if isinstance(k, str) and k in ("lang", "screen", "version", "agent")
            }
        report_id = await add_report(
            store,
            account_id=account.id,
            category=str(category),
            description=description,
            table_id=table_id,
            record=record,
            client=client,
            player_id=None if player is None else player[0],
            player_name=None if player is None else player[1],
        )
        return {"report": report_id, "attached": record is not None}


def about(report: ReportRow, names: dict[str, str]) -> str:
    """Whom a report is about, as the admin listing says it ("" if it names nobody)."""
    if report.player_id is not None:
        now = names.get(report.player_id)
        then = report.player_name or now
        if then is None:
            return " about a deleted account"
        renamed = f", now {now}" if now is not None and now != then else ""
        return f" about {then} ({report.player_id}{renamed})"
    return " about a deleted account" if report.player_named else ""


def admin_reports(db: str | None, *, open_only: bool = False, handle: int | None = None) -> int:
    """``canasta admin reports``: print the reports (or mark one handled); the exit status."""
    import asyncio

    async def run() -> int:
        store = Store(db)
        try:
            await store.migrate()
            if handle is not None:
                if await mark_handled(store, handle):
                    print(f"report #{handle} marked handled")
                    return 0
                print(f"no open report #{handle}")
                return 1
            rows = await list_reports(store, open_only=open_only)
            names = await player_names(store, {r.player_id for r in rows if r.player_id})
            for r in rows:
                state = "open" if r.handled_at is None else f"handled {r.handled_at:%Y-%m-%d %H:%M}"
                where = f" table {r.table_id}" if r.table_id else ""
                attached = ", record attached" if r.record is not None else ""
                who = r.account_id or "deleted account"
                print(
                    f"#{r.id} {r.created_at:%Y-%m-%d %H:%M} [{r.category}] {state} "
                    f"from {who}{about(r, names)}{where}{attached}"
                )
                for line in r.description.splitlines():
                    print(f"    {line}")
            if not rows:
                print("no reports" if not open_only else "no open reports")
            return 0
        finally:
            await store.dispose()

    return asyncio.run(run())
