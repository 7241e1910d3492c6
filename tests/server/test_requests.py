"""Request ids echoed in replies, and a game version that cosmetic changes leave alone."""

from __future__ import annotations

from .support import client, create_table, my_turn, new_identity, receive, receive_until, send


def test_a_move_delay_change_does_not_make_a_move_stale(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=6)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            state = receive_until(ws, my_turn)
            send(ws, type="settings", delay_ms=900)
            echo = receive_until(ws, lambda m: m.get("change") == "settings")
            assert echo["version"] == state["version"]  # the game did not change
            send(ws, type="action", version=state["version"], action={"type": "draw"})
            moved = receive(ws)
            assert moved["type"] == "state" and moved["change"] == "action"
            assert moved["version"] == state["version"] + 1


def test_replies_echo_the_request_id_to_the_sender_only(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="local", players=2, seed=4)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            first = receive(ws)
            send(ws, type="reveal", seat=first["table"]["handoff"], request=1)
            revealed = receive(ws)
            assert revealed["change"] == "reveal" and revealed["request"] == 1
            v = revealed["version"]
            send(ws, type="validate", version=v, action={"type": "draw"}, request="v-2")
            assert receive(ws)["request"] == "v-2"
            send(ws, type="suggest", version=v, request=3)
            assert receive(ws)["request"] == 3
            send(ws, type="action", version=v + 9, action={"type": "draw"}, request=4)
            refused = receive(ws)
            assert refused["code"] == "stale_version" and refused["request"] == 4
            send(ws, type="sync")
            assert "request" not in receive(ws)
            send(ws, type="sync", request={"no": 1})
            assert receive(ws)["code"] == "bad_message"
            new_identity(c)
            with c.websocket_connect(f"/ws/tables/{tid}") as watcher:
                receive(watcher)
                send(ws, type="action", version=v, action={"type": "draw"}, request=5)
                assert receive(ws)["request"] == 5
                seen = receive(watcher)
                assert seen["change"] == "action" and "request" not in seen
