"""The upkeep's purge: sessions nobody can use, guests nobody can reach, and guests that never
did anything (docs/protocol.md, "Sessions and guests")."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select, update

from canasta.server.db import AccountRow, SessionRow, StatsRow, TableLogRow, TableRow, now

from .support import Device, app_client, finish_quick_match, new_email


def _purge(c: Any) -> int:
    return int(c.portal.call(c.app.state.purge_guests))


def _age_sessions(c: Any, account_id: str, days: float) -> None:
    """The account's sessions last seen ``days`` ago (and the account made before that)."""

    async def age() -> None:
        then = now() - dt.timedelta(days=days)
        async with c.app.state.store.sessions() as s, s.begin():
            await s.execute(update(SessionRow).where(SessionRow.account_id == account_id).values(last_seen_at=then))
            await s.execute(update(AccountRow).where(AccountRow.id == account_id).values(created_at=then))

    c.portal.call(age)


def _rows(c: Any, account_id: str, table_ids: list[str]) -> dict[str, Any]:
    async def read() -> dict[str, Any]:
        async with c.app.state.store.sessions() as s:
            return {
                "account": await s.get(AccountRow, account_id),
                "sessions": len((await s.scalars(select(SessionRow).where(SessionRow.account_id == account_id))).all()),
                "tables": len((await s.scalars(select(TableRow).where(TableRow.id.in_(table_ids)))).all()),
                "log": len((await s.scalars(select(TableLogRow).where(TableLogRow.table_id.in_(table_ids)))).all()),
                "stats": await s.get(StatsRow, account_id),
            }

    return c.portal.call(read)  # type: ignore[no-any-return]


def _game(d: Device) -> str:
    """A game against the computer with the guest's first move made (logged), left at once."""
    r = d.post("/api/tables", {"mode": "computer", "preset": "two-player-quick"})
    assert r.status_code == 200, r.text
    table_id = str(r.json()["table"])
    ws = d.socket(f"/ws/tables/{table_id}")
    state = d.until(ws, lambda m: m["type"] == "state" and m["view"]["turn"] == m["view"]["seat"] and m["view"]["legal"])
    d.send(ws, type="action", version=state["version"], action=state["view"]["legal"][0])
    d.until(ws, lambda m: m["type"] == "state" and m["version"] > state["version"])
    d.close()
    return table_id


def test_a_guest_whose_sessions_all_lapsed_goes_with_its_games_and_nobody_else_does(db_url: str) -> None:
    with app_client(db_url, orphan_guest_seconds=0.0) as c:
        gone, kept, member = Device(c, "Old Guest"), Device(c, "Here Now"), Device(c)
        member.register(new_email())
        gone_tables = [_game(gone), _game(gone)]
        kept_table = _game(kept)
        c.portal.call(c.app.state.tables.sweep, 0.0)  # nobody plays them: out of memory
        # unused for longer than a session lives (400 days): nobody can be this guest again,
        # nor, with no password, log into it; a registered account's sessions lapse the same
        _age_sessions(c, gone.account["id"], 401)
        _age_sessions(c, member.account["id"], 401)
        assert _rows(c, gone.account["id"], gone_tables)["log"] > 0
        assert _purge(c) == 1
        after = _rows(c, gone.account["id"], gone_tables)
        assert after == {"account": None, "sessions": 0, "tables": 0, "log": 0, "stats": None}
        # the others are as they were: a guest in use, and a registered account (its password
        # logs in again)
        assert kept.get("/api/account").json()["account"]["name"] == "Here Now"
        assert _rows(c, kept.account["id"], [kept_table])["tables"] == 1
        member_rows = _rows(c, member.account["id"], [])
        assert member_rows["account"].kind == "registered" and member_rows["sessions"] == 0
        assert _purge(c) == 0  # nothing left to do


def test_a_guest_that_never_played_goes_after_a_month_unseen(db_url: str) -> None:
    """A browser that asked for a session and did nothing else (as a flood of page loads
    would), or only chose a name, leaves nothing behind for long; a guest with a game, a
    statistic, coins or a match keeps its session however long it is away (until the session
    lapses)."""
    with app_client(db_url, orphan_guest_seconds=0.0) as c:
        empty, named, player = Device(c), Device(c, "Named"), Device(c)
        table = _game(player)
        c.portal.call(c.app.state.tables.sweep, 0.0)
        for d in (empty, named, player):
            _age_sessions(c, d.account["id"], 29)
        assert _purge(c) == 0  # not yet a month
        for d in (empty, named, player):
            _age_sessions(c, d.account["id"], 31)
        assert _purge(c) == 2
        for d in (empty, named):
            assert _rows(c, d.account["id"], [])["account"] is None
            assert d.get("/api/account").json()["error"]["code"] == "no_session"
        assert player.get("/api/account").status_code == 200
        assert _rows(c, player.account["id"], [table])["tables"] == 1


def test_a_purged_guests_online_match_stays_with_its_seat_renamed(db_url: str) -> None:
    """A guest who played an online match and is then unreachable goes as a deleted account
    does: the match stays, for the other player too, with the seat named "Deleted player"."""
    with app_client(db_url, orphan_guest_seconds=0.0) as c:
        a, b = Device(c, "Gone Soon"), Device(c, "Stays")
        try:
            table_id = finish_quick_match(c, [a, b])
            a.close()  # its sockets: the guest's browser is long gone
            c.portal.call(c.app.state.tables.sweep, 0.0)
            _age_sessions(c, a.account["id"], 401)
            assert _purge(c) == 1
            row = _rows(c, a.account["id"], [table_id])
            assert row["account"] is not None and row["account"].kind == "deleted" and row["tables"] == 1
            summary = b.get(f"/api/tables/{table_id}").text
            assert "Gone Soon" not in summary and "Deleted player" in summary
            assert b.get("/api/profile").json()["matches"][0]["table"] == table_id
        finally:
            a.close()
            b.close()


def test_a_guest_logging_in_is_never_purged_midway(db_url: str, monkeypatch: Any) -> None:
    """The purge runs (here, or on another node) while a guest logs into its account, after
    the login began to move its games: the guest still has its session then, so the purge
    leaves it; the login then merges it, and its unfinished game goes with the browser."""
    import canasta.server.accounts as accounts_module

    with app_client(db_url) as c:  # the production grace: an hour from the guest's making
        email = new_email()
        Device(c).register(email)
        guest = Device(c, "Guest Player")
        table_id = _game(guest)
        c.portal.call(c.app.state.tables.sweep, 0.0)
        gid = guest.account["id"]

        async def age() -> None:  # made yesterday, last played two hours ago
            async with c.app.state.store.sessions() as s, s.begin():
                await s.execute(update(AccountRow).where(AccountRow.id == gid).values(created_at=now() - dt.timedelta(days=1)))
                await s.execute(update(TableRow).where(TableRow.id == table_id).values(updated_at=now() - dt.timedelta(hours=2)))

        c.portal.call(age)
        moving = accounts_module.move_device_tables
        purged: list[int] = []

        async def racing(store: Any, old: str, new: str) -> list[str]:
            purged.append(await c.app.state.purge_guests())
            return await moving(store, old, new)

        monkeypatch.setattr(accounts_module, "move_device_tables", racing)
        r = guest.login(email)
        assert r.status_code == 200, r.text
        assert purged == [0]
        row = _rows(c, gid, [table_id])
        assert row["account"].kind == "merged" and row["tables"] == 1
        assert any(t["table"] == table_id for t in guest.get("/api/tables").json()["tables"])  # the browser's now
        assert _purge(c) == 0  # merged: never a guest to purge again


def test_a_guest_whose_game_is_in_memory_waits_for_the_next_run(db_url: str) -> None:
    with app_client(db_url, orphan_guest_seconds=0.0) as c:
        gone = Device(c)
        table_id = _game(gone)
        assert c.app.state.tables.peek(table_id) is not None  # not swept yet
        _age_sessions(c, gone.account["id"], 401)
        assert _purge(c) == 0
        assert _rows(c, gone.account["id"], [table_id])["tables"] == 1
        c.portal.call(c.app.state.tables.sweep, 0.0)
        assert _purge(c) == 1
        assert _rows(c, gone.account["id"], [table_id])["tables"] == 0
