"""Holes a review of the hardening found, each pinned: claims of account ids, loading tables by
reading them, spectators crowding owners out, suggestion searches, live tables after a claim,
the PostgreSQL lock after its connection dies, concurrent statistics, forged log lines."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import uuid

import pytest
from sqlalchemy import text

from canasta.server.db import StatsDelta, Store
from canasta.server.security import client_address

from .conftest import PG_URL
from .support import (
    TEST_CONFIG,
    client,
    create_table,
    my_turn,
    new_identity,
    new_table,
    receive,
    receive_until,
    send,
    session_token,
    use_session,
)


def test_an_account_id_cannot_be_claimed_as_an_old_profile(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        victim, token = c.account, session_token(c)
        create_table(c, mode="computer")
        new_identity(c)
        r = c.post("/api/session", json={"legacy_profile": victim})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_profile"
        assert c.get("/api/tables").json()["tables"] == []
        use_session(c, token)
        assert len(c.get("/api/tables").json()["tables"]) == 1


def test_reading_a_table_never_loads_it(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tables = c.app.state.tables  # type: ignore[attr-defined]
        tid = create_table(c, mode="local", players=2)  # no computer seat moves meanwhile
        live = c.get(f"/api/tables/{tid}").json()
        c.portal.call(tables.sweep, 0)
        assert tid not in tables
        c.cookies.clear()
        stored = c.get(f"/api/tables/{tid}").json()
        assert tid not in tables  # answered from the row
        assert stored == live


def test_a_full_process_unloads_its_least_recently_used_idle_table(sqlite_url: str) -> None:
    config = dataclasses.replace(TEST_CONFIG, live_tables=2)
    with client(sqlite_url, config=config) as c:
        tables = c.app.state.tables  # type: ignore[attr-defined]
        first = create_table(c, mode="computer")
        second = create_table(c, mode="computer")
        third = create_table(c, mode="computer")
        assert first not in tables and second in tables and third in tables
        with c.websocket_connect(f"/ws/tables/{first}") as ws:  # reloading evicts another
            assert receive(ws)["type"] == "state"
            assert first in tables and second not in tables


def test_a_suggestion_is_searched_once_per_position_and_rate_limited(sqlite_url: str) -> None:
    config = dataclasses.replace(TEST_CONFIG, suggest_rate=0.001, suggest_burst=1)
    with client(sqlite_url, config=config) as c:
        tid = create_table(c, mode="local", players=2, seed=4)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            first = receive(ws)
            send(ws, type="reveal", seat=first["table"]["handoff"])
            state = receive_until(ws, my_turn)
            answers = []
            for _ in range(3):  # the same position: one search, the same answer
                send(ws, type="suggest", version=state["version"])
                answers.append(receive(ws))
            assert all(a["type"] == "suggestion" for a in answers)
            assert answers[0] == answers[1] == answers[2]
            send(ws, type="action", version=state["version"], action={"type": "draw"})
            moved = receive_until(ws, lambda m: m["type"] == "state")
            send(ws, type="suggest", version=moved["version"])
            assert receive(ws)["code"] == "rate_limited"


def test_a_claim_hands_live_tables_to_the_account(sqlite_url: str) -> None:
    legacy = str(uuid.uuid4())
    with client(sqlite_url) as c:
        store = c.app.state.store  # type: ignore[attr-defined]
        table = new_table(store, "legacy-live", mode="computer", profile=legacy, seed=3)
        c.portal.call(store.save_table, table.row_values())
        c.cookies.clear()
        with c.websocket_connect("/ws/tables/legacy-live") as watcher:  # live, as a spectator
            assert receive(watcher)["table"]["seat"] is None
            me = new_identity(c)
            assert c.post("/api/session", json={"legacy_profile": legacy}).json()["claimed"]
            assert c.app.state.tables.peek("legacy-live").profile == me  # type: ignore[attr-defined]
            with c.websocket_connect("/ws/tables/legacy-live") as mine:
                assert receive(mine)["table"]["seat"] == 0


@pytest.mark.asyncio
async def test_the_postgresql_lock_is_taken_again_when_its_connection_dies() -> None:
    if not PG_URL:
        pytest.skip("CANASTA_TEST_PG_URL is not set")
    one, two = Store(PG_URL), Store(PG_URL)
    try:
        await one.acquire_node_lock()
        assert one._lock_conn is not None
        pid = (await one._lock_conn.execute(text("select pg_backend_pid()"))).scalar_one()
        async with two.engine.connect() as conn:  # the database ends that session
            await conn.execute(text("select pg_terminate_backend(:p)"), {"p": pid})
            await conn.commit()
        assert await one.keep_node_lock() is True
        from canasta.server.db import NodeLockTaken

        with pytest.raises(NodeLockTaken):
            await two.acquire_node_lock()
    finally:
        await one.dispose()
        await two.dispose()


@pytest.mark.asyncio
async def test_concurrent_saves_of_one_account_lose_no_statistics(db_url: str) -> None:
    store = Store(db_url)
    await store.migrate()
    profile = f"race-{random.randrange(10**9)}"
    try:
        tables = [new_table(store, f"{profile}-{k}") for k in range(12)]
        for t in tables:
            await store.save_table(t.row_values())
        await asyncio.gather(
            *(
                store.save_table(
                    t.row_values(),
                    [StatsDelta(profile, canastas=1, best_hand=k * 10, finished=True, won=True)],
                )
                for k, t in enumerate(tables)
            )
        )
        stats = await store.get_stats(profile)
        assert stats["played"] == 12 and stats["won"] == 12 and stats["canastas"] == 12
        assert stats["best_hand"] == 110 and stats["streak"] == 12 and stats["best_streak"] == 12
    finally:
        await store.dispose()


def test_a_newline_in_the_path_cannot_forge_a_log_line(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="canasta.access")
    with client(sqlite_url) as c:
        c.get("/api/tables/x%0aGET%20/api/stats%20200%200.1ms")
    lines = [r.getMessage() for r in caplog.records if r.name == "canasta.access"]
    assert not any("\n" in line for line in lines)
    assert any("x%0aGET" in line for line in lines)


def test_ipv6_clients_are_counted_by_their_64() -> None:
    a = client_address({"client": ("2001:db8:1:2::1", 5)})
    b = client_address({"client": ("2001:db8:1:2:ffff::9", 6)})
    assert a == b == "2001:db8:1:2::/64"
    assert client_address({"client": ("2001:db8:1:3::1", 5)}) != a
    assert client_address({"client": ("192.0.2.7", 5)}) == "192.0.2.7"


def test_ipv4_clients_of_a_dual_stack_socket_are_counted_by_their_own_address() -> None:
    # (cut to a /64, every IPv4 client would share ::/64, and so every per-address limit)
    assert client_address({"client": ("::ffff:192.0.2.7", 5)}) == "192.0.2.7"
    assert client_address({"client": ("::ffff:198.51.100.1", 5)}) == "198.51.100.1"
