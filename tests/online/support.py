"""Helpers for online-play tests: several browsers (sessions) at one real server app."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Callable, Iterator
from typing import Any

from starlette.testclient import TestClient, WebSocketTestSession

from canasta.server import ServerConfig, create_app
from tests.server.support import TEST_CONFIG, Message, over_held, receive

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
    # every test browser comes from the test client's one address
    rate_shared_networks=True,
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

    def at(self, c: TestClient) -> Browser:
        """The same browser (its session cookie) at another server app (after a restart)."""
        other = Browser.__new__(Browser)
        other.c, other.token, other.account = c, self.token, self.account
        other._stack = contextlib.ExitStack()
        other.lobby = None
        return other

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

    def lobby_ask(self, **msg: Any) -> Message:
        """Send a lobby message with a request id; its answer (an error or a snapshot)."""
        assert self.lobby is not None
        self._requests = getattr(self, "_requests", 0) + 1
        request = f"{msg.get('type')}-{self._requests}"
        self.send(self.lobby, **msg, request=request)
        return self.until(self.lobby, lambda m: m.get("request") == request)

    def lobby_error(self, **msg: Any) -> str:
        answer = self.lobby_ask(**msg)
        assert answer["type"] == "error", answer
        return str(answer["code"])

    def lobby_until(self, kind: str, pred: Callable[[Message], bool] = lambda m: True) -> Message:
        """The next lobby message of type ``kind`` meeting ``pred``."""
        assert self.lobby is not None
        return self.until(self.lobby, lambda m: m["type"] == kind and pred(m))

    def close(self) -> None:
        self._stack.close()


@contextlib.contextmanager
def browsers(c: TestClient, n: int) -> Iterator[list[Browser]]:
    out = [Browser(c, f"Member {i + 1}") for i in range(n)]
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


class Socket:
    """A table socket read in order: every message goes through ``check`` (a privacy check)
    and the last ``state`` is kept."""

    def __init__(
        self, ws: WebSocketTestSession, check: Callable[[Message], None] = lambda m: None
    ) -> None:
        self.ws = ws
        self.check = check
        self.state: Message | None = None
        self.patches = 0  # states that came as patches
        self.chats: list[Message] = []
        self.errors: list[Message] = []

    def next(self) -> Message:
        msg = receive(self.ws)
        if msg["type"] == "state" and "base" in msg:  # a patch (``?state=patch``)
            msg = over_held(self.state, msg)
            self.patches += 1
        self.check(msg)
        if msg["type"] == "state":
            self.state = msg
        elif msg["type"] == "chat":
            self.chats.append(msg)
        elif msg["type"] == "error":
            self.errors.append(msg)
        return msg

    def until(self, pred: Callable[[Message], bool], limit: int = 5000) -> Message:
        for _ in range(limit):
            msg = self.next()
            if pred(msg):
                return msg
        raise AssertionError("expected message never arrived")

    def send(self, **msg: Any) -> None:
        self.ws.send_text(json.dumps(msg))

    def ask(self, **msg: Any) -> Message:
        """Send a message with a request id; its answer (a state, an error, ...)."""
        request = f"r{id(msg)}-{msg.get('type')}"
        self.send(**msg, request=request)
        return self.until(lambda m: m.get("request") == request)

    def error(self, **msg: Any) -> str:
        answer = self.ask(**msg)
        assert answer["type"] == "error", answer
        return str(answer["code"])

    def at_version(self, version: int) -> Message:
        """The last state if it is of ``version`` (or later), else read until one arrives
        (no error on the way)."""
        if self.state is not None and self.state["version"] >= version:
            return self.state
        return self.until(
            lambda m: _no_error(m) and m["type"] == "state" and m["version"] >= version
        )


def _no_error(msg: Message) -> bool:
    assert msg["type"] != "error", msg
    return True


def online_of(msg: Message) -> dict[str, Any]:
    on = msg["table"]["online"]
    assert isinstance(on, dict)
    return on


def play_hand(
    players: dict[int, Socket],
    watchers: list[Socket],
    rng: Any,
    max_actions: int = 3000,
    stop_after: int | None = None,
) -> Message:
    """People at every seat play one hand through their sockets (``pick`` chooses); every
    socket reads every state. Returns the state showing the hand's end (or the state after
    ``stop_after`` actions)."""
    from tests.server.support import pick

    everyone = [*players.values(), *watchers]
    version = max(s.state["version"] for s in everyone if s.state is not None)
    for s in everyone:
        s.at_version(version)
    for done in range(max_actions):
        first = next(iter(players.values())).state
        assert first is not None
        view = first["view"]
        if view["phase"] == "over" or done == stop_after:
            return first
        me = players[view["turn"]]
        assert me.state is not None and me.state["version"] == version, (
            me.state["version"],
            version,
            me.state["change"],
            [(s.state["version"], s.state["change"]) for s in everyone if s.state],
        )
        legal = me.state["view"]["legal"]
        assert legal, "the seat to act is offered no action"
        me.send(type="action", version=version, action=pick(legal, rng))
        version += 1
        for s in everyone:
            s.at_version(version)
    raise AssertionError("the hand did not end")


def seated(players: list[Browser], table: str) -> dict[int, Socket]:
    """Each browser's socket at ``table``, by the seat the server gave it (opened as the page
    keeps the state: sent patches, which :class:`Socket` puts over the state it holds)."""
    out = {}
    for b in players:
        s = Socket(b.socket(f"/ws/tables/{table}?state=patch"))
        out[s.until(lambda m: m["type"] == "state")["table"]["seat"]] = s
    return out
