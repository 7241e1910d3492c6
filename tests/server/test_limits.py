"""Resource limits (server hardening, points 1, 4, 5 and 6): every queue and rate is bounded,
a second process never silently loses moves, seeds only where a user expects them."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
from typing import Any

import pytest

from canasta.server.config import ServerConfig
from canasta.server.conn import CLOSE_TRY_AGAIN, Conn
from canasta.server.db import NodeLockTaken, Store, VersionConflict
from canasta.server.protocol import TableError
from canasta.server.table import Table

from .support import (
    TEST_CONFIG,
    client,
    close_code,
    create_table,
    my_turn,
    new_table,
    pick,
    play_to_the_end,
    receive,
    receive_until,
    send,
    session_token,
    use_session,
)


def config(**changes: object) -> ServerConfig:
    return dataclasses.replace(TEST_CONFIG, **changes)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- sockets


def test_a_slow_reader_is_dropped_at_its_outbox_limit() -> None:
    async def main() -> Conn:
        conn = Conn(account=None, owner=False, outbox_limit=4)
        for k in range(10):
            conn.send({"type": "state", "k": k})
        return conn

    conn = asyncio.run(main())
    assert conn.dropped and conn.close_code == CLOSE_TRY_AGAIN
    assert conn.outbox.qsize() <= 5  # what was queued was thrown away, not kept
    assert conn.outbox.get_nowait() is None


def test_a_socket_waits_while_its_share_of_the_table_queue_is_full() -> None:
    async def main() -> tuple[int, bool]:
        # never saved: the worker is not started
        table = new_table(None, "t-backpressure", mode="computer", preset="classic", profile="a")
        conn = Conn(account="a", owner=True, inflight_limit=3)
        for _ in range(3):
            await table.submit(conn, '{"type":"sync"}')
        try:
            await asyncio.wait_for(table.submit(conn, '{"type":"sync"}'), timeout=0.2)
            blocked = False
        except TimeoutError:
            blocked = True
        return table.queue.qsize(), blocked

    queued, blocked = asyncio.run(main())
    assert queued == 3 and blocked


def test_a_flooding_socket_is_closed_with_1008(sqlite_url: str) -> None:
    with client(sqlite_url, config=config(message_rate=0.01, message_burst=5)) as c:
        tid = create_table(c, mode="computer", preset="two-player")
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            receive(ws)
            for _ in range(50):
                send(ws, type="sync")
            assert close_code(ws) == 1008


def test_spectators_are_bounded_and_never_crowd_out_the_owner(sqlite_url: str) -> None:
    with client(
        sqlite_url, config=config(owner_sockets_per_table=1, spectators_per_table=2)
    ) as c:
        tid = create_table(c, mode="computer", preset="two-player")
        token = session_token(c)
        c.cookies.clear()  # spectators: no session
        with c.websocket_connect(f"/ws/tables/{tid}") as a, c.websocket_connect(
            f"/ws/tables/{tid}"
        ) as b:
            receive(a)
            receive(b)
            with c.websocket_connect(f"/ws/tables/{tid}") as third:
                msg = receive(third)
                assert msg["type"] == "error" and msg["code"] == "table_full"
            use_session(c, token)
            with c.websocket_connect(f"/ws/tables/{tid}") as mine:
                assert receive(mine)["table"]["seat"] == 0
                with c.websocket_connect(f"/ws/tables/{tid}") as second:
                    assert receive(second)["code"] == "table_full"


# ---------------------------------------------------------------------- tables and requests


def test_table_creation_is_rate_limited_per_session(sqlite_url: str) -> None:
    with client(sqlite_url, config=config(tables_per_minute=3)) as c:
        for _ in range(3):
            create_table(c, mode="computer")
        r = c.post("/api/tables", json={"mode": "computer"})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"


def test_live_tables_per_session_unload_idle_ones_and_refuse_busy_ones(sqlite_url: str) -> None:
    with client(sqlite_url, config=config(live_tables_per_session=2)) as c:
        tables = c.app.state.tables  # type: ignore[attr-defined]
        first = create_table(c, mode="computer")
        second = create_table(c, mode="computer")
        third = create_table(c, mode="computer")  # the least recently used idle one is unloaded
        assert first not in tables and second in tables and third in tables
        assert c.get(f"/api/tables/{first}").status_code == 200  # still in the database
        with c.websocket_connect(f"/ws/tables/{second}") as a, c.websocket_connect(
            f"/ws/tables/{first}"
        ) as b:
            receive(a)
            receive(b)
            r = c.post("/api/tables", json={"mode": "computer"})
            assert r.status_code == 429
            assert r.json()["error"]["code"] == "too_many_live_tables"


def test_request_bodies_are_bounded(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        r = c.post(
            "/api/tables",
            content=b'{"mode": "computer", "pad": "' + b"x" * 100_000 + b'"}',
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"

        def chunks():  # no Content-Length: counted as it arrives
            yield b'{"mode": "computer", "pad": "'
            for _ in range(50):
                yield b"x" * 10_000
            yield b'"}'

        r = c.post("/api/tables", content=chunks(), headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
        assert c.get("/api/presets").status_code == 200


def test_computer_seats_never_move_faster_than_the_server_floor(sqlite_url: str) -> None:
    with client(sqlite_url, config=config(min_bot_delay_ms=300)) as c:
        tid = create_table(c, mode="computer", preset="two-player")
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            receive(ws)
            send(ws, type="settings", delay_ms=40)
            receive_until(ws, lambda m: m.get("change") == "settings")
        table = c.portal.call(c.app.state.tables.get, tid)  # type: ignore[attr-defined]
        assert table.options["delay_ms"] == 40 and table.delay_ms == 300


def test_settings_changes_are_rate_limited(sqlite_url: str) -> None:
    with client(sqlite_url, config=config(settings_rate=0.01, settings_burst=2)) as c:
        tid = create_table(c, mode="computer", preset="two-player")
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            receive(ws)
            codes = []
            for delay in (100, 200, 300, 400):
                send(ws, type="settings", delay_ms=delay)
                reply = receive_until(
                    ws, lambda m: m["type"] == "error" or m.get("change") == "settings"
                )
                codes.append(reply.get("code"))
            assert codes[:2] == [None, None]
            assert codes[2:] == ["rate_limited", "rate_limited"]


def test_finished_tables_leave_memory_sooner_than_others(sqlite_url: str) -> None:
    with client(sqlite_url, config=config(finished_idle_seconds=0, idle_seconds=3600)) as c:
        tables = c.app.state.tables  # type: ignore[attr-defined]
        done = create_table(c, mode="local", players=2, rules={"target": "one_hand"}, seed=3)
        playing = create_table(c, mode="computer", preset="two-player")
        with c.websocket_connect(f"/ws/tables/{done}") as ws:
            first = receive(ws)
            send(ws, type="reveal", seat=first["table"]["handoff"])
            last = play_to_the_end(ws, random.Random(3))
            assert last["table"]["status"] == "match_over"
        assert c.portal.call(tables.sweep) == 1
        assert done not in tables and playing in tables


# ---------------------------------------------------------------------- seeds


def test_seeds_are_refused_unless_the_server_allows_them(sqlite_url: str) -> None:
    with client(sqlite_url, config=config(allow_seeds=False)) as c:
        r = c.post("/api/tables", json={"mode": "computer", "seed": 7})
        assert r.status_code == 400 and r.json()["error"]["code"] == "seed_not_allowed"
        assert c.post("/api/tables", json={"mode": "computer"}).json()["seeded"] is False


def test_a_seeded_table_never_counts_toward_statistics(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(
            c, mode="computer", preset="two-player-quick", rules={"target": "one_hand"}, seed=9
        )
        assert c.get(f"/api/tables/{tid}").json()["seeded"] is True
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            last = play_to_the_end(ws, random.Random(9))
            assert last["table"]["seeded"] is True
        assert c.get("/api/stats").json()["played"] == 0


# ---------------------------------------------------------------------- one process per database


def test_a_second_server_on_the_same_database_is_refused(db_url: str) -> None:
    with client(db_url) as c:
        assert c.get("/api/presets").status_code == 200
        with pytest.raises(NodeLockTaken):
            with client(db_url):
                pass
        assert c.get("/api/presets").status_code == 200
    with client(db_url) as again:  # released when the first one stopped
        assert again.get("/api/presets").status_code == 200


@pytest.mark.asyncio
async def test_saving_checks_the_version_it_read(db_url: str) -> None:
    """Two writers of one table row: the second is refused, and nothing of the first is lost."""
    one, two = Store(db_url), Store(db_url)
    await one.migrate()
    try:
        table = new_table(one, f"race-{random.randrange(10**9)}", mode="computer", seed=5)
        await one.save_table(table.row_values())
        row = await two.load_table(table.id)
        assert row is not None
        a = Table.from_row(row, one)
        b = Table.from_row(row, two)
        for t in (a, b):
            t.game.apply(t.game.state.legal_actions()[0])
            t.version += 1
            t.seq += 1
        await one.save_table(a.row_values(), expected_version=0)
        with pytest.raises(VersionConflict):
            await two.save_table(b.row_values(), expected_version=0)
        stored = await one.load_table(table.id)
        assert stored is not None and stored.version == 1
        assert stored.record == a.game.to_record()
    finally:
        await one.dispose()
        await two.dispose()


@pytest.mark.asyncio
async def test_a_table_whose_row_changed_elsewhere_reloads_instead_of_overwriting(
    sqlite_url: str,
) -> None:
    one, two = Store(sqlite_url), Store(sqlite_url)
    await one.migrate()
    try:
        table = new_table(one, "race-table", seed=5)
        await one.save_table(table.row_values())
        row = await one.load_table(table.id)
        assert row is not None
        mine, theirs = Table.from_row(row, one), Table.from_row(row, two)
        await theirs._changed("pause")  # another process saves first
        with pytest.raises(TableError) as refused:
            await mine._changed("pause")
        assert refused.value.code == "table_conflict" and mine.defunct
        stored = await one.load_table(table.id)
        assert stored is not None and stored.version == 1
    finally:
        await one.dispose()
        await two.dispose()


def test_a_defunct_table_is_reloaded_on_next_use(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player")
        tables = c.app.state.tables  # type: ignore[attr-defined]
        table = c.portal.call(tables.get, tid)
        table.defunct = True
        again = c.portal.call(tables.get, tid)
        assert again is not table and not again.defunct
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            state = receive_until(ws, my_turn)
            send(ws, type="action", version=state["version"], action=pick(state["view"]["legal"], random.Random(1)))
            assert receive(ws)["type"] == "state"


def test_an_error_reply_is_json_with_the_table_version(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="local", players=2)  # no computer seat moves meanwhile
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            state = receive(ws)
            ws.send_text(json.dumps({"type": "sync", "pad": "y" * 20_000}))
            err = receive(ws)
            assert err["code"] == "message_too_large" and err["version"] == state["version"]


def test_loads_run_at_once_share_a_table_and_count_against_the_session(sqlite_url: str) -> None:
    """Tables not in memory load concurrently (a node taking many over, or many new ones of
    other nodes): two sockets of one table share one load, and loads under way count against
    the session's live tables, so concurrent loads never leave it more than its share."""
    from canasta.server.tables import TooManyTables

    with client(sqlite_url, config=config(live_tables_per_session=2)) as c:
        tables = c.app.state.tables  # type: ignore[attr-defined]
        ids = [create_table(c, mode="local", players=2) for _ in range(2)]
        extra = create_table(c, mode="local", players=2)  # the first of ids is unloaded for it
        assert c.portal.call(tables.sweep, 0.0) == 2  # every idle table unloaded
        assert len(tables) == 0

        async def load_at_once() -> list[Any]:
            return list(
                await asyncio.gather(
                    tables.get(ids[0]), tables.get(ids[0]), tables.get(ids[1]), tables.get(extra),
                    return_exceptions=True,
                )
            )

        got = c.portal.call(load_at_once)
        assert got[0] is got[1] and got[0] is not None  # one load for both sockets
        assert all(isinstance(g, Table) or isinstance(g, TooManyTables) for g in got), got
        assert len(tables) <= 2 and not tables._pending and not tables._loading
        for tid in [*ids, extra]:  # each still opens (unloading an idle one for room)
            with c.websocket_connect(f"/ws/tables/{tid}") as ws:
                assert receive(ws)["type"] == "state"


def test_a_table_loaded_while_its_copy_unloads_waits_for_it(sqlite_url: str) -> None:
    """A table leaving memory (swept, evicted, handed to another node) is stopped (its last
    changes committed) and its lease released before the same table is loaded again, so two
    copies of it are never live at once."""
    import time

    with client(sqlite_url) as c:
        tid = create_table(c, mode="local", players=2)
        tables = c.app.state.tables  # type: ignore[attr-defined]
        old = c.portal.call(tables.get, tid)
        stopped: list[float] = []
        real_stop = old.stop

        async def slow_stop() -> None:
            await asyncio.sleep(0.3)
            await real_stop()
            stopped.append(time.monotonic())

        old.stop = slow_stop

        async def race() -> tuple[Any, float]:
            sweep = asyncio.create_task(tables.sweep(0.0))
            await asyncio.sleep(0)  # the sweep has taken the table out and is stopping it
            again = await tables.get(tid)
            loaded_at = time.monotonic()
            await sweep
            return again, loaded_at

        again, loaded_at = c.portal.call(race)
        assert again is not old and stopped and stopped[0] <= loaded_at
        assert tables.peek(tid) is again and not tables._unloading
