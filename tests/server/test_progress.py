"""Seed 002's progress rules: a new match started before the last one finished resets the win
streak; Reset progress also clears the unfinished match position (no more Continue)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from canasta.server.db import StatsDelta

from .support import client, create_table, receive


def _win_twice(c: TestClient) -> str:
    """Two matches won against the computer, counted as a finished table would count them."""
    account = c.get("/api/account").json()["account"]["id"]

    async def won() -> None:
        store = c.app.state.store  # type: ignore[attr-defined]
        async with store.sessions() as s, s.begin():
            await store._apply_deltas(s, [StatsDelta(account, finished=True, won=True)])
            await store._apply_deltas(s, [StatsDelta(account, finished=True, won=True)])

    c.portal.call(won)  # type: ignore[union-attr]
    stats = c.get("/api/stats").json()
    assert stats["streak"] == 2 and stats["best_streak"] == 2
    return str(account)


def test_seed002_a_new_match_before_the_last_one_finished_resets_the_streak(db_url: str) -> None:
    with client(db_url) as c:
        c.post("/api/session", json={})
        _win_twice(c)
        first = create_table(c, mode="computer", preset="two-player", rules={"target": 5000})
        assert c.get("/api/stats").json()["streak"] == 2  # nothing was unfinished before it
        # pass-and-play and chosen deals are not counted: they leave the streak alone
        create_table(c, mode="local", players=2, preset="two-player")
        create_table(c, mode="computer", preset="two-player", seed=7)
        assert c.get("/api/stats").json()["streak"] == 2
        create_table(c, mode="computer", preset="two-player", rules={"target": 5000})
        stats = c.get("/api/stats").json()
        assert stats["streak"] == 0 and stats["best_streak"] == 2 and stats["won"] == 2
        # the unfinished match is still there to continue
        assert first in [t["table"] for t in c.get("/api/tables").json()["tables"]]


def test_seed002_reset_progress_clears_the_unfinished_match_position(db_url: str) -> None:
    with client(db_url) as c:
        c.post("/api/session", json={})
        _win_twice(c)
        live = create_table(c, mode="computer", preset="two-player", rules={"target": 5000})
        with c.websocket_connect(f"/ws/tables/{live}") as ws:
            receive(ws)  # the table is live in memory while the progress is reset
            idle = create_table(c, mode="local", players=2, preset="two-player")
            assert {t["table"] for t in c.get("/api/tables").json()["tables"]} >= {live, idle}
            reset = c.delete("/api/stats").json()
            assert reset["streak"] == 0 and reset["best_streak"] == 0 and reset["played"] == 0
            assert c.get("/api/tables").json()["tables"] == []
            ws.send_json({"type": "pause"})  # a change saved by the live table keeps the mark
            receive(ws)
        assert c.get("/api/tables").json()["tables"] == []
        for gone in (live, idle):  # nor can it be played from its address (Back, a bookmark)
            with c.websocket_connect(f"/ws/tables/{gone}") as ws:
                assert receive(ws)["code"] == "table_not_found"
        # a new match now starts a streak from nothing and is offered to continue
        fresh = create_table(c, mode="computer", preset="two-player")
        assert [t["table"] for t in c.get("/api/tables").json()["tables"]] == [fresh]
