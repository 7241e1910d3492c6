"""Whole hands of quick matches through the players' sockets, every message checked for
what its recipient may know (docs/protocol.md, "Online play")."""

from __future__ import annotations

import random

import pytest

from tests.online.support import (
    Browser,
    Socket,
    browsers,
    online_client,
    online_of,
    play_hand,
    quick_match,
)
from tests.server.support import Truth


def _seat_sockets(players: list[Browser], table: str, truth: Truth) -> dict[int, Socket]:
    out: dict[int, Socket] = {}
    for b in players:
        # as the page opens it: the patches, put over the state held, are checked whole
        s = Socket(b.socket(f"/ws/tables/{table}?state=patch"), lambda m: truth.check(table, m))
        first = s.until(lambda m: m["type"] == "state")
        assert first["change"] == "connect"
        seat = first["table"]["seat"]
        assert seat is not None and seat not in out
        assert first["table"]["seats"][seat]["name"] == b.account["name"]
        out[seat] = s
    return out


@pytest.mark.parametrize(("preset", "n"), [("classic", 4), ("two-player", 2)])
def test_a_quick_match_hand_to_its_end(
    db_url: str, monkeypatch: pytest.MonkeyPatch, preset: str, n: int
) -> None:
    truth = Truth().install(monkeypatch)
    with online_client(db_url) as c, browsers(c, n + 1) as people:
        players, watcher = people[:n], people[n]
        table = quick_match(players, preset=preset)
        seats = _seat_sockets(players, table, truth)
        assert sorted(seats) == list(range(n))
        spectator = Socket(
            watcher.socket(f"/ws/tables/{table}?state=patch"), lambda m: truth.check(table, m)
        )
        first = spectator.until(lambda m: m["type"] == "state")
        assert first["table"]["seat"] is None and first["view"]["hand"] is None
        assert first["table"]["mode"] == "online"
        assert sorted(s["name"] for s in first["table"]["seats"]) == sorted(
            b.account["name"] for b in players
        )
        # everyone reads up to the presence of the spectator
        for s in [*seats.values(), spectator]:
            s.until(lambda m: m["type"] == "state" and online_of(m)["spectators"] == 1)
            assert online_of(s.state)["connected"] == [True] * n  # type: ignore[arg-type]
        end = play_hand(seats, [spectator], random.Random(n))
        assert end["view"]["phase"] == "over"
        assert end["table"]["status"] in ("hand_over", "match_over")
        assert spectator.state is not None and spectator.state["view"]["phase"] == "over"
        assert spectator.state["view"]["hand"] is None
        # the spy saw every state of the hand, to its end (how many depends on the deal)
        seen = sorted(v for t, v in truth.states if t == table)
        assert seen[0] <= first["version"] < end["version"]
        assert seen == list(range(seen[0], end["version"] + 1))
        # every socket rebuilt its view of each later state from patches
        played = end["version"] - first["version"]
        assert all(s.patches >= played for s in [*seats.values(), spectator])
