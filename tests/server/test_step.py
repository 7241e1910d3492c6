"""Continue CPU (``step``) and the hands shown once a hand is over, through the websocket."""

from __future__ import annotations

import dataclasses
import random
import time

from starlette.testclient import WebSocketTestSession

from .support import (
    TEST_CONFIG,
    Message,
    client,
    create_table,
    my_turn,
    new_identity,
    play_to_the_end,
    receive,
    receive_until,
    send,
)


def paused_on_a_computer_turn(ws: WebSocketTestSession) -> Message:
    """Draw and discard, then pause before the next (computer) seat moves; the paused state."""
    msg = receive_until(ws, my_turn)
    send(ws, type="action", version=msg["version"], action={"type": "draw"})
    msg = receive(ws)
    card = next(a for a in msg["view"]["legal"] if a["type"] == "discard")["card"]
    send(ws, type="action", version=msg["version"], action={"type": "discard", "card": card})
    send(ws, type="pause")
    discarded = receive(ws)
    paused = receive(ws)
    assert paused["change"] == "pause" and discarded["view"]["turn"] == 1
    return paused


def test_step_plays_exactly_one_computer_action_while_paused(sqlite_url: str) -> None:
    with client(sqlite_url, delay_ms=2000) as c:
        tid = create_table(c, mode="computer", preset="classic", seed=11)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            paused = paused_on_a_computer_turn(ws)
            seen = len(paused["view"]["history"])
            send(ws, type="step", version=paused["version"], request=7)
            stepped = receive(ws)
            assert stepped["type"] == "state" and stepped["change"] == "action"
            assert stepped["request"] == 7
            assert stepped["version"] == paused["version"] + 1
            assert stepped["table"]["paused"]
            history = stepped["view"]["history"]
            assert len(history) == seen + 1 and history[-1]["seat"] == 1
            assert history[-1]["action"]["type"] in ("draw", "take")
            # nothing more happens by itself: the table is still paused
            time.sleep(2.5)
            send(ws, type="sync")
            still = receive(ws)
            assert still["version"] == stepped["version"]
            assert len(still["view"]["history"]) == seen + 1
            # each press is one more action, of whichever computer seat is to act
            send(ws, type="step", version=still["version"])
            again = receive(ws)
            assert len(again["view"]["history"]) == seen + 2
            assert again["version"] == still["version"] + 1


def test_step_is_refused_unless_paused_on_a_computer_turn(sqlite_url: str) -> None:
    with client(sqlite_url, delay_ms=2000) as c:
        tid = create_table(c, mode="computer", preset="classic", seed=11)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            msg = receive_until(ws, my_turn)
            send(ws, type="pause")
            paused = receive(ws)
            send(ws, type="step", version=paused["version"])
            err = receive(ws)
            assert err["type"] == "error" and err["code"] == "not_computer_turn"
            send(ws, type="resume")
            resumed = receive(ws)
            send(ws, type="action", version=resumed["version"], action={"type": "draw"})
            drew = receive(ws)
            card = drew["view"]["hand"][0]
            send(ws, type="action", version=drew["version"], action={"type": "discard", "card": card})
            discarded = receive(ws)
            send(ws, type="step", version=discarded["version"])
            err = receive(ws)
            assert err["type"] == "error" and err["code"] == "not_paused"
            send(ws, type="pause")
            paused = receive(ws)
            send(ws, type="step", version=paused["version"] - 1)
            err = receive(ws)
            assert err["code"] == "stale_version"
            send(ws, type="step")
            assert receive(ws)["code"] == "bad_message"
        assert msg["table"]["seats"][1]["kind"] == "computer"
        new_identity(c)  # another browser: a spectator, who may not step
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            state = receive(ws)
            send(ws, type="step", version=state["version"])
            assert receive(ws)["code"] == "not_your_table"
        local = create_table(c, mode="local", players=2, seed=3)
        with c.websocket_connect(f"/ws/tables/{local}") as ws:
            state = receive(ws)
            send(ws, type="step", version=state["version"])
            assert receive(ws)["code"] == "wrong_mode"


def test_step_is_rate_limited(sqlite_url: str) -> None:
    config = dataclasses.replace(TEST_CONFIG, step_rate=0.01, step_burst=1)
    with client(sqlite_url, delay_ms=2000, config=config) as c:
        tid = create_table(c, mode="computer", preset="classic", seed=11)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            paused = paused_on_a_computer_turn(ws)
            send(ws, type="step", version=paused["version"])
            stepped = receive(ws)
            assert stepped["change"] == "action"
            send(ws, type="step", version=stepped["version"])
            err = receive(ws)
            assert err["type"] == "error" and err["code"] == "rate_limited"


def test_the_cards_left_in_every_hand_are_shown_once_the_hand_is_over(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player", rules={"target": "one_hand"}, seed=5)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            def hidden_while_played(m: Message) -> None:
                if m["type"] == "state" and m["view"]["phase"] != "over":
                    assert m["view"]["hands_left"] is None

            last = play_to_the_end(ws, random.Random(1), hidden_while_played)
        view = last["view"]
        assert view["phase"] == "over"
        left = view["hands_left"]
        assert left[0] == view["hand"]
        assert [len(h) for h in left] == view["hand_counts"]
        # with the hands shown, every one of the 108 cards is accounted for
        melded = sum(len(m["cards"]) for ms in view["melds"] for m in ms)
        threes = sum(len(r) for r in view["red_threes"])
        shown = sum(len(h) for h in left) + melded + threes + view["pile"]["size"]
        assert shown + view["stock_size"] == 108
        new_identity(c)  # a spectator sees them too, once the hand is over
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            seen = receive(ws)
            assert seen["view"]["seat"] is None and seen["view"]["hand"] is None
            assert seen["view"]["hands_left"] == left
