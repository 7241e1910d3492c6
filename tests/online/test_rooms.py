"""Private rooms: by code, the host choosing partners and adding computer players, expiry
(docs/protocol.md, "Lobby")."""

from __future__ import annotations

import dataclasses
import json
import time

from tests.online.support import ONLINE_CONFIG, Browser, Socket, browsers, online_client


def _room(b: Browser, pred=lambda r: True):  # type: ignore[no-untyped-def]
    msg = b.lobby_until("room", lambda m: m["room"] is not None and pred(m["room"]))
    return msg["room"]


def _kinds(room) -> list[str | None]:  # type: ignore[no-untyped-def]
    return [None if s is None else s.get("name", s["kind"]) for s in room["seats"]]


def test_a_private_room_by_code(db_url: str) -> None:
    with online_client(db_url) as c, browsers(c, 4) as (host, bea, cid, dan):
        for b in (host, bea, cid, dan):
            b.open_lobby()
        seen: list[str] = []

        def record(b: Browser, pred=lambda r: True):  # type: ignore[no-untyped-def]
            room = _room(b, pred)
            seen.append(json.dumps(room))
            return room

        host.send(host.lobby, type="room_create", preset="classic", target=5000)  # type: ignore[arg-type]
        room = record(host)
        code = room["code"]
        assert len(code) == 6 and room["host"] is True and room["players"] == 4
        assert room["seats"][0] == {"kind": "human", "name": "Member 1", "host": True, "you": True}
        assert room["seats"][1:] == [None, None, None] and room["full"] is False

        # bad codes
        assert bea.lobby_error(type="room_join", code=123456) == "bad_code"
        assert bea.lobby_error(type="room_join", code="ZZZZZZ") == "room_not_found"
        assert bea.lobby_error(type="room_join") == "bad_code"

        bea.send(bea.lobby, type="room_join", code=code.lower())  # type: ignore[arg-type]
        room = record(bea, lambda r: r["seats"][1] is not None)
        assert room["host"] is False and room["seats"][1]["you"] is True
        assert room["seats"][0]["you"] is False and room["seats"][0]["host"] is True
        record(host, lambda r: r["seats"][1] is not None)

        # the guest is not the host
        for msg in (
            {"type": "room_move", "from": 0, "to": 1},
            {"type": "room_bot", "seat": 3, "level": "normal"},
            {"type": "room_clear", "seat": 0},
            {"type": "room_start"},
        ):
            assert bea.lobby_error(**msg) == "not_host"
        assert bea.lobby_error(type="queue_join", preset="classic", target=5000) == "in_room"
        assert bea.lobby_error(type="room_create", preset="classic", target=5000) == "in_room"
        assert host.lobby_error(type="room_start") == "room_not_full"

        # the host makes Bea their partner (seats 0 and 2)
        host.send(host.lobby, **{"type": "room_move", "from": 1, "to": 2})  # type: ignore[arg-type]
        room = record(host, lambda r: r["seats"][2] is not None)
        assert _kinds(room) == ["Member 1", None, "Member 2", None]
        assert record(bea, lambda r: r["seats"][2] is not None)["seats"][2]["you"] is True

        # a computer player, and clearing it
        assert host.lobby_error(type="room_bot", seat=1, level="genius") == "bad_level"
        assert host.lobby_error(type="room_bot", seat=7, level="normal") == "bad_seat"
        assert host.lobby_error(type="room_bot", seat=2, level="normal") == "seat_taken"
        host.send(host.lobby, type="room_bot", seat=1, level="expert")  # type: ignore[arg-type]
        room = record(host, lambda r: r["seats"][1] is not None)
        assert room["seats"][1] == {"kind": "computer", "level": "expert"}
        host.send(host.lobby, type="room_clear", seat=1)  # type: ignore[arg-type]
        room = record(host, lambda r: r["seats"][1] is None)
        assert host.lobby_error(type="room_clear", seat=1) == "seat_empty"
        assert host.lobby_error(type="room_clear", seat=0) == "seat_is_host"

        # Cid takes the first empty seat; a computer fills the last one; Dan finds it full
        cid.send(cid.lobby, type="room_join", code=code)  # type: ignore[arg-type]
        room = record(cid, lambda r: r["seats"][1] is not None)
        assert room["seats"][1]["you"] is True
        host.send(host.lobby, type="room_bot", seat=3, level="beginner")  # type: ignore[arg-type]
        room = record(host, lambda r: r["full"])
        assert _kinds(room) == ["Member 1", "Member 3", "Member 2", "computer"]
        assert dan.lobby_error(type="room_join", code=code) == "room_full"

        # no message about the room carries an account id
        for text in seen:
            for b in (host, bea, cid, dan):
                assert b.account["id"] not in text
        snapshot = host.lobby_ask(type="sync")
        assert snapshot["type"] == "lobby" and snapshot["room"]["code"] == code
        for b in (host, bea, cid, dan):
            assert b.account["id"] not in json.dumps(snapshot)

        host.send(host.lobby, type="room_start")  # type: ignore[arg-type]
        tables = {b.lobby_until("match")["table"] for b in (host, bea, cid)}
        assert len(tables) == 1
        table = tables.pop()
        for b, seat in ((host, 0), (cid, 1), (bea, 2)):
            s = Socket(b.socket(f"/ws/tables/{table}"))
            state = s.until(lambda m: m["type"] == "state")
            assert state["table"]["seat"] == seat
            assert state["view"]["hand"] is not None
            on = state["table"]["online"]
            assert on["public"] is False and on["room"] == code
            names = [x["name"] for x in state["table"]["seats"]]
            assert names[:3] == ["Member 1", "Member 3", "Member 2"]
            assert state["table"]["seats"][3]["kind"] == "computer"
            assert state["table"]["seats"][3]["level"] == "beginner"
        # the room is gone; its members are in a match
        assert dan.lobby_error(type="room_join", code=code) == "room_not_found"
        assert host.lobby_error(type="room_create", preset="classic", target=5000) == "in_match"


def test_the_host_removes_a_guest_and_leaving_closes_the_room(db_url: str) -> None:
    with online_client(db_url) as c, browsers(c, 2) as (host, guest):
        host.open_lobby()
        guest.open_lobby()
        host.send(host.lobby, type="room_create", preset="two-player", target="one_hand")  # type: ignore[arg-type]
        code = _room(host)["code"]
        guest.send(guest.lobby, type="room_join", code=code)  # type: ignore[arg-type]
        assert _room(guest)["target"] == "one_hand"
        host.send(host.lobby, type="room_clear", seat=1)  # type: ignore[arg-type]
        closed = guest.lobby_until("room", lambda m: m["room"] is None)
        assert closed["closed"] == "removed"
        guest.send(guest.lobby, type="room_join", code=code)  # type: ignore[arg-type]
        _room(guest)
        guest.send(guest.lobby, type="room_leave")  # type: ignore[arg-type]
        assert guest.lobby_until("room", lambda m: m["room"] is None)["closed"] == "left"
        assert guest.lobby_error(type="room_leave") == "not_in_room"
        guest.send(guest.lobby, type="room_join", code=code)  # type: ignore[arg-type]
        _room(guest)
        host.send(host.lobby, type="room_leave")  # type: ignore[arg-type]
        assert guest.lobby_until("room", lambda m: m["room"] is None)["closed"] == "host_left"
        assert guest.lobby_error(type="room_join", code=code) == "room_not_found"


def test_a_room_nobody_starts_expires(db_url: str) -> None:
    config = dataclasses.replace(ONLINE_CONFIG, room_seconds=0.3)
    with online_client(db_url, config) as c, browsers(c, 2) as (host, late):
        host.open_lobby()
        late.open_lobby()
        host.send(host.lobby, type="room_create", preset="classic", target=2500)  # type: ignore[arg-type]
        code = _room(host)["code"]
        closed = host.lobby_until("room", lambda m: m["room"] is None)
        assert closed["closed"] == "expired"
        assert late.lobby_error(type="room_join", code=code) == "room_not_found"
        # the host is free again
        host.send(host.lobby, type="room_create", preset="classic", target=2500)  # type: ignore[arg-type]
        assert _room(host)["code"] != code


def test_a_room_takes_house_rules_of_r2_checked_by_the_core(db_url: str) -> None:
    with online_client(db_url) as c, browsers(c, 1) as (host,):
        host.open_lobby()
        assert host.lobby_error(type="room_create", preset="classic", rules={"nonsense": 1}) == "unknown_setting"
        assert (
            host.lobby_error(type="room_create", preset="classic", rules={"ask_partner": "yes"})
            == "bad_setting_ask_partner"
        )
        assert host.lobby_error(type="room_create", preset="classic", rules=[1]) == "bad_rules"
        host.send(host.lobby, type="room_create", preset="classic", rules={"ask_partner": True})  # type: ignore[arg-type]
        room = _room(host)
        assert room["rules"] == {"ask_partner": True}
        for seat in (1, 2, 3):
            host.send(host.lobby, type="room_bot", seat=seat, level="beginner")  # type: ignore[arg-type]
        host.lobby_until("room", lambda m: m["room"] is not None and m["room"]["full"])
        host.send(host.lobby, type="room_start")  # type: ignore[arg-type]
        table = host.lobby_until("match", lambda m: True)["table"]
        ws = host.socket(f"/ws/tables/{table}")
        state = host.until(ws, lambda m: m["type"] == "state")
        assert state["view"]["settings"]["ask_partner"] is True


def test_starting_rooms_counts_against_the_new_table_limits(sqlite_url: str) -> None:
    """A room's start makes a table: it counts against the account's (and the address's) new
    tables as ``POST /api/tables`` does, so rooms with computer players started and left in a
    loop cannot fill the database (docs/protocol.md, limits)."""
    config = dataclasses.replace(ONLINE_CONFIG, tables_per_minute=2)
    with online_client(sqlite_url, config) as c, browsers(c, 1) as (host,):
        host.open_lobby()
        for k in range(3):
            host.send(host.lobby, type="room_create", preset="two-player", target="one_hand")  # type: ignore[arg-type]
            _room(host)
            host.send(host.lobby, type="room_bot", seat=1, level="normal")  # type: ignore[arg-type]
            _room(host, lambda r: r["full"])
            if k == 2:
                refused = host.lobby_ask(type="room_start")
                assert refused["type"] == "error" and refused["code"] == "rate_limited"
                assert host.lobby_ask(type="sync")["room"] is not None  # the room stays
                break
            host.send(host.lobby, type="room_start")  # type: ignore[arg-type]
            table = host.lobby_until("match")["table"]
            seat = Socket(host.socket(f"/ws/tables/{table}"))
            seat.until(lambda m: m["type"] == "state")
            assert seat.ask(type="leave")["change"] == "leave"


def test_rooms_from_one_network_are_limited(db_url: str) -> None:
    """Guests are free, and each may host a room: the sessions of one client address host at
    most ``rooms_per_address`` rooms at once, so one machine cannot fill the server's rooms."""
    config = dataclasses.replace(ONLINE_CONFIG, rooms_per_address=2)
    with online_client(db_url, config) as c, browsers(c, 3) as (a, b, third):
        for host in (a, b):
            host.open_lobby()
            host.send(host.lobby, type="room_create", preset="two-player", target=2500)  # type: ignore[arg-type]
            _room(host)
        third.open_lobby()
        assert third.lobby_error(type="room_create", preset="two-player", target=2500) == "too_many_rooms"
        a.send(a.lobby, type="room_leave")  # type: ignore[arg-type]
        assert a.lobby_until("room", lambda m: m["room"] is None)["closed"] == "host_left"
        third.send(third.lobby, type="room_create", preset="two-player", target=2500)  # type: ignore[arg-type]
        assert _room(third)["host"] is True


def test_joining_renews_a_room_only_up_to_its_lifetime(db_url: str) -> None:
    """A player joining renews the room's wait, but joining and leaving cannot keep a room
    open past ``room_lifetime_seconds`` from its making."""
    config = dataclasses.replace(ONLINE_CONFIG, room_seconds=1.0, room_lifetime_seconds=1.5)
    with online_client(db_url, config) as c, browsers(c, 2) as (host, guest):
        host.open_lobby()
        guest.open_lobby()
        host.send(host.lobby, type="room_create", preset="two-player", target=2500)  # type: ignore[arg-type]
        room = _room(host)
        code, first = room["code"], room["expires_ms"]
        time.sleep(0.8)  # a join now would renew it to 1.8 s from its making: past 1.5 s
        guest.send(guest.lobby, type="room_join", code=code)  # type: ignore[arg-type]
        renewed = _room(guest)["expires_ms"]
        assert first <= renewed <= first + 500 + 50  # renewed, but not past the lifetime
        guest.send(guest.lobby, type="room_leave")  # type: ignore[arg-type]
        guest.lobby_until("room", lambda m: m["room"] is None)
        closed = host.lobby_until("room", lambda m: m["room"] is None)
        assert closed["closed"] == "expired"
