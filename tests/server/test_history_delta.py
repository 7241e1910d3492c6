"""A page that keeps the hand's history (``?history=delta``) is sent only the events it has not
seen; what it holds after each state is exactly the whole history another socket is sent."""

from __future__ import annotations

import random

from starlette.testclient import WebSocketTestSession

from .support import Message, client, create_table, my_turn, pick, receive, send


def state_at(ws: WebSocketTestSession, version: int) -> Message:
    """The next state of ``ws`` at ``version`` (its states come in order of version)."""
    for _ in range(500):
        msg = receive(ws)
        if msg["type"] == "state" and msg["version"] == version:
            return msg
        assert msg["type"] != "state" or msg["version"] < version
    raise AssertionError(f"no state at version {version}")


class Page:
    """What a page keeping the history holds, checked against a socket sent it whole."""

    def __init__(self, delta: WebSocketTestSession, whole: WebSocketTestSession) -> None:
        self.delta, self.whole = delta, whole
        self.held: list[Message] = []
        self.starts: list[int] = []
        self.sent = self.full = 0
        self.whole_version, self.whole_history = -1, None

    def next_state(self) -> Message:
        while (msg := receive(self.delta))["type"] != "state":
            pass
        v = msg["view"]
        start = v["history_from"]
        assert 0 <= start <= len(self.held)
        self.held = self.held[:start] + v["history"]
        self.starts.append(start)
        if msg["version"] > self.whole_version:  # (a reply to this page alone: no new state there)
            other = state_at(self.whole, msg["version"])
            assert "history_from" not in other["view"]  # a socket that did not ask: unchanged
            self.whole_version, self.whole_history = msg["version"], other["view"]["history"]
        assert self.held == self.whole_history
        self.sent += len(v["history"])
        self.full += len(self.held)
        return msg


def test_a_delta_socket_holds_the_whole_history_from_new_events_only(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=5)
        with c.websocket_connect(f"/ws/tables/{tid}") as whole:
            # the whole socket's first state before the other socket opens: its join is then
            # handled first, so it is sent every state the other one is (joins are handled by
            # the table in the order they arrive, not in the order the sockets opened)
            while (first := receive(whole))["type"] != "state":
                pass
            with c.websocket_connect(f"/ws/tables/{tid}?history=delta") as delta:
                page, rng = Page(delta, whole), random.Random(2)
                page.whole_version, page.whole_history = first["version"], first["view"]["history"]
                for _ in range(5000):
                    msg = page.next_state()
                    v = msg["view"]
                    if v["hand_number"] >= 2 and v["phase"] != "over":
                        break
                    if v["phase"] == "over":
                        send(delta, type="next_hand")
                    elif my_turn(msg):
                        send(delta, type="action", version=msg["version"], action=pick(v["legal"], rng))
                # the second hand started over from its first event, and most states brought only
                # what was new
                assert page.starts[0] == 0 and page.starts.count(0) >= 2
                assert page.sent * 5 < page.full
                # asking again brings the whole history
                send(delta, type="sync")
                while (again := page.next_state())["change"] != "sync":
                    pass
                assert again["view"]["history_from"] == 0 and again["view"]["history"] == page.held
