"""The live-table set and computer seats, driven directly (async)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import update

from canasta import Game, Settings
from canasta.server import players
from canasta.server.db import Store, TableRow
from canasta.server.players import _FallbackPlayer
from canasta.server.tables import Tables

from .support import new_profile


@pytest.mark.asyncio
async def test_idle_tables_leave_memory_and_come_back_exactly(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    await store.migrate()
    tables = Tables(store, bot_delay_ms=0)
    try:
        table = await tables.create(
            profile=new_profile(),
            mode="computer",
            settings=Settings.preset("two-player"),
            difficulty="beginner",
        )
        for _ in range(200):  # the computer plays until the human is to act
            await asyncio.sleep(0.01)
            if table.game.state.turn == 0 and table.queue.empty():
                break
        record = table.game.to_record()
        assert await tables.sweep(idle_seconds=3600) == 0
        assert await tables.sweep(idle_seconds=0) == 1
        assert table.id not in tables
        again = await tables.get(table.id)
        assert again is not None and again is not table
        assert again.game.to_record() == record and again.version == table.version
    finally:
        await tables.close()
        await store.dispose()


@pytest.mark.asyncio
async def test_a_record_that_does_not_replay_is_reported_missing(sqlite_url: str) -> None:
    store = Store(sqlite_url)
    await store.migrate()
    tables = Tables(store, bot_delay_ms=0)
    try:
        table = await tables.create(
            profile=None, mode="local", settings=Settings.preset("classic"), difficulty="normal"
        )
        await tables.close()
        async with store.sessions() as s, s.begin():
            await s.execute(
                update(TableRow).where(TableRow.id == table.id).values(record={"format": "nope"})
            )
        tables = Tables(store, bot_delay_ms=0)
        assert await tables.get(table.id) is None
    finally:
        await tables.close()
        await store.dispose()


def test_fallback_player_plays_legal_moves_to_the_end_of_a_hand() -> None:
    game = Game(Settings.preset("classic"), seed=12)
    seats = [_FallbackPlayer("normal", seed) for seed in range(4)]
    for _ in range(3000):
        if game.state.is_over:
            break
        action = seats[game.state.turn].choose(game.state.view(game.state.turn))
        assert game.state.check(action) is None
        game.apply(action)
    assert game.state.is_over


def test_the_server_uses_the_bots_when_they_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not isinstance(players.make_computer("normal", 1), _FallbackPlayer)
    import builtins

    real_import = builtins.__import__

    def no_bots(name: str, *args: object, **kwargs: object) -> object:
        if name == "bots" or name.endswith(".bots") or name == "canasta.bots":
            raise ImportError("no bots")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_bots)
    assert isinstance(players.make_computer("normal", 1), _FallbackPlayer)
