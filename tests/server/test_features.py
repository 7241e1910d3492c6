"""Undo (R15), validating a staged plan, suggestions and pause, through the websocket."""

from __future__ import annotations

import json
import time
from collections import Counter
from typing import Any

from starlette.testclient import WebSocketTestSession

from .support import (
    Message,
    client,
    create_table,
    my_turn,
    receive,
    receive_until,
    send,
)

NATURAL_LOW = "4567"  # five-point ranks: three of them never reach an opening minimum


def discard_and_wait(ws: WebSocketTestSession, msg: Message) -> Message:
    """Discard some card and wait for the next decision of this seat."""
    discard = next(a for a in msg["view"]["legal"] if a["type"] == "discard")
    send(ws, type="action", version=msg["version"], action=discard)
    return receive_until(ws, my_turn)


def draw(ws: WebSocketTestSession, msg: Message) -> Message:
    assert msg["view"]["phase"] == "draw", msg["view"]["phase"]
    send(ws, type="action", version=msg["version"], action={"type": "draw"})
    out = receive(ws)
    assert out["type"] == "state" and out["view"]["phase"] == "play", out
    return out


def until_play_phase_with(ws: WebSocketTestSession, wanted: Any, turns: int = 40) -> Message | None:
    """Play draw/discard turns until, after a draw, ``wanted(state)`` holds (None: it never did)."""
    msg = receive_until(ws, my_turn)
    for _ in range(turns):
        if msg["view"]["phase"] != "draw":
            return None
        msg = draw(ws, msg)
        if wanted(msg):
            return msg
        msg = discard_and_wait(ws, msg)
    return None


def test_r15_undo_takes_back_this_turns_melds_but_never_the_draw(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=5)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            before = until_play_phase_with(
                ws, lambda m: any(a["type"] == "meld" for a in m["view"]["legal"])
            )
            assert before is not None, "the scenario never came up"
            assert before["table"]["can_undo"] is False
            meld = next(a for a in before["view"]["legal"] if a["type"] == "meld")
            send(ws, type="action", version=before["version"], action=meld)
            melded = receive(ws)
            assert melded["type"] == "state" and melded["table"]["can_undo"] is True
            assert len(melded["view"]["hand"]) < len(before["view"]["hand"])

            send(ws, type="undo", version=before["version"])
            assert receive(ws)["code"] == "stale_version"
            send(ws, type="undo", version=melded["version"])
            undone = receive(ws)
            assert undone["change"] == "undo" and undone["version"] == melded["version"] + 1
            assert undone["view"] == before["view"]
            assert undone["table"]["can_undo"] is False

            send(ws, type="undo", version=undone["version"])
            err = receive(ws)
            assert err["type"] == "error" and err["code"] == "undo_unavailable"
            send(ws, type="action", version=undone["version"], action=meld)
            assert receive(ws)["view"] == melded["view"]


def test_r15_undo_takes_back_the_discard_until_the_computer_acts(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="classic", seed=8)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            start = receive_until(ws, my_turn)
            send(ws, type="pause")
            played = draw(ws, receive(ws))
            card = played["view"]["hand"][-1]
            send(
                ws,
                type="action",
                version=played["version"],
                action={"type": "discard", "card": card},
            )
            discarded = receive(ws)
            assert discarded["view"]["turn"] == 1 and discarded["table"]["can_undo"] is True
            send(ws, type="undo", version=discarded["version"])
            undone = receive(ws)
            assert undone["view"] == played["view"] and undone["view"]["turn"] == 0
            # once the next seat has acted, the discard stays
            send(
                ws,
                type="action",
                version=undone["version"],
                action={"type": "discard", "card": card},
            )
            again = receive(ws)
            send(ws, type="resume")
            receive(ws)
            acted = receive(ws)
            assert acted["change"] == "action" and acted["event"]["seat"] == 1
            send(ws, type="undo", version=acted["version"])
            err = receive(ws)
            while err["type"] == "state":
                err = receive(ws)
            assert err["code"] in ("undo_unavailable", "stale_version")
            assert start["view"]["hand_number"] == again["view"]["hand_number"]


def test_r15_pass_and_play_never_undoes_a_discard(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="local", players=2)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            first = receive(ws)
            seat = first["table"]["handoff"]
            send(ws, type="action", version=first["version"], action={"type": "draw"})
            assert receive(ws)["code"] == "hidden_until_reveal"
            send(ws, type="reveal", seat=1 - seat)
            assert receive(ws)["code"] == "wrong_seat"
            for odd in (float(seat), bool(seat), str(seat)):  # the seat's number, but not an integer
                send(ws, type="reveal", seat=odd)
                assert receive(ws)["code"] == "bad_message"
            send(ws, type="reveal", seat=seat)
            shown = receive(ws)
            assert shown["view"]["seat"] == seat and shown["view"]["hand"] is not None
            played = draw(ws, shown)
            send(
                ws,
                type="action",
                version=played["version"],
                action={"type": "discard", "card": played["view"]["hand"][0]},
            )
            passed = receive(ws)
            assert passed["table"]["handoff"] == 1 - seat and passed["view"]["hand"] is None
            assert passed["table"]["can_undo"] is False
            send(ws, type="undo", version=passed["version"])
            assert receive(ws)["code"] == "hidden_until_reveal"
            send(ws, type="reveal", seat=1 - seat)
            other = receive(ws)
            send(ws, type="undo", version=other["version"])
            assert receive(ws)["code"] == "undo_unavailable"


def _low_triple(hand: list[str]) -> list[str] | None:
    counts = Counter(card[0] for card in hand)
    for rank in NATURAL_LOW:
        if counts[rank] >= 3:
            return [card for card in hand if card[0] == rank][:3]
    return None


def test_validate_answers_with_the_opening_minimum_numbers(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=2)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            msg = until_play_phase_with(
                ws,
                lambda m: (
                    not m["view"]["opened"][m["view"]["sides"][0]]
                    and _low_triple(m["view"]["hand"])
                ),
            )
            assert msg is not None, "the scenario never came up"
            cards = _low_triple(msg["view"]["hand"])
            assert cards is not None
            plan = {"type": "meld", "groups": [{"rank": cards[0][0], "cards": cards}]}
            send(ws, type="validate", version=msg["version"], action=plan)
            answer = receive(ws)
            assert answer["type"] == "validation" and answer["legal"] is False
            assert answer["code"] == "opening_minimum_not_met"
            assert answer["count"] == 15 and answer["minimum"] == 50
            assert answer["message"] == "your melds count 15; your side needs 50 to open"

            # Any staged plan gets its running count against the minimum, whatever else is wrong.
            short = {"type": "meld", "groups": [{"rank": cards[0][0], "cards": cards[:2]}]}
            send(ws, type="validate", version=msg["version"], action=short)
            answer = receive(ws)
            assert answer["code"] == "meld_too_small"
            assert answer["count"] == 10 and answer["minimum"] == 50

            send(
                ws,
                type="validate",
                version=msg["version"],
                action={"type": "discard", "card": "JK"},
            )
            wrong = receive(ws)
            assert wrong["legal"] is False and wrong["code"]
            if "JK" not in msg["view"]["hand"]:
                assert wrong["code"] == "card_not_in_hand"

            send(ws, type="action", version=msg["version"], action=plan)
            refused = receive(ws)
            assert refused["type"] == "error" and refused["code"] == "opening_minimum_not_met"
            assert (refused["count"], refused["minimum"], refused["section"]) == (15, 50, "R6")

            legal = msg["view"]["legal"][0]
            send(ws, type="validate", version=msg["version"], action=legal)
            ok = receive(ws)
            assert ok["legal"] is True and ok["code"] is None and ok["minimum"] == 50

            send(ws, type="sync")
            same = receive(ws)
            assert same["version"] == msg["version"] and same["view"] == msg["view"]


def test_r15_every_decision_gets_a_legal_suggestion_with_a_reason(sqlite_url: str) -> None:
    """Draw or take, melds, discards: each decision has a suggestion, legal, with a reason code."""
    seen: Counter[str] = Counter()
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=4)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            msg = receive_until(ws, my_turn)
            for _ in range(30):
                if msg["view"]["phase"] == "over":
                    break
                send(ws, type="suggest", version=msg["version"])
                s = receive(ws)
                assert s["type"] == "suggestion" and s["action"] is not None, s
                assert s["message"] != "no legal suggestion"
                reason = s["reason"]
                assert isinstance(reason["code"], str) and " " not in reason["code"]
                json.dumps(reason)
                seen[s["kind"]] += 1
                phase = msg["view"]["phase"]
                if phase == "draw":
                    assert s["action"]["type"] in ("draw", "take")
                    assert s["kind"] == ("draw" if s["action"]["type"] == "draw" else "pile_pickup")
                else:
                    assert s["action"]["type"] in ("meld", "discard")
                send(ws, type="validate", version=msg["version"], action=s["action"])
                assert receive(ws)["legal"] is True
                # play the suggestion: the next decision is this seat's again, or the next turn's
                send(ws, type="action", version=msg["version"], action=s["action"])
                msg = receive_until(ws, my_turn)
    assert seen["draw"] + seen["pile_pickup"] >= 3 and seen["discard"] >= 3, seen


def test_a_validation_gives_the_cores_details_and_why_the_pile_cannot_be_taken(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=4)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            msg = receive_until(ws, my_turn)
            view = msg["view"]
            assert view["phase"] == "draw"
            top = view["pile"]["top"]
            bare = {"type": "take", "groups": [{"rank": top[0], "cards": []}]}
            send(ws, type="validate", version=msg["version"], action=bare)
            answer = receive(ws)
            assert answer["type"] == "validation" and answer["legal"] is False
            assert isinstance(answer["details"], dict)
            can_take = any(a["type"] == "take" for a in view["legal"])
            if can_take:
                assert answer["take"] is None
            else:
                why = answer["take"]
                assert why["code"] and why["section"] in ("R6", "R8", "R10") and why["message"]
                if why["code"] == "pile_frozen_needs_natural_pair":
                    mine = sum(1 for card in view["hand"] if card[0] == top[0])
                    assert why["details"]["naturals"] == mine and why["details"]["needed"] == 2
            send(ws, type="validate", version=msg["version"], action={"type": "draw"})
            ok = receive(ws)
            assert ok["legal"] is True and ok["details"] == {} and "take" not in ok

def test_an_action_message_round_trips_through_json(sqlite_url: str) -> None:
    """Text-form actions from the core's notation are accepted too."""
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="classic", seed=1)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            msg = receive_until(ws, my_turn)
            ws.send_text(
                json.dumps({"type": "action", "version": msg["version"], "action": "draw"})
            )
            assert receive(ws)["view"]["phase"] == "play"


def test_pause_and_resume_are_rate_limited(sqlite_url: str) -> None:
    """Each pause or resume is a saved change sent to every socket: a burst of 10, then
    ``rate_limited`` (2 a second after it), and the table stays as it was."""
    with client(sqlite_url, delay_ms=300) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=6)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            start = receive_until(ws, my_turn)
            changes = []
            for k in range(11):
                send(ws, type="resume" if k % 2 else "pause")
                changes.append(receive(ws))
            assert [m.get("change") for m in changes[:10]] == ["pause", "resume"] * 5
            assert changes[10]["type"] == "error" and changes[10]["code"] == "rate_limited"
            assert changes[10]["version"] == start["version"] + 10
            send(ws, type="sync")
            assert not receive(ws)["table"]["paused"]


def test_computer_delay_pause_and_resume(sqlite_url: str) -> None:
    with client(sqlite_url, delay_ms=300) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=6)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            msg = receive_until(ws, my_turn)
            assert msg["table"]["delay_ms"] == 300
            send(ws, type="settings", delay_ms=300)  # unchanged: nothing happens
            msg = draw(ws, msg)
            send(
                ws,
                type="action",
                version=msg["version"],
                action={"type": "discard", "card": msg["view"]["hand"][0]},
            )
            send(ws, type="pause")
            discarded = receive(ws)
            paused = receive(ws)
            assert discarded["view"]["turn"] == 1 and paused["change"] == "pause"
            assert paused["version"] == discarded["version"] + 1
            time.sleep(0.7)
            send(ws, type="sync")
            still = receive(ws)
            assert still["version"] == paused["version"] and still["view"]["turn"] == 1
            send(ws, type="settings", delay_ms=0)
            assert receive(ws)["table"]["delay_ms"] == 0
            send(ws, type="resume")
            assert receive(ws)["change"] == "resume"
            back = receive_until(ws, my_turn)
            assert back["view"]["turn"] == 0 and not back["table"]["paused"]
