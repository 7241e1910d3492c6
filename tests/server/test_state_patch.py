"""A page that keeps the last state (``?state=patch``) is sent only the view's and the table's
entries that changed, naming the state they apply to; put over what it holds, they give exactly
the state a socket that did not ask is sent whole, at every step of a match."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random
from typing import Any

from starlette.testclient import WebSocketTestSession

from .support import (
    TEST_CONFIG,
    Message,
    client,
    create_table,
    my_turn,
    over_held,
    pick,
    receive,
    send,
)
from .test_history_delta import state_at

#: what differs between two sockets' copies of one state (the message numbers, the history
#: each was sent as new events, a request id)
_OWN = {"sid", "base", "request"}
_HISTORY = {"history", "history_from"}


def comparable(msg: Message) -> dict[str, Any]:
    """The state ``msg`` stands for (a socket's first state, or one it asked for, has the
    version of the last change but says why it came instead of what changed)."""
    own = _OWN | ({"change", "event"} if msg["change"] in ("connect", "sync") else set())
    return {
        **{k: v for k, v in msg.items() if k not in own},
        "view": {k: v for k, v in msg["view"].items() if k not in _HISTORY},
    }


class PatchPage:
    """What a page keeping the state holds, as the page builds it."""

    def __init__(self, ws: WebSocketTestSession) -> None:
        self.ws = ws
        self.held: Message | None = None
        self.last: Message = {}  # the last message as it came
        self.patches = self.whole = 0
        self.patch_bytes = self.whole_bytes = 0

    def next_state(self) -> Message:
        while (msg := receive(self.ws))["type"] != "state":
            pass
        size, self.last = len(json.dumps(msg)), msg
        if "base" in msg:
            assert set(msg["view"]) >= _HISTORY  # the new events always come along
            msg = over_held(self.held, msg)
            self.patches += 1
            self.patch_bytes += size
        else:
            self.whole += 1
            self.whole_bytes += size
        self.held = msg
        return msg


def test_patches_rebuild_every_state_a_whole_socket_is_sent(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="classic", seed=3)
        url = f"/ws/tables/{tid}?history=delta&state=patch"
        with c.websocket_connect(f"/ws/tables/{tid}?history=delta") as whole:
            while receive(whole)["type"] != "state":  # joined first: sent every later state
                pass
            seen: dict[int, Message] = {}  # the whole socket's states, by version
            with c.websocket_connect(url) as ws1, contextlib.ExitStack() as later:
                page, rng = PatchPage(ws1), random.Random(4)
                whole_bytes = 0  # what the whole socket was sent for the states patched here
                for step in range(5000):
                    msg = page.next_state()
                    seen[msg["version"]] = expected = state_at(whole, msg["version"])
                    whole_bytes += len(json.dumps(expected)) if "base" in page.last else 0
                    if msg["change"] == "connect":
                        expected = {**expected, "change": "connect"}
                    else:  # one state built for the audience (one seat), patched or not
                        assert msg["sid"] == expected["sid"]
                    assert comparable(msg) == comparable(expected)
                    v = msg["view"]
                    if v["hand_number"] >= 2 and v["phase"] != "over":
                        break
                    if step == 40:  # a second page opens mid-hand: read below
                        late_ws = later.enter_context(c.websocket_connect(url))
                    if v["phase"] == "over":
                        send(ws1, type="next_hand")
                    elif my_turn(msg):
                        send(ws1, type="action", version=msg["version"], action=pick(v["legal"], rng))
                else:
                    raise AssertionError("the second hand never came")
                # after the first state every one was a patch, and a patch is a fraction of a state
                assert page.whole == 1 and page.patches > 50
                assert page.patch_bytes * 3 < whole_bytes
                # the second page started from a whole state and rebuilt every later one
                late = PatchPage(late_ws)
                while (other := late.next_state())["version"] < msg["version"]:
                    if other["change"] != "connect":  # the same state as the first page's
                        assert other["sid"] == seen[other["version"]]["sid"]
                        assert comparable(other) == comparable(seen[other["version"]])
                assert late.whole == 1 and late.patches > 10
                assert comparable(other) == comparable(msg)
                later.close()
                # asking again brings the whole state (the computer seats play on meanwhile)
                send(ws1, type="sync")
                while (again := page.next_state())["change"] != "sync":
                    assert "base" in page.last
                assert "base" not in page.last and page.whole == 2
                version = again["version"]
                expected = seen[version] if version in seen else state_at(whole, version)
                assert comparable(again) == comparable({**expected, "change": "sync"})
                # and the next state is a patch of the state the sync brought
                if my_turn(again):
                    legal = again["view"]["legal"]
                    send(ws1, type="action", version=again["version"], action=pick(legal, rng))
                page.next_state()
                assert page.last["base"] == again["sid"]


def test_one_patch_socket_sees_each_change_of_the_table_part(sqlite_url: str) -> None:
    """A table with one socket (the usual one) builds its table part once per change and
    sends it again as the same object while nothing in it changed, so a patch leaves it out:
    pausing, the computer's pace, a discard that may be taken back, the undo and resuming
    each still show in the state the page rebuilds, exactly as a whole state shows it."""
    config = dataclasses.replace(TEST_CONFIG, step_rate=1e6, step_burst=10**6)
    with client(sqlite_url, config=config) as c:
        tid = create_table(c, mode="computer", preset="classic", seed=3)
        with c.websocket_connect(f"/ws/tables/{tid}?history=delta&state=patch") as ws:
            page = PatchPage(ws)
            held = page.next_state()

            def after(**msg: Any) -> Message:
                send(ws, **msg)
                state = page.next_state()
                while state["change"] == "action" and msg["type"] != "action" and msg["type"] != "step":
                    state = page.next_state()  # a computer move that came first
                send(ws, type="sync")  # the whole state, built anew, to compare with
                while (whole := page.next_state())["change"] != "sync":
                    state = whole
                assert state["table"] == whole["table"] and state["version"] == whole["version"]
                assert comparable({**state, "change": "sync"})["view"] == comparable(whole)["view"]
                return whole

            held = after(type="pause")
            assert held["table"]["paused"] is True and held["table"]["can_undo"] is False
            held = after(type="settings", delay_ms=300)
            assert held["table"]["delay_ms"] == 300 and held["table"]["paused"] is True
            rng = random.Random(2)
            for _ in range(200):  # paused: the computer seats move one step at a time
                v = held["view"]
                if my_turn(held):
                    action = pick(v["legal"], rng)
                    held = after(type="action", version=held["version"], action=action)
                    if action["type"] == "discard" and held["view"]["phase"] != "over":
                        break
                else:
                    held = after(type="step", version=held["version"])
            else:
                raise AssertionError("no discard of ours came")
            # our discard, the next seat a computer that has not moved: it may be taken back
            assert held["table"]["can_undo"] is True and held["table"]["paused"] is True
            held = after(type="undo", version=held["version"])
            assert held["view"]["turn"] == 0 and held["table"]["paused"] is True
            held = after(type="resume")
            assert held["table"]["paused"] is False and held["table"]["delay_ms"] == 300
    assert page.patches >= 6
