"""The live-table set and computer seats, driven directly (async)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import update

from canasta import Settings
from canasta.server import players as players_module
from canasta.server.db import Store, TableRow
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


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("difficulty", ["beginner", "normal", "expert"])
def test_the_server_seats_play_the_levels_the_bots_assign(players: int, difficulty: str) -> None:
    from canasta.bots import seat_levels

    seats = players_module.computer_seats(players, difficulty)
    assert seats[0].kind == "human"
    assert {s: seats[s].level for s in range(1, players)} == seat_levels(players, 0, difficulty)
    assert players_module.LEVELS == ("beginner", "normal", "expert")
    assert players_module.make_computer("normal", 1).level == "normal"
