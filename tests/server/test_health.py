"""Health and Prometheus metrics endpoints."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
import time
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


def test_metrics_count_tables_sockets_messages_changes_and_action_latency(sqlite_url: str) -> None:
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
        # the person's action and any computer moves after it, each counted once committed
        committed = [line for line in text.splitlines() if line.startswith('canasta_changes_total{kind="action"}')]
        assert committed and float(committed[0].split()[-1]) >= 1.0
        assert "canasta_changes_total{" in text and 'kind="settings"' not in text
        assert tid not in text and c.account not in text  # counts only
    for who in ("off", "loopback"):  # the test client's address is not a loopback address
        with client(sqlite_url, config=dataclasses.replace(TEST_CONFIG, metrics=who)) as c:
            assert c.get("/metrics").status_code == 404


def test_loopback_metrics_are_not_served_through_a_proxy(sqlite_url: str) -> None:
    """A reverse proxy on the same machine connects from loopback for every client: a request
    that carries a proxy's forwarding header is not this machine's own, whatever its address."""
    from starlette.testclient import TestClient

    from canasta.server import create_app

    app = create_app(sqlite_url, bot_delay_ms=0, config=dataclasses.replace(TEST_CONFIG, metrics="loopback"))
    with TestClient(app, client=("127.0.0.1", 50000)) as c:
        assert c.get("/metrics").status_code == 200
        for header in ("X-Forwarded-For", "X-Real-IP", "Forwarded"):
            r = c.get("/metrics", headers={header: "203.0.113.9" if header != "Forwarded" else "for=203.0.113.9"})
            assert r.status_code == 404, header
    with TestClient(app, client=("::1", 50000)) as c:
        assert c.get("/metrics").status_code == 200


def lag_counts(text: str) -> tuple[float, float]:
    """(wake-ups within a quarter second, all wake-ups) of the loop-lag histogram."""
    within = total = 0.0
    for line in text.splitlines():
        if line.startswith('canasta_loop_lag_seconds_bucket{le="0.25"}'):
            within = float(line.split()[-1])
        elif line.startswith("canasta_loop_lag_seconds_count"):
            total = float(line.split()[-1])
    return within, total


def test_metrics_show_a_stalled_event_loop(sqlite_url: str) -> None:
    """The loop-lag histogram counts how late the loop wakes a sleeping probe: blocking the
    loop for 0.6 s puts one wake-up beyond the quarter-second bucket."""
    with client(sqlite_url) as c:
        deadline = time.monotonic() + 10
        while lag_counts(c.get("/metrics").text)[1] < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        within, total = lag_counts(c.get("/metrics").text)
        assert total >= 1
        assert c.portal is not None
        c.portal.call(time.sleep, 0.6)  # a synchronous call on the loop's own thread blocks it
        while lag_counts(c.get("/metrics").text)[1] <= total and time.monotonic() < deadline:
            time.sleep(0.05)
        later_within, later_total = lag_counts(c.get("/metrics").text)
        assert later_total - later_within > total - within  # one more wake-up came late


def test_counts_reach_the_metrics_page_each_once() -> None:
    """``Metrics.count`` keeps counts in memory until the page is rendered: every count made
    before a render is on it, and none is added twice by a later render."""
    from canasta.server.metrics import Metrics

    metrics = Metrics(lambda: 0.0, lambda: 0.0)
    for _ in range(3):
        metrics.count(metrics.changes, "action")
    metrics.count(metrics.computer_moves, "worker")
    first = metrics.render().decode()
    assert 'canasta_changes_total{kind="action"} 3.0' in first
    assert 'canasta_computer_moves_total{how="worker"} 1.0' in first
    metrics.count(metrics.changes, "action")
    second = metrics.render().decode()
    assert 'canasta_changes_total{kind="action"} 4.0' in second
    assert 'canasta_computer_moves_total{how="worker"} 1.0' in second
    assert metrics.render().decode().count('kind="action"} 4.0') == 1
