"""``canasta play``: Textual's pilot presses keys through turns and a whole hand."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import pytest

pytest.importorskip("textual")

from textual.widgets import RichLog, Static  # noqa: E402

from canasta.tui.app import CanastaApp  # noqa: E402
from canasta.tui.session import Session  # noqa: E402


def screen(app: CanastaApp, name: str) -> str:
    widget = app.query_one(f"#{name}")
    if isinstance(widget, RichLog):
        return "\n".join(line.text for line in widget.lines)
    assert isinstance(widget, Static)
    return str(widget.content)


async def wait_for_my_turn(app: CanastaApp, pilot: object) -> None:
    """Wait while the computer plays (its decisions run in a thread; the machine may be busy)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        st = app.session.game.state
        if (st.is_over or st.turn == app.session.human) and not app.thinking:
            await pilot.pause()  # type: ignore[attr-defined]
            return
        await pilot.pause(0.01)  # type: ignore[attr-defined]
    raise AssertionError("the computer never finished its turn")


def test_turns_a_meld_undo_and_a_whole_hand_with_the_keyboard() -> None:
    async def run() -> None:
        session = Session(preset="two-player", level="normal", seed=7)
        app = CanastaApp(session, delay=0.0)
        async with app.run_test(size=(140, 45)) as pilot:
            await wait_for_my_turn(app, pilot)
            assert "Your hand:" in screen(app, "hand")
            await pilot.press("h")
            assert "s suggestion" in screen(app, "message")
            assert "Pile: top" in screen(app, "table") and "Stock:" in screen(app, "table")
            # an illegal discard before drawing is refused with the rule's reason
            await pilot.press("x")
            assert "Not allowed" in screen(app, "message") and "(R4)" in screen(app, "message")
            for _ in range(3):  # three plain turns: draw, discard the card under the cursor
                await wait_for_my_turn(app, pilot)
                before = app.session.view.stock_size
                await pilot.press("d")
                assert app.session.view.stock_size < before
                assert app.session.game.state.phase == "play"
                n = len(app.session.log)
                await pilot.press("right", "x")
                assert app.session.log[n].startswith("You: discard")
                await wait_for_my_turn(app, pilot)
            assert sum(1 for line in app.session.log if line.startswith("North:")) >= 3 * 2
            assert "North:" in screen(app, "log")
            # undo a discard before the computer moves (the app waits `delay` before its move)
            app.delay = 30.0
            await wait_for_my_turn(app, pilot)
            await pilot.press("d", "x")
            assert app.session.undoable()
            await pilot.press("u")
            assert app.session.game.state.turn == 0 and app.session.game.state.phase == "play"
            assert "Undone" in screen(app, "message")
            app.delay = 0.0
            # select two cards of a rank plus nothing: a two-card group is refused with a reason
            hand = app.session.hand
            pair = next((i for i in range(len(hand) - 1) if hand[i] == hand[i + 1] or hand[i] // 4 == hand[i + 1] // 4), None)
            if pair is not None:
                app.session.cursor = pair
                await pilot.press("space", "right", "space", "m")
                assert "Not allowed" in screen(app, "message")
                await pilot.press("c")
            # suggestions: s shows the computer's judgement, Enter plays it; play to the hand's end
            for _ in range(400):
                await wait_for_my_turn(app, pilot)
                if app.session.game.state.is_over:
                    break
                await pilot.press("s")
                assert "Suggestion:" in screen(app, "message")
                await pilot.press("enter")
            else:
                raise AssertionError("the hand did not end")
            st = app.session.game.state
            assert st.is_over
            assert "over" in screen(app, "result") and "Totals:" in screen(app, "result")
            assert str(app.session.game.scores[0]) in screen(app, "result")
            if not app.session.game.is_over:
                await pilot.press("enter")
                assert app.session.game.hand_number == 2
                assert "Hand 2" in screen(app, "table")
                assert screen(app, "result") == ""

    asyncio.run(run())


def test_staging_groups_and_melding_from_a_planned_opening() -> None:
    """A meld made with space/g/m lands on the table (the staged plan comes from the adviser)."""

    async def run() -> None:
        for seed in range(40):
            session = Session(preset="two-player", level="beginner", seed=seed)
            app = CanastaApp(session, delay=0.0)
            async with app.run_test(size=(140, 45)) as pilot:
                for _ in range(60):
                    await wait_for_my_turn(app, pilot)
                    st = app.session.game.state
                    if st.is_over:
                        break
                    stock = app.session.view.stock_size
                    await pilot.press("d" if st.phase == "draw" and stock else "s")
                    if st.phase == "draw" and not stock:
                        await pilot.press("enter")
                        continue
                    meld = next((a for a in st.legal_actions() if a.kind == "meld" and a.discard is None), None)
                    if meld is None:
                        await pilot.press("x")
                        continue
                    # select each group's cards with the cursor and stage it with g, then meld with m
                    for g in meld.groups:
                        hand = app.session.hand
                        free = app.session.free_positions()
                        for c in g.cards:
                            i = next(i for i in free if hand[i] == c and i not in app.session.selected)
                            app.session.cursor = i
                            await pilot.press("space")
                        await pilot.press("g")
                    assert "staged:" in screen(app, "message") or "Staged:" in screen(app, "hand")
                    await pilot.press("m")
                    assert app.session.view.melds[0], screen(app, "message")
                    assert any(line.startswith("You: meld") for line in app.session.log)
                    token = "A23456789TJQK"[meld.groups[0].rank] if meld.groups[0].rank < 13 else "?"
                    assert f"{token}×" in screen(app, "table")
                    # undo takes the meld back (R15)
                    await pilot.press("u")
                    assert not app.session.view.melds[0]
                    return
        raise AssertionError("no seed gave a meld")

    asyncio.run(run())


def test_play_without_textual_says_how_to_install_it_and_exits_2() -> None:
    code = (
        "import sys, builtins\n"
        "real = builtins.__import__\n"
        "def fake(name, *a, **k):\n"
        "    if name == 'textual' or name.startswith('textual.'): raise ImportError(name)\n"
        "    return real(name, *a, **k)\n"
        "builtins.__import__ = fake\n"
        "from canasta.cli import main\n"
        "sys.exit(main(['play']))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "pip install 'canasta[tui]'" in out.stderr


def test_a_one_hand_match_ends_with_the_winner_and_q_quits() -> None:
    async def run() -> None:
        session = Session(preset="classic", level="beginner", seed=3, target="one_hand")
        app = CanastaApp(session, delay=0.0)
        async with app.run_test(size=(140, 45)) as pilot:
            for _ in range(300):
                await wait_for_my_turn(app, pilot)
                if app.session.game.state.is_over:
                    break
                await pilot.press("s", "enter")
            assert app.session.game.is_over
            result = screen(app, "result")
            assert "MATCH OVER, winner:" in result and "going out" in result
            assert "Match over" in screen(app, "message")
            await pilot.press("enter")  # no next hand after the match
            assert app.session.game.hand_number == 1
            await pilot.press("q")
        assert not app.is_running

    asyncio.run(run())


def test_a_wild_only_group_asks_for_its_rank_and_that_key_is_not_a_command() -> None:
    from canasta.cards import IS_WILD

    async def run() -> None:
        for seed in range(60):
            session = Session(preset="two-player", level="beginner", seed=seed)
            if session.game.state.turn != 0 or not any(IS_WILD[c] for c in session.hand):
                continue
            app = CanastaApp(session, delay=0.0)
            async with app.run_test(size=(140, 45)) as pilot:
                await pilot.press("d")
                session.cursor = next(i for i, c in enumerate(session.hand) if IS_WILD[c])
                await pilot.press("space", "g")
                assert "press the rank" in screen(app, "message")
                await pilot.press("q")  # the rank Q, not quit
                assert app.is_running
                assert [g.rank for g in session.staged] == [11]
                assert "Staged: Q:" in screen(app, "hand")
                await pilot.press("c")
                assert not session.staged
            return
        raise AssertionError("no seed dealt a wild to the first player")

    asyncio.run(run())


def test_r15_undo_takes_back_melds_and_the_discard_but_never_a_draw() -> None:
    """The session alone (no screen): what undo may take back, and that it restores the hand."""
    for seed in range(80):
        s = Session(preset="two-player", level="beginner", seed=seed)
        while s.computer_step():
            pass
        assert s.draw()
        assert not s.undoable()  # drawing from the stock is never undone
        meld = next((a for a in s.game.state.legal_actions() if a.kind == "meld" and a.discard is None), None)
        if meld is None:
            continue
        hand = s.hand
        assert s.act(meld)
        assert s.undoable() and s.undo()
        assert s.hand == hand and not s.view.melds[0]
        assert not s.undoable()  # back to just after the draw
        assert s.act(meld)
        card = s.hand[0]
        assert s.discard()
        assert s.undoable()  # the next seat has not acted yet
        assert s.undo() and card in s.hand and s.view.turn == 0
        assert s.discard()
        assert s.computer_step()
        assert not s.undoable()  # the next seat has acted
        return
    raise AssertionError("no seed gave a meld after the first draw")
