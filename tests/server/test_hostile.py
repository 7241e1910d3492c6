"""Malformed and hostile messages get coded errors, and the table carries on unharmed."""

from __future__ import annotations

import json

import pytest
from starlette.websockets import WebSocketDisconnect

from canasta.server.table import Table

from .support import client, create_table, my_turn, receive, receive_until, send


def _nested(levels: int) -> str:
    """JSON text of a string inside ``levels`` nested lists."""
    return "[" * levels + '"x"' + "]" * levels

def test_hostile_messages_get_coded_errors_and_the_table_survives(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=11)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            state = receive_until(ws, my_turn)
            v = state["version"]
            assert state["view"]["phase"] == "draw"
            hand = state["view"]["hand"]
            huge = json.dumps(
                {"type": "action", "version": v, "action": {"type": "draw"}, "pad": "x" * 70_000}
            )
            cases: list[tuple[str | bytes, str]] = [
                ("{{{ not json", "bad_message"),
                ("[1, 2, 3]", "bad_message"),
                ('"action"', "bad_message"),
                ("[" * 8_000 + "]" * 8_000, "bad_message"),  # deep, under the size limit
                (b"\xff\xfe\x00garbage", "bad_message"),
                (huge, "message_too_large"),
                (huge.encode(), "message_too_large"),
                ("é" * 40_000, "message_too_large"),
                (json.dumps({"type": "dance"}).encode("utf-16"), "unknown_type"),
                ('{"type": "dance"}', "unknown_type"),
                ('{"type": 7}', "unknown_type"),
                ('{"no_type": true}', "unknown_type"),
                (json.dumps({"type": "action", "action": {"type": "draw"}}), "bad_message"),
                (
                    json.dumps({"type": "action", "version": "0", "action": {"type": "draw"}}),
                    "bad_message",
                ),
                (
                    json.dumps({"type": "action", "version": v - 1, "action": {"type": "draw"}}),
                    "stale_version",
                ),
                (
                    json.dumps({"type": "action", "version": v + 5, "action": {"type": "draw"}}),
                    "stale_version",
                ),
                (
                    json.dumps(
                        {"type": "action", "version": v, "seat": 1, "action": {"type": "draw"}}
                    ),
                    "wrong_seat",
                ),
                (json.dumps({"type": "action", "version": v}), "bad_message"),
                (
                    json.dumps(
                        {
                            "type": "action",
                            "version": v,
                            "action": {"type": "discard", "card": hand[0]},
                        }
                    ),
                    "must_draw_first",
                ),
                (
                    json.dumps({"type": "validate", "version": v - 1, "action": {"type": "draw"}}),
                    "stale_version",
                ),
                (json.dumps({"type": "suggest", "version": v, "seat": 3}), "wrong_seat"),
                (json.dumps({"type": "undo", "version": v}), "undo_unavailable"),
                (json.dumps({"type": "reveal", "seat": 0}), "wrong_mode"),
                (json.dumps({"type": "next_hand"}), "hand_in_progress"),
                (json.dumps({"type": "new_match"}), "match_in_progress"),
                (json.dumps({"type": "settings", "delay_ms": -5}), "bad_message"),
                (json.dumps({"type": "settings", "delay_ms": "fast"}), "bad_message"),
                # what no reply could echo (an unpaired surrogate has no UTF-8), nor JSON hold
                ('{"type": "sync", "request": "\\ud800"}', "bad_message"),
                (json.dumps({"type": "action", "version": v, "seat": "\udfff"}), "bad_message"),
                (
                    json.dumps(
                        {"type": "action", "version": v, "action": {"type": "discard", "card": "\ud800"}}
                    ),
                    "bad_message",
                ),
                ('{"type": "action", "version": NaN, "action": {"type": "draw"}}', "bad_message"),
                ('{"type": "sync", "request": 1e999}', "bad_message"),
                # nested past 32 levels, where an error would print the value (1,000 levels
                # once reached Python's repr limit there: internal_error and a traceback)
                ('{"type": ' + _nested(1_000) + "}", "bad_message"),
                ('{"type": ' + _nested(32) + "}", "bad_message"),
                (f'{{"type": "undo", "version": {v}, "seat": ' + _nested(1_000) + "}", "bad_message"),
                (
                    f'{{"type": "action", "version": {v}, "action": {{"type": ' + _nested(1_000) + "}}",
                    "bad_message",
                ),
                (
                    f'{{"type": "validate", "version": {v}, "action": {{"type": "discard", "card": '
                    + _nested(1_000) + "}}",
                    "bad_message",
                ),
                (
                    f'{{"type": "validate", "version": {v}, "action": {{"type": "meld", "groups": '
                    '[{"rank": ' + _nested(990) + ', "cards": []}]}}',
                    "bad_message",
                ),
                # 32 levels in all is within the limit: the field's own error
                ('{"type": ' + _nested(31) + "}", "unknown_type"),
            ]
            for raw, code in cases:
                if isinstance(raw, bytes):
                    ws.send_bytes(raw)
                else:
                    ws.send_text(raw)
                msg = receive(ws)
                assert msg["type"] == "error", (raw[:60], msg)
                assert msg["code"] == code, (raw[:60], msg)
                assert msg["message"] and msg["version"] == v

            for bad_action in (
                {"type": "fly"},
                {"type": "discard", "card": "ZZ"},
                "fly away",
                42,
                {"type": "take", "groups": 5},
            ):
                send(ws, type="action", version=v, action=bad_action)
                msg = receive(ws)
                assert msg["type"] == "error" and msg["code"] not in ("", None), msg

            send(ws, type="sync")
            again = receive(ws)
            assert (
                again["type"] == "state"
                and again["version"] == v
                and again["view"] == state["view"]
            )

            send(ws, type="action", version=v, action={"type": "draw"})
            after = receive(ws)
            assert after["type"] == "state" and after["version"] == v + 1
            assert after["view"]["phase"] == "play" and len(after["view"]["hand"]) == len(hand) + 2


def test_not_your_turn_while_the_computer_is_to_act(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="classic", seed=3)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            state = receive_until(ws, my_turn)
            send(ws, type="pause")
            paused = receive(ws)
            assert paused["table"]["paused"] and paused["change"] == "pause"
            send(ws, type="action", version=paused["version"], action={"type": "draw"})
            drawn = receive(ws)
            card = drawn["view"]["hand"][0]
            send(
                ws,
                type="action",
                version=drawn["version"],
                action={"type": "discard", "card": card},
            )
            discarded = receive(ws)
            assert discarded["view"]["turn"] == 1
            send(ws, type="action", version=discarded["version"], action={"type": "draw"})
            err = receive(ws)
            assert err["type"] == "error" and err["code"] == "not_your_turn"
            send(ws, type="sync")
            still = receive(ws)
            assert still["version"] == discarded["version"] and still["view"]["turn"] == 1
            send(ws, type="resume")
            back = receive_until(ws, my_turn)
            assert back["version"] > still["version"] + 1
            assert back["view"]["hand_counts"][0] == state["view"]["hand_counts"][0]


def test_unknown_table_is_refused(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        with c.websocket_connect("/ws/tables/nope") as ws:
            msg = receive(ws)
            assert msg == {"type": "error", "code": "table_not_found", "message": "no such table"}
            with pytest.raises(WebSocketDisconnect):
                ws.receive_text()


def test_a_server_fault_is_answered_and_the_table_carries_on(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(self: Table, conn: object, msg: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(Table, "_on_suggest", broken)
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=1)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            state = receive_until(ws, my_turn)
            send(ws, type="suggest", version=state["version"])
            err = receive(ws)
            assert err["type"] == "error" and err["code"] == "internal_error"
            send(ws, type="action", version=state["version"], action={"type": "draw"})
            assert receive(ws)["version"] == state["version"] + 1
