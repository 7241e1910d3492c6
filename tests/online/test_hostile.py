"""What an online table and the lobby refuse (docs/protocol.md, "Online play", "Safety")."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from starlette.websockets import WebSocketDisconnect

from canasta.server.conn import CLOSE_TRY_AGAIN, Conn
from canasta.server.lobby import SOCKETS_PER_SESSION, Lobby
from tests.online.support import (
    ONLINE_CONFIG,
    Socket,
    browsers,
    online_client,
    quick_match,
    seated,
)
from tests.server.support import create_table

EVIL_ORIGIN = "https://evil.example"


def test_an_online_table_refuses_what_its_sender_may_not_do(db_url: str) -> None:
    with online_client(db_url) as c, browsers(c, 3) as people:
        players, watcher = people[:2], people[2]
        table = quick_match(players, preset="two-player")
        seats = seated(players, table)
        spectator = Socket(watcher.socket(f"/ws/tables/{table}"))
        state = spectator.until(lambda m: m["type"] == "state")
        version = state["version"]
        turn = state["view"]["turn"]
        me, other = seats[turn], seats[1 - turn]
        me.until(lambda m: m["type"] == "state" and m["table"]["online"]["spectators"] == 1)
        assert me.state is not None
        legal = me.state["view"]["legal"]
        assert legal

        # a spectator acts for nobody; a player acts for their own seat only
        for kind in ("action", "validate", "chat", "back", "leave", "next_hand", "rematch"):
            msg = {"type": kind, "version": version, "action": legal[0], "phrase": "gg"}
            assert spectator.error(**msg) == "not_seated", kind
        assert spectator.ask(type="sync")["type"] == "state"
        assert (
            me.error(type="action", version=version, action=legal[0], seat=1 - turn) == "wrong_seat"
        )
        assert (
            me.error(type="validate", version=version, action=legal[0], seat=1 - turn)
            == "wrong_seat"
        )
        assert other.error(type="action", version=version, action=legal[0]) == "not_your_turn"
        assert (
            other.error(type="action", version=version, action=legal[0], seat=turn) == "wrong_seat"
        )
        # no undo, no suggestion, no pause online
        for kind in ("undo", "suggest", "pause", "resume", "step", "reveal", "settings", "new_match"):
            msg = {"type": kind, "version": version, "seat": turn, "delay_ms": 0}
            assert me.error(**msg) == "offline_only", kind
            assert spectator.error(**msg) == "offline_only", kind
        assert me.error(type="back") == "not_auto"
        assert me.error(type="chat", phrase="you are bad") == "bad_phrase"
        assert me.error(type="chat", phrase=["gg"]) == "bad_phrase"
        assert me.error(type="rematch") == "match_in_progress"
        assert me.error(type="next_hand") == "hand_in_progress"
        # nothing changed: the move is still open
        answer = me.ask(type="action", version=version, action=legal[0], seat=turn)
        assert answer["type"] == "state" and answer["version"] == version + 1


def test_online_commands_at_an_offline_table(db_url: str) -> None:
    with online_client(db_url) as c, browsers(c, 1) as (owner,):
        r = owner.request("POST", "/api/tables", json={"mode": "computer", "players": 2})
        assert r.status_code == 200, r.text
        s = Socket(owner.socket(f"/ws/tables/{r.json()['table']}"))
        s.until(lambda m: m["type"] == "state")
        for kind in ("back", "leave", "chat", "rematch"):
            assert s.error(type=kind, phrase="gg") == "online_only", kind
        assert create_table  # the offline helpers stay usable beside these


def test_one_queue_entry_per_session_and_no_queue_in_a_room_or_a_match(db_url: str) -> None:
    with online_client(db_url) as c, browsers(c, 4) as (a, b, d, e):
        a.open_lobby()
        a.send(a.lobby, type="queue_join", preset="classic", target=5000)  # type: ignore[arg-type]
        assert a.lobby_until("queued")["mine"]["preset"] == "classic"
        assert a.lobby_error(type="queue_join", preset="classic", target=5000) == "already_queued"
        assert (
            a.lobby_error(type="queue_join", preset="two-player", target=2500) == "already_queued"
        )
        assert a.lobby_error(type="room_create", preset="classic", target=5000) == "already_queued"
        # a second tab of the same session shares the entry
        second = a.socket("/ws/lobby")
        snap = a.until(second, lambda m: m["type"] == "lobby")
        assert snap["mine"] == {
            "preset": "classic",
            "target": 5000,
            "joined_ms": snap["mine"]["joined_ms"],
        }
        assert snap["queue"]["classic:5000"] == 1
        a.send(second, type="queue_join", preset="classic", target=5000, request=1)
        assert a.until(second, lambda m: m.get("request") == 1)["code"] == "already_queued"
        assert a.lobby_error(type="queue_join", preset="bicycle", target=5000) == "bad_preset"
        a.send(a.lobby, type="queue_leave")  # type: ignore[arg-type]
        assert a.lobby_until("queued")["mine"] is None
        assert a.lobby_error(type="queue_leave") == "not_queued"
        assert a.lobby_error(type="queue_join", preset="classic", target=1500) == "bad_target"
        assert a.lobby_error(type="queue_join", preset="classic", target=5000.0) == "bad_target"
        assert a.lobby_error(type="queue_join", preset="classic", target=True) == "bad_target"

        # in a room: no queue
        b.open_lobby()
        b.send(b.lobby, type="room_create", preset="two-player", target=5000)  # type: ignore[arg-type]
        b.lobby_until("room")
        assert b.lobby_error(type="queue_join", preset="two-player", target=5000) == "in_room"

        # in a match: no queue, no room, and the lobby says where to return
        table = quick_match([d, e], preset="two-player")
        answer = d.lobby_ask(type="queue_join", preset="two-player", target=5000)
        assert answer["code"] == "in_match" and answer["details"]["table"] == table
        assert d.lobby_error(type="room_create", preset="classic", target=5000) == "in_match"
        assert d.lobby_ask(type="sync")["current"] == table
        assert a.lobby_ask(type="sync")["current"] is None


def test_lobby_and_chat_rate_limits(db_url: str) -> None:
    config = dataclasses.replace(ONLINE_CONFIG, lobby_actions_per_minute=60, chat_per_minute=12)
    with online_client(db_url, config) as c, browsers(c, 2) as (a, b):
        a.open_lobby()
        for _ in range(60):
            assert a.lobby_error(type="queue_leave") == "not_queued"
        assert a.lobby_error(type="queue_leave") == "rate_limited"
        assert a.lobby_error(type="queue_join", preset="classic", target=5000) == "rate_limited"
        assert a.lobby_ask(type="sync")["type"] == "lobby"  # a snapshot is not limited
        # another session is not limited by this one
        b.open_lobby()
        assert b.lobby_error(type="queue_leave") == "not_queued"

    with online_client(db_url, config) as c, browsers(c, 2) as players:
        table = quick_match(players, preset="two-player")
        seats = seated(players, table)
        s = seats[0]
        for _ in range(12):
            assert s.ask(type="chat", phrase="hello")["type"] == "chat"
        assert s.error(type="chat", phrase="hello") == "rate_limited"
        assert seats[1].ask(type="chat", phrase="gg")["type"] == "chat"


def test_lobby_socket_origin_and_session(db_url: str) -> None:
    with online_client(db_url) as c, browsers(c, 1) as (a,):
        with pytest.raises(WebSocketDisconnect) as refused:
            a.socket("/ws/lobby", headers={"origin": EVIL_ORIGIN})
            a.until(a.lobby or a.socket("/ws/lobby"), lambda m: True)  # pragma: no cover
        assert refused.value.code == 4403
        with pytest.raises(WebSocketDisconnect) as refused:
            a.socket("/ws/lobby", headers={"origin": "null"})
        assert refused.value.code == 4403
        # the server's own origin is fine
        own = a.socket("/ws/lobby", headers={"origin": "http://testserver"})
        assert a.until(own, lambda m: True)["type"] == "lobby"
        # no session: refused with no_session
        c.cookies.clear()
        with c.websocket_connect("/ws/lobby") as ws:
            first = ws.receive_json()
            assert first["type"] == "error" and first["code"] == "no_session"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4401
        with c.websocket_connect(
            "/ws/lobby", headers={"cookie": "canasta_session=" + "x" * 40}
        ) as ws:
            assert ws.receive_json()["code"] == "no_session"


def test_the_lobby_refuses_a_message_nested_past_the_limit(db_url: str) -> None:
    """A field nested 1,000 levels deep is a bad message, not an internal error (the lobby
    once printed it into its 'unknown type' answer, which Python's repr cannot do)."""
    with online_client(db_url) as c, browsers(c, 1) as (a,):
        a.open_lobby()
        lobby = a.lobby
        assert lobby is not None
        for levels in (1_000, 32):
            lobby.send_text('{"type": ' + "[" * levels + '"x"' + "]" * levels + "}")
            answer = a.until(lobby, lambda m: m["type"] == "error")
            assert answer["code"] == "bad_message", answer
        lobby.send_text('{"type": ' + "[" * 31 + '"x"' + "]" * 31 + "}")
        assert a.until(lobby, lambda m: m["type"] == "error")["code"] == "unknown_type"
        assert a.lobby_ask(type="sync")["type"] == "lobby"


def test_lobby_sockets_opened_at_once_are_counted_as_they_join(db_url: str) -> None:
    """docs/protocol.md: 8 lobby sockets per session. Handshakes that all arrive while other
    players' requests hold the lobby were once all let in (each counted the sockets before
    waiting its turn); the lobby now counts as it adds a socket."""
    with online_client(db_url) as c, browsers(c, 1) as (a,):
        lobby: Lobby = c.app.state.lobby  # type: ignore[attr-defined]
        config = c.app.state.config  # type: ignore[attr-defined]

        async def at_once() -> list[bool]:
            conns = [Conn.with_limits(config, account=a.account["id"], owner=True) for _ in range(12)]
            async with lobby.lock:  # the lobby busy with someone else's request
                joins = [asyncio.ensure_future(lobby.join(conn, "A")) for conn in conns]
                await asyncio.sleep(0.01)
            joined = list(await asyncio.gather(*joins))
            for conn, ok in zip(conns, joined, strict=True):
                if ok:
                    await lobby.leave(conn)
            return joined

        assert c.portal is not None
        joined = c.portal.call(at_once)
        assert joined.count(True) == SOCKETS_PER_SESSION and joined.count(False) == 12 - SOCKETS_PER_SESSION
        # the sockets of the page itself are counted the same way
        sockets = [a.socket("/ws/lobby") for _ in range(SOCKETS_PER_SESSION)]
        for ws in sockets:
            assert a.until(ws, lambda m: True)["type"] == "lobby"
        ninth = a.socket("/ws/lobby")
        assert ninth.receive_json()["code"] == "too_many_sockets"
        with pytest.raises(WebSocketDisconnect) as closed:
            ninth.receive_json()
        assert closed.value.code == CLOSE_TRY_AGAIN
