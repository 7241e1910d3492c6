"""Helpers for online-play tests: several browsers (sessions) at one real server app."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import Any

from starlette.testclient import TestClient, WebSocketTestSession

from canasta.server import ServerConfig, create_app
from tests.server.support import TEST_CONFIG, Message, receive

#: online clocks short enough for tests (each test that needs the real ones says so)
ONLINE_CONFIG = dataclasses.replace(
    TEST_CONFIG,
    move_seconds=30.0,
    grace_seconds=30.0,
    hand_break_seconds=30.0,
    online_bot_delay_ms=0,
    queue_grace_seconds=30.0,
    live_list_seconds=0.05,
    lobby_actions_per_minute=10**6,
    chat_per_minute=10**6,
    names_per_minute=10**6,
)


def online_client(db_url: str, config: ServerConfig = ONLINE_CONFIG) -> TestClient:
    return TestClient(create_app(db_url, bot_delay_ms=0, config=config))


class Browser:
    """One browser: its own session cookie, its lobby socket and table sockets."""

    def __init__(self, c: TestClient, name: str | None = None) -> None:
        self.c = c
        c.cookies.clear()
        r = c.post("/api/session", json={})
        assert r.status_code == 200, r.text
        self.token = str(c.cookies["canasta_session"])
        self.account = r.json()["account"]
        c.cookies.clear()
        if name is not None:
            r = self.request("PATCH", "/api/account", json={"name": name})
            assert r.status_code == 200, r.text
            self.account = r.json()["account"]
        self._stack = contextlib.ExitStack()
        self.lobby: WebSocketTestSession | None = None

    @property
    def headers(self) -> dict[str, str]:
        return {"cookie": f"canasta_session={self.token}"}

    def request(self, method: str, path: str, **kw: Any) -> Any:
        self.c.cookies.clear()
        return self.c.request(method, path, headers=self.headers, **kw)

    def socket(self, path: str, headers: dict[str, str] | None = None) -> WebSocketTestSession:
        self.c.cookies.clear()
        ws = self.c.websocket_connect(path, headers={**self.headers, **(headers or {})})
        return self._stack.enter_context(ws)

    def open_lobby(self) -> Message:
        self.lobby = self.socket("/ws/lobby")
        return self.until(self.lobby, lambda m: m["type"] == "lobby")

    def send(self, ws: WebSocketTestSession, **msg: Any) -> None:
        ws.send_text(json.dumps(msg))

    def until(
        self, ws: WebSocketTestSession, pred: Callable[[Message], bool], limit: int = 5000
    ) -> Message:
        for _ in range(limit):
            msg = receive(ws)
            if pred(msg):
                return msg
        raise AssertionError("expected message never arrived")

    def close(self) -> None:
        self._stack.close()


@contextlib.contextmanager
def browsers(c: TestClient, n: int) -> Iterator[list[Browser]]:
    out = [Browser(c, f"Player {i + 1}") for i in range(n)]
    try:
        yield out
    finally:
        for b in out:
            b.close()


def quick_match(players: list[Browser], preset: str = "classic", target: int = 5000) -> str:
    """Queue every browser for the same quick match; the table id they are all sent."""
    for b in players:
        b.open_lobby()
    for b in players:
        assert b.lobby is not None
        b.send(b.lobby, type="queue_join", preset=preset, target=target)
    ids = set()
    for b in players:
        assert b.lobby is not None
        ids.add(b.until(b.lobby, lambda m: m["type"] == "match")["table"])
    assert len(ids) == 1
    return ids.pop()
