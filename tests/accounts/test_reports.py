"""Report a problem: stored with the match record of the table it came from; a report about
a player names the account (from a profile) or the seat (at a table); rate-limited; listed and
handled with ``canasta admin reports``; migration 0008."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from typing import Any

from alembic.migration import MigrationContext
from sqlalchemy import text

from canasta.cli import main
from canasta.server.db import Store, now
from canasta.server.reports import add_report, list_reports
from tests.online.support import quick_match

from .support import ACCOUNT_CONFIG, Device, app_client, code


def test_reports_from_the_menu_and_from_a_table(db_url: str, capsys) -> None:
    config = dataclasses.replace(ACCOUNT_CONFIG, reports_per_hour=3)
    with app_client(db_url, config) as c:
        a = Device(c)
        r = a.post("/api/reports", {"category": "bug", "description": "  The menu\x07 froze \n"})
        assert r.status_code == 201 and r.json()["attached"] is False
        menu_id = r.json()["report"]
        table = a.post("/api/tables", {"mode": "computer", "players": 2}).json()["table"]
        r = a.post("/api/reports", {"category": "rules", "description": "pile?", "table": table,
                                    "client": {"lang": "en", "secret": "x"}})
        assert r.status_code == 201 and r.json()["attached"] is True
        table_report = r.json()["report"]
        assert code(a.post("/api/reports", {"category": "nope", "description": "x"})) == "bad_category"
        assert code(a.post("/api/reports", {"category": "bug", "description": "  "})) == "bad_description"
        assert code(a.post("/api/reports", {"category": "bug", "description": "x" * 2001})) == "bad_description"
        assert code(a.post("/api/reports", {"category": "bug", "description": "x", "table": "nothere"})) == "table_not_found"
        r = a.post("/api/reports", {"category": "other", "description": "third"})
        assert r.status_code == 201
        r = a.post("/api/reports", {"category": "other", "description": "fourth"})
        assert r.status_code == 429 and code(r) == "too_many_reports"
        reports = {r.id: r for r in c.portal.call(list_reports, c.app.state.store)}
        assert reports[menu_id].description == "The menu froze" and reports[menu_id].record is None
        stored = reports[table_report]
        assert stored.table_id == table and stored.record["settings"]["players"] == 2
        assert "seed" in stored.record and stored.client == {"lang": "en"}
    url = db_url.replace("sqlite+aiosqlite", "sqlite")
    assert main(["admin", "reports", "--open", "--db", url]) == 0
    out = capsys.readouterr().out
    assert f"#{table_report}" in out and "rules" in out and "record attached" in out
    assert main(["admin", "reports", "--handle", str(menu_id), "--db", url]) == 0
    assert "marked handled" in capsys.readouterr().out
    assert main(["admin", "reports", "--open", "--db", url]) == 0
    out = capsys.readouterr().out
    assert f"#{menu_id} " not in out and f"#{table_report} " in out
    assert main(["admin", "reports", "--handle", str(menu_id), "--db", url]) == 1


def test_a_player_report_names_the_account_from_a_profile_or_a_seat(db_url: str, capsys) -> None:
    """A profile names the account, a table the seat (the server reads whose account sits
    there, even after they left); the admin listing says whom each report is about. Refusals
    are not stored and use none of the hourly limit."""
    config = dataclasses.replace(ACCOUNT_CONFIG, reports_per_hour=3)
    with app_client(db_url, config) as c:
        a, b, gone = Device(c, "Reporter"), Device(c, "Rude Bob"), Device(c, "Soon Gone")
        try:
            from_profile, from_table, about_gone, table = _report_players(c, a, b, gone)
            # a name may be what was reported: the report keeps the one its reporter saw
            r = b.request("PATCH", "/api/account", json={"name": "Polite Bob"})
            assert r.status_code == 200, r.text
        finally:
            for device in (a, b, gone):
                device.close()  # its lobby socket: the app cannot stop while one is open
    url = db_url.replace("sqlite+aiosqlite", "sqlite")
    assert main(["admin", "reports", "--db", url]) == 0
    out = capsys.readouterr().out
    bob = f"about Rude Bob ({b.account['id']}, now Polite Bob)"
    assert f"#{from_profile} " in out and out.count(bob) == 2
    line = next(x for x in out.splitlines() if x.startswith(f"#{from_table} "))
    assert bob in line and f"table {table}" in line and "record attached" in line
    line = next(x for x in out.splitlines() if x.startswith(f"#{about_gone} "))
    assert "about a deleted account" in line and gone.account["id"] not in out


def _report_players(c: Any, a: Device, b: Device, gone: Device) -> tuple[int, int, int, str]:
    """``a`` reports ``b`` from a profile and from their quick match, and ``gone``, who then
    deletes the account; every refusal on the way. The three reports' ids and the table."""
    table = quick_match([a, b], preset="two-player", target=2500)
    seats = c.app.state.tables.peek(table).online["accounts"]
    mine, theirs = seats.index(a.account["id"]), seats.index(b.account["id"])
    computer_table = a.post("/api/tables", {"mode": "computer", "players": 2}).json()["table"]

    def report(**fields: object) -> Any:
        return a.post("/api/reports", {"category": "player", "description": "rude", **fields})

    refusals = [
        ({"category": "bug", "player": b.account["id"]}, 400, "bad_player"),
        ({"category": "other", "table": table, "seat": theirs}, 400, "bad_player"),
        ({"player": 42}, 400, "bad_player"),
        ({"player": "not an id!"}, 400, "bad_player"),
        ({"seat": theirs}, 400, "bad_player"),  # a seat needs its table
        ({"table": table, "seat": str(theirs)}, 400, "bad_player"),
        ({"table": table, "seat": True}, 400, "bad_player"),
        ({"table": table, "seat": theirs, "player": b.account["id"]}, 400, "bad_player"),
        ({"player": a.account["id"]}, 400, "self_report"),
        ({"table": table, "seat": mine}, 400, "self_report"),
        ({"player": "a0123456789abcdef"}, 404, "player_not_found"),
        ({"table": table, "seat": 5}, 404, "player_not_found"),
        ({"table": computer_table, "seat": 1}, 404, "player_not_found"),  # a computer
    ]
    for fields, status, expected in refusals:
        r = report(**fields)
        assert (r.status_code, code(r)) == (status, expected), fields
    r = report(player=b.account["id"])
    assert r.status_code == 201 and r.json()["attached"] is False
    from_profile = r.json()["report"]
    r = report(table=table, seat=theirs)
    assert r.status_code == 201 and r.json()["attached"] is True
    from_table = r.json()["report"]
    r = report(player=gone.account["id"])
    assert r.status_code == 201
    about_gone = r.json()["report"]
    r = report(player=b.account["id"])  # the fourth: over the limit, the refusals were free
    assert r.status_code == 429 and code(r) == "too_many_reports"
    stored = {r.id: r for r in c.portal.call(list_reports, c.app.state.store)}
    assert sorted(i for i, r in stored.items() if r.account_id == a.account["id"]) == [
        from_profile, from_table, about_gone]
    assert stored[from_profile].player_id == b.account["id"] and stored[from_profile].table_id is None
    assert stored[from_table].player_id == b.account["id"] and stored[from_table].table_id == table
    assert stored[from_table].account_id == a.account["id"]

    # the reported account is deleted: the report stays, no longer naming it
    r = gone.request("DELETE", "/api/account", json={"confirm": True})
    assert r.status_code == 200, r.text
    kept = {r.id: r for r in c.portal.call(list_reports, c.app.state.store)}[about_gone]
    assert kept.player_id is None and kept.description == "rude" and kept.player_named
    assert kept.player_name is None  # the name went with the account
    assert code(a.post("/api/reports", {"category": "player", "description": "x",
                                        "player": gone.account["id"]})) == "player_not_found"
    # a report looked its player up just before the deletion committed: stored, not naming it
    late = c.portal.call(lambda: add_report(
        c.app.state.store, account_id=a.account["id"], category="player", description="late",
        table_id=None, record=None, client=None, player_id=gone.account["id"], player_name="Soon Gone"))
    raced = {r.id: r for r in c.portal.call(list_reports, c.app.state.store)}[late]
    assert (raced.player_id, raced.player_name, raced.player_named) == (None, None, True)
    # but not without end: attempts have a limit of their own (ten times the reports'), so
    # refusals cannot make the server read tables and accounts forever
    attempts = len(refusals) + 5
    while attempts < 30:
        assert code(report(table=table, seat=mine)) == "self_report"
        attempts += 1
    r = report(table=table, seat=mine)
    assert r.status_code == 429 and code(r) == "too_many_reports"
    return from_profile, from_table, about_gone, table


def _at_revision(url: str, revision: str) -> None:
    """Bring the database to ``revision`` (up from nothing, or down from a newer schema)."""
    from alembic import command
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from canasta.server.db import HERE

    async def run() -> None:
        store = Store(url)

        def go(conn: Any) -> None:
            cfg = Config(str(HERE / "alembic.ini"))
            cfg.set_main_option("script_location", str(HERE / "migrations"))
            cfg.attributes["connection"] = conn
            current = MigrationContext.configure(conn).get_current_revision()
            newer = current is not None and current != revision and revision in {
                r.revision for r in ScriptDirectory.from_config(cfg).iterate_revisions(current, "base")
            }
            if newer:
                command.downgrade(cfg, revision)
            else:
                command.upgrade(cfg, revision)

        async with store.engine.begin() as conn:
            await conn.run_sync(go)
        await store.dispose()

    asyncio.run(run())


def test_the_migration_keeps_the_reports_and_lets_a_deleted_account_go(db_url: str) -> None:
    """Revision 0008 on a database of 0007: its reports stay, naming nobody; a row deleted
    from ``accounts`` (the database's own ON DELETE SET NULL) unlinks the report about it."""
    _at_revision(db_url, "0007_email_verification")
    reporter, reported = f"a{uuid.uuid4().hex[:16]}", f"a{uuid.uuid4().hex[:16]}"

    async def check() -> None:
        store = Store(db_url)
        try:
            async with store.engine.begin() as conn:
                for acc in (reporter, reported):
                    await conn.execute(
                        text("INSERT INTO accounts (id, kind, created_at) VALUES (:id, 'guest', :at)"),
                        {"id": acc, "at": now()},
                    )
                old = (await conn.execute(
                    text("INSERT INTO reports (account_id, category, description, created_at) "
                         "VALUES (:a, 'player', 'from 0007', :at) RETURNING id"),
                    {"a": reporter, "at": now()},
                )).scalar_one()
            await store.migrate()
            new = await add_report(store, account_id=reporter, category="player", description="new",
                                   table_id=None, record=None, client=None, player_id=reported)
            rows = {r.id: r for r in await list_reports(store)}
            assert rows[old].description == "from 0007" and rows[old].account_id == reporter
            assert rows[old].player_id is None and rows[old].player_named is False
            assert rows[new].player_id == reported and rows[new].player_named is True
            async with store.engine.connect() as conn:
                if store.url.startswith("sqlite"):  # SQLite enforces foreign keys when asked
                    await conn.execute(text("PRAGMA foreign_keys = ON"))
                await conn.execute(text("DELETE FROM accounts WHERE id = :id"), {"id": reported})
                await conn.commit()
            rows = {r.id: r for r in await list_reports(store)}
            assert rows[new].player_id is None and rows[new].description == "new"
        finally:
            await store.dispose()

    asyncio.run(check())
