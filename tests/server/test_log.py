"""The append-only table log: one row per accepted change, snapshots at hand boundaries."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from alembic import command
from alembic.config import Config
from sqlalchemy import func, select, text

from canasta.server.db import HERE, StatsDelta, Store, TableLogRow, TableRow, VersionConflict

from .conftest import PG_URL
from .support import client, create_table, new_table, receive, receive_until, send


def _count(c, tid: str) -> tuple[int, int, int]:  # type: ignore[no-untyped-def]
    store: Store = c.app.state.store

    async def q() -> tuple[int, int, int]:
        async with store.sessions() as s:
            n = await s.scalar(select(func.count()).where(TableLogRow.table_id == tid))
            row = await s.get(TableRow, tid)
            assert row is not None
            return int(n or 0), row.version, row.snapshot_seq

    return c.portal.call(q)  # type: ignore[no-any-return]


def test_each_change_appends_one_row_and_the_snapshot_waits_for_the_hand(db_url: str) -> None:
    rng = random.Random(2)
    with client(db_url) as c:
        tid = create_table(c, mode="local", players=2, rules={"target": "one_hand"}, seed=21)
        assert _count(c, tid) == (0, 0, 0)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            state = receive(ws)
            for k in range(1, 200):
                table, view = state["table"], state["view"]
                if view["phase"] == "over":
                    break
                if table["handoff"] is not None:
                    send(ws, type="reveal", seat=table["handoff"])
                else:
                    send(ws, type="action", version=state["version"], action=rng.choice(view["legal"]))
                state = receive_until(ws, lambda m: m["type"] == "state")
                rows, version, snapshot = _count(c, tid)
                assert rows == version == k
                if state["view"]["phase"] != "over":
                    assert snapshot == 0  # the record is not rewritten mid-hand
            assert state["view"]["phase"] == "over"
            assert _count(c, tid)[2] == state["version"]  # a finished hand is a snapshot


@pytest.mark.asyncio
async def test_a_change_number_can_be_written_once(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    await store.migrate()
    try:
        table = new_table(store, "once")
        await store.save_table(table.row_values())
        async with store.sessions() as s, s.begin():  # another writer's change 1
            s.add(TableLogRow(table_id="once", seq=1, entry={"kind": "pause"}))
        with pytest.raises(VersionConflict):  # the table row still says version 0
            await store.append_change("once", seq=1, entry={"kind": "pause"}, values={"paused": True})
        row = await store.load_table("once")
        assert row is not None and row.version == 0 and row.paused is False
    finally:
        await store.dispose()


@pytest.mark.asyncio
async def test_a_batch_saves_what_one_change_at_a_time_saves(db_url: str) -> None:
    """The group commit writes many tables' changes together (on SQLite in one call to the
    driver, with the ORM's statements compiled once): each row reads back as a change
    committed alone does, the JSON columns, the time and the statistics included; a stale
    change in a batch alone is refused, with its statistics."""
    store = Store(db_url)
    await store.migrate()
    tag = random.randrange(10**9)
    one_by_one = []  # the batches written change by change (after a stale version)
    write_batch = store._write_batch

    async def spy(conn: object, batch: list[object], *, together: bool) -> None:
        if not together:
            one_by_one.append(len(batch))
        await write_batch(conn, batch, together=together)  # type: ignore[arg-type]

    store._write_batch = spy  # type: ignore[method-assign]
    try:
        tables = [new_table(store, f"batch-{tag}-{i}", mode="computer", seed=i) for i in range(6)]
        for t in tables:
            await store.save_table(t.row_values())

        def values(i: int, seq: int) -> dict[str, object]:
            v = {**tables[i].row_values(), "paused": (i + seq) % 2 == 1, "options": {"delay_ms": i * seq}}
            for k in ("id", "profile", "mode", "record", "version", "created_at", "updated_at"):
                v.pop(k, None)
            return v

        # statistics with some changes: a hand's end of two tables of one player, a match won
        # and one lost (new rows and an existing one; a best hand or none)
        who = [f"stats-{tag}-{n}" for n in range(3)]

        def deltas(i: int, seq: int) -> list[StatsDelta]:
            if i == 0:
                return [StatsDelta(who[0], canastas=seq, best_hand=100 * seq)]
            if i == 1:
                return [StatsDelta(who[0], canastas=1, best_hand=50)]
            if i == 4:
                return [StatsDelta(who[1], canastas=2, finished=True, won=seq == 1)]
            if i == 5 and seq == 2:
                return [StatsDelta(who[2], finished=True, won=True, best_hand=-20)]
            return []

        async def batch(seqs: list[int]) -> list[object]:
            return await asyncio.gather(
                *(
                    store.append_change(
                        t.id, seq=seqs[i], entry={"kind": "action", "n": i, "seq": seqs[i]}, values=values(i, seqs[i]),
                        deltas=deltas(i, seqs[i]),
                    )
                    for i, t in enumerate(tables)
                ),
                return_exceptions=True,
            )

        async def check(i: int, seq: int) -> None:
            row = await store.load_table(tables[i].id)
            assert row is not None and row.version == seq
            assert row.paused is ((i + seq) % 2 == 1) and row.options == {"delay_ms": i * seq}
            assert row.updated_at.year >= 2026
            log = await store.load_log(tables[i].id, 0)
            assert log == [{"kind": "action", "n": i, "seq": s} for s in range(1, seq + 1)]

        def shown(played: int, won: int, best: int | None, canastas: int, streak: int, best_streak: int) -> dict[str, object]:
            return {"played": played, "won": won, "best_hand": best, "canastas": canastas,
                    "streak": streak, "best_streak": best_streak}

        assert await batch([1] * 6) == [None] * 6  # one batch, every change current
        sqlite = db_url.startswith("sqlite")  # (PostgreSQL's own path is one statement anyway)
        assert store._sqlite_one_call is sqlite  # SQLite writes its batches in one call
        assert one_by_one == [] or not sqlite  # written together
        for i in range(6):
            await check(i, 1)
        assert [await store.get_stats(p) for p in who] == [
            shown(0, 0, 100, 2, 0, 0), shown(1, 1, None, 2, 1, 1), shown(0, 0, None, 0, 0, 0)
        ]
        stale = 4  # claims version 3 of a table at version 1
        results = await batch([3 if i == stale else 2 for i in range(6)])
        assert [isinstance(r, VersionConflict) for r in results] == [i == stale for i in range(6)]
        assert one_by_one == [6] or not sqlite  # the stale version: change by change
        for i in range(6):
            await check(i, 1 if i == stale else 2)
        assert [await store.get_stats(p) for p in who] == [
            shown(0, 0, 200, 5, 0, 0), shown(1, 1, None, 2, 1, 1), shown(1, 1, -20, 0, 1, 1)
        ]
    finally:
        await store.dispose()


@pytest.mark.asyncio
async def test_postgresql_commits_a_batch_in_one_statement() -> None:
    """PostgreSQL commits the changes without statistics with one statement on the writer's
    own connection: columns set by only some changes (a snapshot) keep their value in the
    others; a stale version and a log row written by another writer are refused, alone;
    a connection the server ended is replaced before the next batch."""
    if not PG_URL:
        pytest.skip("CANASTA_TEST_PG_URL is not set")
    store = Store(PG_URL)
    await store.migrate()
    tag = random.randrange(10**9)
    together = []  # the batches that took the statement-by-statement path
    write_batch = store._write_batch

    async def spy(conn: object, batch: list[object], **kw: bool) -> None:
        together.append(len(batch))
        await write_batch(conn, batch, **kw)  # type: ignore[arg-type]

    store._write_batch = spy  # type: ignore[method-assign]
    try:
        tables = [new_table(store, f"one-{tag}-{i}", mode="computer", seed=i) for i in range(4)]
        for t in tables:
            await store.save_table(t.row_values())
        first = {t.id: (await store.load_table(t.id)).record for t in tables}  # type: ignore[union-attr]

        def values(i: int, seq: int, snapshot: bool) -> dict[str, object]:
            v: dict[str, object] = {"paused": (i + seq) % 2 == 1, "options": {"n": i * 10 + seq}, "handoff": None}
            if snapshot:
                v |= {"record": {"snap": i, "seq": seq}, "snapshot_seq": seq}
            return v

        async def batch(seqs: dict[int, int], snapshots: frozenset[int] = frozenset()) -> dict[int, object]:
            results = await asyncio.gather(
                *(
                    store.append_change(
                        tables[i].id, seq=seq, entry={"kind": "action", "seq": seq}, values=values(i, seq, i in snapshots)
                    )
                    for i, seq in seqs.items()
                ),
                return_exceptions=True,
            )
            return dict(zip(seqs, results, strict=True))

        async def check(i: int, seq: int, snapshot_at: int) -> None:
            row = await store.load_table(tables[i].id)
            assert row is not None and row.version == seq
            assert row.paused is ((i + seq) % 2 == 1) and row.options == {"n": i * 10 + seq} and row.handoff is None
            assert row.snapshot_seq == snapshot_at
            assert row.record == (first[tables[i].id] if snapshot_at == 0 else {"snap": i, "seq": snapshot_at})
            assert await store.load_log(tables[i].id, 0) == [{"kind": "action", "seq": s} for s in range(1, seq + 1)]

        # one batch: tables 0 and 2 write a snapshot, 1 and 3 keep theirs
        assert await batch({0: 1, 1: 1, 2: 1, 3: 1}, snapshots=frozenset({0, 2})) == {0: None, 1: None, 2: None, 3: None}
        for i in range(4):
            await check(i, 1, 1 if i in (0, 2) else 0)
        # a stale version (table 1 is at 1, not 2) is refused; the others are committed
        results = await batch({0: 2, 1: 3, 2: 2, 3: 2}, snapshots=frozenset({3}))
        assert isinstance(results.pop(1), VersionConflict) and set(results.values()) == {None}
        await check(1, 1, 0)
        await check(3, 2, 2)
        # another writer's log row for table 3's next change: table 3 is refused, alone
        async with store.sessions() as s, s.begin():
            s.add(TableLogRow(table_id=tables[3].id, seq=3, entry={"kind": "other"}))
        results = await batch({0: 3, 2: 3, 3: 3})
        assert results[0] is None and results[2] is None and isinstance(results[3], VersionConflict)
        row = await store.load_table(tables[3].id)
        assert row is not None and row.version == 2  # its update was rolled back with the insert
        await check(0, 3, 1)
        # the server ends the writer's connection: the next batch opens another
        pid = store._pg_writer.get_server_pid()
        async with store.engine.connect() as conn:
            await conn.execute(text("select pg_terminate_backend(:p)"), {"p": pid})
        await asyncio.sleep(0.5)
        assert await batch({0: 4, 1: 2}) == {0: None, 1: None}
        assert store._pg_writer.get_server_pid() != pid
        await check(0, 4, 1)
        await check(1, 2, 0)
        assert together == []  # none of it took the statement-by-statement path
    finally:
        await store.dispose()


def _upgrade(url: str, revision: str) -> None:
    import asyncio

    async def run() -> None:
        store = Store(url)

        def go(conn) -> None:  # type: ignore[no-untyped-def]
            cfg = Config(str(HERE / "alembic.ini"))
            cfg.set_main_option("script_location", str(HERE / "migrations"))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, revision)

        async with store.engine.begin() as conn:
            await conn.run_sync(go)
        await store.dispose()

    asyncio.run(run())


def test_tables_of_the_previous_schema_resume_after_the_migration(tmp_path: Path) -> None:
    """A database of the previous release (revision 0002: the whole record in the row)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.sqlite3'}"
    _upgrade(url, "0002")
    table = new_table(None, "old-table", profile="p-0ldbr0wser1d", seed=33)
    game = table.game
    for _ in range(17):
        game.apply(game.state.legal_actions()[0])
    table.version = table.seq = 17
    values = table.row_values()
    for column in ("snapshot_seq", "game_version"):  # the previous schema has neither
        values.pop(column)

    import asyncio

    async def write_old_row() -> None:
        store = Store(url)
        cols = ", ".join(values)
        marks = ", ".join(f":{k}" for k in values)
        import json

        params = {k: json.dumps(v) if isinstance(v, dict) else v for k, v in values.items()}
        params["updated_at"] = params["created_at"]
        async with store.engine.begin() as conn:
            await conn.execute(
                text(f"INSERT INTO tables ({cols}, updated_at) VALUES ({marks}, :updated_at)"),
                params,
            )
        await store.dispose()

    asyncio.run(write_old_row())
    with client(url) as c:  # the server migrates to the newest schema at start
        assert c.post("/api/session", json={"legacy_profile": "p-0ldbr0wser1d"}).json()["claimed"]
        with c.websocket_connect("/ws/tables/old-table") as ws:
            state = receive(ws)
            assert state["version"] == 17
            assert state["view"] == game.state.view(None).to_json()
            send(ws, type="pause")
            reply = receive(ws)
            assert reply["type"] == "state" and reply["version"] == 18, reply
        assert _count(c, "old-table") == (1, 18, 17)
