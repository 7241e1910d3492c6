"""Health and Prometheus metrics endpoints."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
from pathlib import Path

from .support import TEST_CONFIG, client, create_table, my_turn, pick, receive_until, send


def test_healthz_answers_while_the_database_does(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    config = dataclasses.replace(TEST_CONFIG, sqlite_busy_seconds=0.2)
    with client(f"sqlite+aiosqlite:///{path}", config=config) as c:
        r = c.get("/healthz")
        assert r.status_code == 200 and r.json()["status"] == "ok"
        con = sqlite3.connect(path, isolation_level=None)
        con.execute("BEGIN EXCLUSIVE")
        try:
            r = c.get("/healthz")
            assert r.status_code == 503 and r.json()["storage"] == "unavailable"
        finally:
            con.execute("ROLLBACK")
            con.close()
        assert c.get("/healthz").status_code == 200


def test_metrics_count_tables_sockets_messages_and_action_latency(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=3)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            state = receive_until(ws, my_turn)
            send(ws, type="action", version=state["version"], action=pick(state["view"]["legal"], random.Random(1)))
            receive_until(ws, lambda m: m["type"] == "state" and m["change"] == "action")
            send(ws, type="dance")
            receive_until(ws, lambda m: m["type"] == "error")
            text = c.get("/metrics").text
            assert "canasta_tables_live 1.0" in text
            assert "canasta_sockets_open 1.0" in text
        assert 'canasta_messages_total{type="action"} 1.0' in text
        assert 'canasta_errors_total{code="unknown_type"} 1.0' in text
        assert "canasta_action_seconds_count 1.0" in text
        assert tid not in text and c.account not in text  # counts only
    for who in ("off", "loopback"):  # the test client's address is not a loopback address
        with client(sqlite_url, config=dataclasses.replace(TEST_CONFIG, metrics=who)) as c:
            assert c.get("/metrics").status_code == 404
