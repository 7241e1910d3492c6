"""RULES.md R10 ("Partner, may I go out?") at an online table: a partner who lets the
question time out answers "no" (seed 003's timer), and the seat goes on auto-play."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest

from canasta import Game, Settings
from canasta.actions import ASK, NO
from canasta.bots import make_player
from canasta.server.db import Store
from canasta.server.table import Table
from tests.online.support import ONLINE_CONFIG


def a_pending_question() -> Game:
    """A classic game with ``ask_partner`` in which seat 0 has just asked its partner (seat 2),
    played by Normal computers from the first seed that gets there."""
    settings = Settings.preset("classic", ask_partner=True, target="one_hand")
    for seed in range(300):
        game = Game(settings, seed=seed)
        players = {s: make_player("normal", seed=seed + s) for s in range(4)}
        for _ in range(2000):
            st = game.state
            if st.is_over:
                break
            if st.turn == 0 and st.phase == "play" and ASK in st.legal_actions():
                game.apply(ASK)
                return game
            game.apply(players[st.turn].choose(st.view(st.turn)))
    pytest.skip("no seed of the first 300 reaches a question")


def test_r10_a_question_left_unanswered_times_out_as_no(tmp_path: Path) -> None:
    config = dataclasses.replace(ONLINE_CONFIG, move_seconds=0.2, grace_seconds=60.0)
    game = a_pending_question()
    st = game.state
    assert st.phase == "ask" and st.turn == 2
    asked = len(game.hands[-1].actions)  # the question is the last action so far

    async def run() -> tuple[Table, Table]:
        store = Store(f"sqlite+aiosqlite:///{tmp_path / 'ask.sqlite3'}")
        await store.migrate()
        players = [("acc-0", "Ann"), None, ("acc-2", "Cy"), None]
        table = Table.create_online(
            table_id="ask", settings=game.settings, players=players, store=store, public=False,
            config=config,
        )
        table.game = game
        table._prepare_online()
        await store.save_table(table.row_values())
        table.mark_saved()
        table.start()
        try:
            for _ in range(100):  # the deadline passes within 0.2 s; bounded wait
                await asyncio.sleep(0.05)
                if len(table.game.hands[-1].actions) > asked:
                    break
            for _ in range(100):  # applied, then committed: read the store once it has it
                reloaded = Table.from_row(
                    await store.load_table("ask"), store,  # type: ignore[arg-type]
                    log=await store.load_log("ask", 0), config=config,
                )
                if NO in reloaded.game.hands[-1].actions:
                    break
                await asyncio.sleep(0.05)
        finally:
            await table.stop()
            await store.dispose()
        return table, reloaded

    table, reloaded = asyncio.run(run())
    # the answer right after the question is "no" (the asker's own clock, 0.2 s too, may then
    # run out on a slow machine and the server play on for them)
    assert table.game.hands[-1].actions[asked] == NO
    assert table.online["auto"][2] == "timeout"
    # saved like any move: the stored table answers "no" too
    assert NO in reloaded.game.hands[-1].actions
