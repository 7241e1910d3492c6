"""Helpers for driving tables through the websocket and checking what each seat is sent."""

from __future__ import annotations

import importlib.util
import json
import random
import re
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
from starlette.testclient import TestClient, WebSocketTestSession

from canasta import Settings, State, resample
from canasta.cards import card_str, sort_key
from canasta.server import ServerConfig, create_app
from canasta.server.table import Table

Message = dict[str, Any]
CARD = re.compile(r"^(?:[A2-9TJQK][CDHS]|JK)$")


def new_profile() -> str:
    return "test-" + uuid.uuid4().hex


#: limits loose enough for tests that drive tables as fast as they can (the limits have tests
#: of their own, with the defaults)
TEST_CONFIG = ServerConfig(
    allow_seeds=True,
    min_bot_delay_ms=0,
    message_rate=1e6,
    message_burst=10**6,
    tables_per_minute=10**6,
    tables_per_minute_per_address=10**6,
    sessions_per_minute_per_address=10**6,
    socket_opens_per_minute_per_address=10**6,
    live_tables_per_session=10**6,
    settings_rate=1e6,
    settings_burst=10**6,
    suggest_rate=1e6,
    suggest_burst=10**6,
    reads_per_minute_per_address=10**6,
    replay_views_per_minute_per_address=10**6,
    replay_views_burst=10**6,
    metrics="on",
)


class Client(TestClient):
    """A test client that starts a browser session (cookie) when it starts."""

    def __enter__(self) -> Client:
        super().__enter__()
        self.account = new_identity(self)
        return self


def client(db_url: str, delay_ms: int = 0, config: ServerConfig = TEST_CONFIG) -> Client:
    return Client(create_app(db_url, bot_delay_ms=delay_ms, config=config))


def new_table(
    store: Any,
    table_id: str,
    *,
    mode: str = "local",
    preset: str = "two-player",
    profile: str | None = "p",
    seed: int | None = None,
) -> Table:
    """A table built directly (no app): for storage and worker tests."""
    return Table.create(
        table_id=table_id,
        profile=profile,
        mode=mode,
        settings=Settings.preset(preset),
        difficulty="normal",
        store=store,
        delay_ms=0,
        seed=seed,
    )


def bench_module(name: str) -> ModuleType:
    """A script of ``bench/`` as a module (its server process helpers serve tests too)."""
    path = Path(__file__).resolve().parents[2] / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"canasta_bench_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def new_identity(c: TestClient) -> str:
    """Forget the client's session and start a new one (another browser); its account id."""
    c.cookies.clear()
    r = c.post("/api/session", json={})
    assert r.status_code == 200, r.text
    return str(r.json()["account"]["id"])


def session_token(c: TestClient) -> str:
    return str(c.cookies["canasta_session"])


def use_session(c: TestClient, token: str) -> None:
    c.cookies.clear()
    c.cookies.set("canasta_session", token)


def create_table(c: TestClient, **body: Any) -> str:
    r = c.post("/api/tables", json=body)
    assert r.status_code == 200, r.text
    return str(r.json()["table"])


def receive(ws: WebSocketTestSession, timeout: float = 30.0) -> Message:
    """The next message from the server (fails instead of hanging)."""

    async def get() -> Any:
        with anyio.fail_after(timeout):
            return await ws._send_rx.receive()

    message = ws.portal.call(get)
    assert message["type"] == "websocket.send", f"socket closed: {message}"
    data = json.loads(message["text"])
    assert isinstance(data, dict)
    return data


def receive_until(
    ws: WebSocketTestSession, pred: Callable[[Message], bool], limit: int = 5000
) -> Message:
    for _ in range(limit):
        msg = receive(ws)
        if pred(msg):
            return msg
    raise AssertionError("expected message never arrived")


def my_turn(msg: Message) -> bool:
    """A state in which the client's seat must act (or the hand is over)."""
    if msg["type"] != "state":
        return False
    v = msg["view"]
    return v["phase"] == "over" or (
        v["seat"] is not None and v["turn"] == v["seat"] and bool(v["legal"])
    )


def send(ws: WebSocketTestSession, **msg: Any) -> None:
    ws.send_text(json.dumps(msg))


def pick(legal: list[Message], rng: random.Random) -> Message:
    """A plausible human choice among the listed legal actions."""
    out = [a for a in legal if a["type"] == "meld" and a.get("discard")]
    if out:
        return out[0]
    for kinds, p in ((("take",), 0.6), (("meld",), 0.6), (("answer",), 1.0), (("draw",), 1.0)):
        options = [a for a in legal if a["type"] in kinds]
        if options and rng.random() < p:
            return rng.choice(options)
    return rng.choice(legal)


class Truth:
    """Snapshots of the true state each time the server builds a state message."""

    def __init__(self) -> None:
        self.states: dict[tuple[str, int], State] = {}

    def install(self, monkeypatch: pytest.MonkeyPatch) -> Truth:
        original = Table._whole_state  # where every state message is built
        states = self.states

        def spy(table: Table, conn: Any, change: str, *audience: Any) -> Message:
            states[(table.id, table.version)] = table.game.state.copy()
            return original(table, conn, change, *audience)

        monkeypatch.setattr(Table, "_whole_state", spy)
        return self

    def check(self, table_id: str, msg: Message) -> None:
        """The message holds only what its recipient may know."""
        if msg["type"] != "state":
            return
        true = self.states[(table_id, msg["version"])]
        seat = msg["table"]["seat"]
        view = msg["view"]
        assert view == true.view(seat).to_json(), (
            "the view is not the recipient's view of the true state"
        )
        assert msg["event"] is None or msg["event"] == view["history"][-1]
        assert not list(cards_in(msg["table"])), "table info carries cards"
        if seat is None:
            assert view["hand"] is None
        else:
            assert view["hand"] == [card_str(c) for c in sorted(true.hands[seat], key=sort_key)]
            for k in range(2):  # hidden cards resampled: the recipient's message must not change
                again = resample(true.view(seat), random.Random(k)).view(seat).to_json()
                assert again == view, "the view depends on hidden cards"
        # once the hand is over every hand is public (the score screen shows them), and only then
        if view["phase"] == "over":
            assert view["hands_left"] == [
                [card_str(c) for c in sorted(h, key=sort_key)] for h in true.hands
            ]
        else:
            assert view["hands_left"] is None, "hands shown before the hand is over"
        shown = {k: v for k, v in view.items() if k != "hands_left"}
        lists = [tuple(x) for x in _card_lists({**msg, "view": shown})]
        for other in range(true.players):
            if (
                other == seat
                or len(true.hands[other]) <= len(true.known[other])
                # a hand of 2-3 cards can equal a public list by chance (two copies of each card);
                # the resampling check above already proves the view holds no hidden card
                or len(true.hands[other]) < 4
            ):
                continue
            hidden = tuple(card_str(c) for c in sorted(true.hands[other], key=sort_key))
            assert hidden not in lists, f"seat {other}'s hand was sent to seat {seat}"
        stock = [card_str(c) for c in true.stock]
        if len(stock) >= 4:
            nxt = stock[-4:]
            for lst in lists:
                for seq in (nxt, nxt[::-1]):
                    assert not _contains(list(lst), seq), "the stock order was sent"


def _contains(lst: list[str], seq: list[str]) -> bool:
    n = len(seq)
    return any(lst[i : i + n] == seq for i in range(len(lst) - n + 1))


def cards_in(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        if CARD.match(node):
            yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from cards_in(v)
    elif isinstance(node, list):
        for v in node:
            yield from cards_in(v)


def _card_lists(node: Any) -> Iterator[list[str]]:
    if isinstance(node, dict):
        for v in node.values():
            yield from _card_lists(v)
    elif isinstance(node, list):
        if node and all(isinstance(x, str) and CARD.match(x) for x in node):
            yield node
        for v in node:
            yield from _card_lists(v)


def over_held(held: Message | None, msg: Message) -> Message:
    """The whole state a ``state`` message stands for on a socket opened with ``?state=patch``:
    a patch (it names its ``base``) put over ``held``, the state the socket was last sent,
    which must be that base; a whole state as it came."""
    if "base" not in msg:
        return msg
    assert held is not None and msg["base"] == held["sid"], (msg["base"], held and held["sid"])
    return {**msg, "view": {**held["view"], **msg["view"]}, "table": {**held["table"], **msg["table"]}}


def play_to_the_end(
    ws: WebSocketTestSession,
    rng: random.Random,
    on_message: Callable[[Message], None] = lambda m: None,
    max_messages: int = 20000,
    until: Callable[[Message], bool] = lambda m: bool(m["table"]["match"]["over"]),
    held: Message | None = None,
) -> Message:
    """Play the client's seat(s) until a state for which ``until`` holds (by default: the
    match is over); returns that state. It acts once per version: a change that is not the
    game's (a leave, a return) repeats the version. On a socket opened with ``?state=patch``
    each patch is put over the state before it (``held``: the last one read elsewhere)."""
    acted = -1
    for _ in range(max_messages):
        msg = receive(ws)
        if msg["type"] == "state":
            msg = held = over_held(held, msg)
        on_message(msg)
        assert msg["type"] != "error", msg
        if msg["type"] != "state":
            continue
        table, view = msg["table"], msg["view"]
        if until(msg):
            return msg
        if table["handoff"] is not None:
            assert view["hand"] is None
            send(ws, type="reveal", seat=table["handoff"])
        elif view["phase"] == "over":
            send(ws, type="next_hand")
        elif (
            view["seat"] is not None
            and view["turn"] == view["seat"]
            and view["legal"]
            and msg["version"] > acted
        ):
            acted = msg["version"]
            send(ws, type="action", version=acted, action=pick(view["legal"], rng))
    raise AssertionError("the awaited state never came")


def close_code(ws: WebSocketTestSession, limit: int = 200) -> int | None:
    """Read the socket until the server closes it; the close code."""

    async def get() -> Any:
        with anyio.fail_after(30):
            return await ws._send_rx.receive()

    for _ in range(limit):
        message = ws.portal.call(get)
        if message["type"] == "websocket.close":
            return int(message["code"])
    return None
