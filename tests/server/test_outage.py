"""The database goes away mid-match (server hardening, point 2).

Nothing is confirmed to a client before it is committed: while the database is unavailable the
table refuses changes with ``storage_unavailable`` and stays exactly as last saved; it takes
changes again by itself once the database is back, and a restart resumes at the last
confirmed version. PostgreSQL is cut off by a TCP proxy the test controls; SQLite by another
connection holding an exclusive lock.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from .conftest import PG_URL
from .support import (
    TEST_CONFIG,
    Message,
    client,
    create_table,
    pick,
    receive,
    receive_until,
    send,
    session_token,
    use_session,
)

CONFIG = dataclasses.replace(TEST_CONFIG, storage_retry_seconds=0.2, sqlite_busy_seconds=0.3)


class Proxy:
    """A loopback TCP proxy that can cut every connection and refuse new ones, then come back."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.loop = asyncio.new_event_loop()
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.restore()

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(10)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.close()
            return
        self.writers |= {writer, up_writer}
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))
        self.writers -= {writer, up_writer}

    def restore(self) -> None:
        async def start() -> None:
            self.server = await asyncio.start_server(self._client, "127.0.0.1", self.port)

        self._call(start())

    def cut(self) -> None:
        async def stop() -> None:
            assert self.server is not None
            self.server.close()
            for w in list(self.writers):
                w.transport.abort()
            self.writers.clear()

        self._call(stop())

    def close(self) -> None:
        self.cut()
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def pg_proxy() -> Iterator[tuple[Proxy, str]]:
    if not PG_URL:
        pytest.skip("CANASTA_TEST_PG_URL is not set")
    parts = urlsplit(PG_URL)
    proxy = Proxy((parts.hostname or "127.0.0.1", parts.port or 5432))
    netloc = f"{parts.username}@127.0.0.1:{proxy.port}" if parts.username else f"127.0.0.1:{proxy.port}"
    yield proxy, urlunsplit(parts._replace(netloc=netloc))
    proxy.close()


def _start_pass_and_play(c: Any, ws: Any) -> Message:
    first = receive(ws)
    send(ws, type="reveal", seat=first["table"]["handoff"])
    return receive_until(ws, lambda m: m["type"] == "state" and m["change"] == "reveal")


def _play(ws: Any, state: Message, rng: random.Random, moves: int) -> Message:
    """Play ``moves`` changes of a pass-and-play table (reveals included); the last state."""
    for _ in range(moves):
        table, view = state["table"], state["view"]
        if view["phase"] == "over":
            break
        if table["handoff"] is not None:
            send(ws, type="reveal", seat=table["handoff"])
        else:
            send(ws, type="action", version=state["version"], action=pick(view["legal"], rng))
        state = receive_until(ws, lambda m: m["type"] in ("state", "error"))
        assert state["type"] == "state", state
    return state


def _outage(
    db: str, cut: Any, restore: Any, restart_db: str, tmp: Path | None = None
) -> None:
    rng = random.Random(4)
    with client(db, config=CONFIG) as c:
        token = session_token(c)
        tid = create_table(c, mode="local", players=2, rules={"target": "one_hand"}, seed=12)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            state = _play(ws, _start_pass_and_play(c, ws), rng, 6)
            confirmed = state["version"]
            cut()
            # the first refused change: nothing was confirmed, the table is as it was saved
            refused: list[Message] = []
            for _ in range(3):
                if state["table"]["handoff"] is not None:
                    send(ws, type="reveal", seat=state["table"]["handoff"])
                else:
                    send(ws, type="action", version=confirmed, action=state["view"]["legal"][0])
                reply = receive_until(ws, lambda m: m["type"] == "error")
                refused.append(reply)
            assert [r["code"] for r in refused] == ["storage_unavailable"] * 3
            send(ws, type="sync")
            now = receive_until(ws, lambda m: m["type"] == "state" and m["change"] == "sync")
            assert now["version"] == confirmed
            assert now["view"] == state["view"]
            assert now["table"]["storage"] == "unavailable"
            r = c.post("/api/tables", json={"mode": "computer"})
            assert r.status_code == 503 and r.json()["error"]["code"] == "storage_unavailable"
            restore()
            back = receive_until(ws, lambda m: m["type"] == "state" and m["change"] == "storage")
            assert back["version"] == confirmed and back["table"]["storage"] == "ok"
            state = _play(ws, back, rng, 4)
            confirmed = state["version"]
            assert confirmed == back["version"] + 4 or state["view"]["phase"] == "over"
    with client(restart_db, config=CONFIG) as c:  # after a restart: exactly what was confirmed
        use_session(c, token)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            again = receive(ws)
            assert again["version"] == confirmed


def test_postgresql_outage_mid_match_loses_nothing_confirmed(
    pg_proxy: tuple[Proxy, str],
) -> None:
    proxy, url = pg_proxy
    _outage(url, proxy.cut, proxy.restore, url)


def test_sqlite_locked_mid_match_loses_nothing_confirmed(tmp_path: Path) -> None:
    path = tmp_path / "canasta.sqlite3"
    url = f"sqlite+aiosqlite:///{path}"
    holder: list[sqlite3.Connection] = []

    def lock() -> None:
        con = sqlite3.connect(path, isolation_level=None, timeout=10)
        con.execute("BEGIN EXCLUSIVE")
        holder.append(con)

    def unlock() -> None:
        con = holder.pop()
        con.execute("ROLLBACK")
        con.close()
        time.sleep(0.05)

    _outage(url, lock, unlock, url)
