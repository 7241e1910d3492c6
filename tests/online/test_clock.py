"""The move timer, auto-play, "I'm back", and disconnection (docs/protocol.md, "The move timer
and auto-play")."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

from tests.online.support import (
    ONLINE_CONFIG,
    Browser,
    Socket,
    browsers,
    online_client,
    online_of,
    play_hand,
)
from tests.server.support import pick


def _room_match(people: list[Browser], preset: str, target: Any, bots: list[int]) -> str:
    """A private room of ``people`` (the first hosts) with computers at ``bots``, started."""
    host = people[0]
    for b in people:
        b.open_lobby()
    host.send(host.lobby, type="room_create", preset=preset, target=target)  # type: ignore[arg-type]
    code = host.lobby_until("room")["room"]["code"]
    for b in people[1:]:
        b.send(b.lobby, type="room_join", code=code)  # type: ignore[arg-type]
        b.lobby_until("room")
    for seat in bots:
        host.send(host.lobby, type="room_bot", seat=seat, level="normal")  # type: ignore[arg-type]
    host.lobby_until("room", lambda m: m["room"] is not None and m["room"]["full"])
    host.send(host.lobby, type="room_start")  # type: ignore[arg-type]
    tables = {b.lobby_until("match")["table"] for b in people}
    assert len(tables) == 1
    return tables.pop()


def _live(c: Any, table: str) -> Any:
    live = c.app.state.tables.peek(table)
    assert live is not None
    return live


def test_a_decision_that_times_out_is_played_and_the_seat_goes_on_auto_play(
    sqlite_url: str,
) -> None:
    config = dataclasses.replace(ONLINE_CONFIG, move_seconds=0.3)
    with online_client(sqlite_url, config) as c, browsers(c, 1) as (me,):
        table = _room_match([me], "two-player", 5000, bots=[1])
        s = Socket(me.socket(f"/ws/tables/{table}"))
        first = s.until(lambda m: m["type"] == "state")
        assert first["table"]["seat"] == 0
        # a room's match with a computer seat changes no rating, and says so from the start
        assert first["table"]["online"]["rated"] is False
        assert first["table"]["online"]["ratings"] is None
        # the computer may move first; then my draw waits for me, and I do nothing
        waiting = s.until(
            lambda m: (
                m["type"] == "state" and m["view"]["turn"] == 0 and m["view"]["phase"] == "draw"
            )
        )
        on = online_of(waiting)
        assert on["deadline_ms"] is not None and on["auto"] == [None, None]
        assert on["move_seconds"] == 0.3
        version = waiting["version"]
        drew = s.until(lambda m: m["type"] == "state" and m["version"] == version + 1)
        assert drew["change"] == "action" and drew["event"]["seat"] == 0
        assert drew["event"]["action"]["type"] == "draw"
        assert online_of(drew)["auto"][0] == "timeout"
        discarded = s.until(lambda m: m["type"] == "state" and m["version"] == version + 2)
        assert discarded["change"] == "action" and discarded["event"]["seat"] == 0
        assert discarded["event"]["action"]["type"] == "discard"
        assert _live(c, table).online["auto"][0] == "timeout"
        # the computer plays my seat from now on: the hand ends without me
        over = s.until(lambda m: m["type"] == "state" and m["view"]["phase"] == "over", limit=20000)
        seats = [e["seat"] for e in over["view"]["history"][len(discarded["view"]["history"]) :]]
        assert 0 in seats  # moves made for my seat after the timeout
        assert online_of(over)["deadline_ms"] is not None  # the break between hands
        # no action while on auto-play
        legal_any = discarded["view"]["legal"] or [{"type": "draw"}]
        assert s.error(type="action", version=over["version"], action=legal_any[0]) == "auto_play"
        assert s.error(type="validate", version=over["version"], action=legal_any[0]) == "auto_play"
        # from here on, decisions get a human's time: I take my seat back and play
        live = _live(c, table)
        live.config = dataclasses.replace(config, move_seconds=600.0)
        back = s.ask(type="back")
        assert back["type"] == "state" and back["change"] == "back"
        assert back["version"] == over["version"]  # presence and auto-play are not the game
        assert online_of(back)["auto"] == [None, None]
        dealt = s.ask(type="next_hand")
        assert dealt["type"] == "state" and dealt["change"] == "next_hand"
        mine = (
            s.until(
                lambda m: (
                    m["type"] == "state" and m["view"]["turn"] == 0 and bool(m["view"]["legal"])
                )
            )
            if dealt["view"]["turn"] != 0
            else dealt
        )
        assert online_of(mine)["auto"][0] is None
        played = s.ask(
            type="action",
            version=mine["version"],
            action=pick(mine["view"]["legal"], random.Random(1)),
        )
        assert played["type"] == "state" and played["version"] == mine["version"] + 1
        assert played["view"]["history"][-1]["seat"] == 0
        assert online_of(played)["auto"][0] is None


def test_a_dropped_socket_goes_away_after_the_grace_period_and_comes_back(db_url: str) -> None:
    config = dataclasses.replace(ONLINE_CONFIG, grace_seconds=0.2)
    with online_client(db_url, config) as c, browsers(c, 2) as (a, b):
        table = _room_match([a, b], "two-player", 5000, bots=[])
        sb = Socket(b.socket(f"/ws/tables/{table}"))
        seat_b = sb.until(lambda m: m["type"] == "state")["table"]["seat"]
        seat_a = 1 - seat_b
        ws_a = a.socket(f"/ws/tables/{table}")
        sa = Socket(ws_a)
        start = sa.until(lambda m: m["type"] == "state")
        version = start["version"]
        both = sb.until(lambda m: m["type"] == "state" and all(online_of(m)["connected"]))
        assert both["version"] == version
        # A's socket closes: B is told, then (after the grace period) A's seat is away
        ws_a.close()
        gone = sb.until(lambda m: m["type"] == "state" and not online_of(m)["connected"][seat_a])
        assert gone["change"] == "presence" and gone["version"] == version
        away = sb.until(lambda m: m["type"] == "state" and online_of(m)["auto"][seat_a] == "away")
        assert away["change"] == "away" and away["version"] == version
        assert _live(c, table).online["auto"][seat_a] == "away"
        # A's seat is played by the computer meanwhile (when it is A's turn)
        # A comes back: the seat returns by itself
        sa2 = Socket(a.socket(f"/ws/tables/{table}"))
        again = sa2.until(lambda m: m["type"] == "state")
        assert again["table"]["seat"] == seat_a
        returned = sb.until(
            lambda m: (
                m["type"] == "state"
                and online_of(m)["auto"][seat_a] is None
                and online_of(m)["connected"][seat_a]
            )
        )
        assert returned["change"] in ("back", "presence")
        assert _live(c, table).online["auto"][seat_a] is None
        # the match carries on: whoever is to act plays
        sa2.at_version(returned["version"])
        after = play_hand({seat_a: sa2, seat_b: sb}, [], random.Random(3), stop_after=6)
        assert after["version"] >= returned["version"] + 6 or after["view"]["phase"] == "over"


def test_a_deadline_that_passes_while_storage_is_down_fires_when_it_is_back(
    tmp_path: Path,
) -> None:
    path = tmp_path / "canasta.sqlite3"
    url = f"sqlite+aiosqlite:///{path}"
    config = dataclasses.replace(
        ONLINE_CONFIG, move_seconds=3.0, sqlite_busy_seconds=0.2, storage_retry_seconds=0.1
    )
    with online_client(url, config) as c, browsers(c, 1) as (me,):
        table = _room_match([me], "two-player", 5000, bots=[1])
        s = Socket(me.socket(f"/ws/tables/{table}"))
        mine = s.until(
            lambda m: (
                m["type"] == "state" and m["view"]["turn"] == 0 and m["view"]["phase"] == "draw"
            )
        )
        lock = sqlite3.connect(path, isolation_level=None, timeout=10)
        lock.execute("BEGIN EXCLUSIVE")
        try:
            refused = s.ask(type="action", version=mine["version"], action={"type": "draw"})
            assert refused["type"] == "error" and refused["code"] == "storage_unavailable"
            deadline = online_of(mine)["deadline_ms"] / 1000
            for _ in range(100):  # wait (bounded) until the deadline has passed meanwhile
                if time.time() > deadline + 0.3:
                    break
                time.sleep(0.1)
        finally:
            lock.execute("ROLLBACK")
            lock.close()
        s.until(lambda m: m["type"] == "state" and m["change"] == "storage")
        timed_out = s.until(lambda m: m["type"] == "state" and online_of(m)["auto"][0] == "timeout")
        assert timed_out["version"] == mine["version"] + 1
        assert timed_out["event"]["seat"] == 0 and timed_out["event"]["action"]["type"] == "draw"
