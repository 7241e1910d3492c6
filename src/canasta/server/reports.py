"""Report a problem: a category, a description and, from a table, its match record.

Reports are stored in the database and read by the server's operator with
``canasta admin reports [--open] [--handle ID]``; nothing about them is ever sent to other
players. The record is the server's own (the page only names the table), so a report cannot
carry a made-up game.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from sqlalchemy import select, update

from .db import Store, now
from .models_accounts import ReportRow

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from .config import ServerConfig
    from .db import AccountRow
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
) -> int:
    async with store.sessions() as s, s.begin():
        row = ReportRow(
            account_id=account_id,
            category=category,
            description=description,
            table_id=table_id,
            record=record,
            client=client,
            created_at=now(),
        )
        s.add(row)
        await s.flush()
        return int(row.id)


async def list_reports(store: Store, *, open_only: bool = False) -> list[ReportRow]:
    async with store.sessions() as s:
        q = select(ReportRow).order_by(ReportRow.id)
        if open_only:
            q = q.where(ReportRow.handled_at.is_(None))
        return list((await s.scalars(q)).all())


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

    @app.post("/api/reports", status_code=201)
    async def post_report(request: Request) -> dict[str, Any]:
        body = await _json_body(request)
        account = await require_account(request)
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
        )
        return {"report": report_id, "attached": record is not None}


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
            for r in rows:
                state = "open" if r.handled_at is None else f"handled {r.handled_at:%Y-%m-%d %H:%M}"
                where = f" table {r.table_id}" if r.table_id else ""
                attached = ", record attached" if r.record is not None else ""
                who = r.account_id or "deleted account"
                print(
                    f"#{r.id} {r.created_at:%Y-%m-%d %H:%M} [{r.category}] {state} "
                    f"from {who}{where}{attached}"
                )
                for line in r.description.splitlines():
                    print(f"    {line}")
            if not rows:
                print("no reports" if not open_only else "no open reports")
            return 0
        finally:
            await store.dispose()

    return asyncio.run(run())
