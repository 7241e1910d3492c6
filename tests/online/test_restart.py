"""A server restart in the middle of an online match: the match, its move timer and the queue
survive (docs/protocol.md, "The move timer and auto-play", "Lobby")."""

from __future__ import annotations

import dataclasses
import random

import pytest

from canasta.server.table import Table
from tests.online.support import (
    ONLINE_CONFIG,
    Browser,
    Socket,
    online_client,
    online_of,
    play_hand,
    quick_match,
)


def test_a_restart_mid_match_keeps_the_match_its_deadline_and_the_queue(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = dataclasses.replace(ONLINE_CONFIG, move_seconds=0.3, queue_grace_seconds=600.0)
    # the first process never fires a deadline (as if it stopped just before one): the second
    # one must fire it from the saved state, with nobody connected
    monkeypatch.setattr(Table, "_arm_deadline", lambda self: None)
    with online_client(db_url, config) as c:
        a, b, waiting = Browser(c, "Ann"), Browser(c, "Bob"), Browser(c, "Cy")
        table = quick_match([a, b], preset="two-player")
        seats = {}
        for p in (a, b):
            s = Socket(p.socket(f"/ws/tables/{table}"))
            seats[s.until(lambda m: m["type"] == "state")["table"]["seat"]] = s
        before = play_hand(seats, [], random.Random(2), stop_after=3)
        assert before["view"]["phase"] != "over"
        assert online_of(before)["deadline_ms"] is not None
        pending_seat = before["view"]["turn"]
        record = c.app.state.tables.peek(table).game.to_record()  # type: ignore[attr-defined]
        waiting.open_lobby()
        waiting.send(waiting.lobby, type="queue_join", preset="classic", target=5000)  # type: ignore[arg-type]
        assert waiting.lobby_until("queued")["mine"]["preset"] == "classic"
        for p in (a, b, waiting):
            p.close()
    monkeypatch.undo()

    with online_client(db_url, config) as c:
        live = c.app.state.tables.peek(table)  # type: ignore[attr-defined]
        assert live is not None, "the online match was not loaded at start"
        assert live.version >= before["version"]  # its deadline may have fired already
        # nobody is seated here: a spectator watches the pending deadline fire
        watcher = Browser(c, "Dee")
        spectator = Socket(watcher.socket(f"/ws/tables/{table}"))
        first = spectator.until(lambda m: m["type"] == "state")
        assert not any(online_of(first)["connected"])
        timed_out = (
            first
            if online_of(first)["auto"][pending_seat] == "timeout"
            else spectator.until(
                lambda m: m["type"] == "state" and online_of(m)["auto"][pending_seat] == "timeout"
            )
        )
        assert timed_out["version"] > before["version"]
        # the record is intact: what was played before the restart, then the server's moves
        now = live.game.to_record()
        assert now["seed"] == record["seed"] and now["settings"] == record["settings"]
        k = len(record["hands"]) - 1
        played = record["hands"][k]["actions"]
        assert now["hands"][k]["actions"][: len(played)] == played
        assert len(now["hands"][k]["actions"]) > len(played) or len(now["hands"]) > k + 1
        # the queued browser reconnects within the grace period: still queued
        back = waiting.at(c)
        snapshot = back.open_lobby()
        assert snapshot["mine"] is not None and snapshot["mine"]["preset"] == "classic"
        assert snapshot["queue"]["classic:5000"] == 1
        # the players' seats are still theirs
        again = a.at(c)
        s = Socket(again.socket(f"/ws/tables/{table}"))
        mine = s.until(lambda m: m["type"] == "state")
        assert mine["table"]["seat"] is not None and mine["view"]["hand"] is not None
        for p in (back, again, watcher):
            p.close()
