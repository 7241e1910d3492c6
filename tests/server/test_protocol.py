"""Whole games through the websocket: every message is built for its recipient."""

from __future__ import annotations

import json
import random

import pytest

from .support import Truth, client, create_table, new_identity, play_to_the_end, receive


@pytest.mark.parametrize(
    ("preset", "difficulty"),
    [
        ("classic", "normal"),
        ("two-player", "beginner"),
        ("three-player", "normal"),
        ("two-player-quick", "normal"),
    ],
)
def test_computer_game_sends_each_seat_only_its_view(
    preset: str, difficulty: str, sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    truth = Truth().install(monkeypatch)
    seen = 0
    with client(sqlite_url) as c:
        tid = create_table(
            c,
            mode="computer",
            preset=preset,
            difficulty=difficulty,
            rules={"target": "one_hand"},
            # a fixed deal: a random one may end after a handful of states (CI saw 6)
            seed=1,
        )

        def check(msg: dict[str, object]) -> None:
            nonlocal seen
            truth.check(tid, msg)
            seen += 1

        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            last = play_to_the_end(ws, random.Random(preset), check)
    assert last["table"]["status"] == "match_over"
    assert last["view"]["result"] is not None
    assert seen > 10, seen


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pass_and_play_hides_every_hand_until_reveal(
    players: int, sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    truth = Truth().install(monkeypatch)
    reveals = 0
    with client(sqlite_url) as c:
        # a fixed deal: a random one may end before the fourth reveal
        tid = create_table(
            c, mode="local", players=players, rules={"target": "one_hand"}, seed=100 + players
        )

        def check(msg: dict[str, object]) -> None:
            nonlocal reveals
            truth.check(tid, msg)
            table = msg["table"]
            assert isinstance(table, dict)
            view = msg["view"]
            assert isinstance(view, dict)
            if table["handoff"] is not None:
                assert view["seat"] is None and view["hand"] is None and view["legal"] == []
            elif msg["change"] == "reveal":
                reveals += 1
                assert view["seat"] == view["turn"]

        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            first = receive(ws)
            assert first["table"]["handoff"] == first["view"]["turn"]
            check(first)
            ws.send_text(json.dumps({"type": "reveal", "seat": first["table"]["handoff"]}))
            play_to_the_end(ws, random.Random(players), check)
    assert reveals > 3


def test_another_session_only_gets_the_spectator_view(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    truth = Truth().install(monkeypatch)
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="classic")
        new_identity(c)  # another browser
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            msg = receive(ws)
            truth.check(tid, msg)
            assert msg["table"]["seat"] is None and msg["view"]["hand"] is None
            ws.send_text('{"type": "action", "version": 0, "action": {"type": "draw"}}')
            err = receive(ws)
            while err["type"] == "state":
                err = receive(ws)
            assert err["type"] == "error" and err["code"] == "not_your_table"
