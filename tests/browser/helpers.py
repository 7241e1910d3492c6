"""Page helpers shared by the browser tests (they only click, type and read the page)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

MY_TURN_OR_OVER = """() => {
  const o = document.body.dataset.overlay;
  if (o === 'hand' || o === 'match') return true;
  const t = document.querySelector('#table');
  return !!t && t.dataset.myTurn === 'yes';
}"""


def start_match(page: Any, url: str, mode: str = "computer4", target: str | int = "one_hand",
                difficulty: str | None = "beginner") -> None:
    page.goto(url)
    page.click(f"#mode-{mode}")
    if difficulty and page.locator("#set-difficulty").count():
        page.select_option("#set-difficulty", difficulty)
    page.select_option("#set-target", str(target))
    page.click("#btn-start")
    page.wait_for_selector("#table[data-phase]")


def wait_my_turn(page: Any, timeout: float = 60_000) -> str:
    """Wait until the human seat must act (returns the phase) or the hand is over ('over')."""
    page.wait_for_function(MY_TURN_OR_OVER, timeout=timeout)
    if page.evaluate("document.body.dataset.overlay || ''") in ("hand", "match"):
        return "over"
    return str(page.get_attribute("#table", "data-phase"))


def version(page: Any) -> str:
    return str(page.get_attribute("#table", "data-version"))


def wait_version_change(page: Any, before: str, timeout: float = 20_000) -> None:
    page.wait_for_function(
        "(v) => { const t = document.querySelector('#table'); return (t && t.dataset.version !== v) || "
        "['hand', 'match'].includes(document.body.dataset.overlay); }",
        arg=before, timeout=timeout)


def hand_cards(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)"))


def play_simple_turn(page: Any) -> None:
    """Draw (or take when that is the only choice), then discard the rightmost card; clicks only."""
    phase = page.get_attribute("#table", "data-phase")
    before = version(page)
    if phase == "draw":
        if page.is_enabled("#btn-draw"):
            page.click("#stock")
        elif page.locator("#btn-decline").count():
            page.click("#btn-decline")
        else:
            page.click("#btn-take")  # stages the server's way to take the pile
            page.wait_for_timeout(150)
            if version(page) == before:
                page.click("#btn-take")
    elif phase == "play":
        card = page.locator("#hand .card:not(.planned)").last
        # a suggested discard arrives selected: clicking it again would deselect it
        if "selected" not in (card.get_attribute("class") or "").split():
            card.click()
        page.click("#pile")
    wait_version_change(page, before)


def first_meld_deal(accept: Any, preset: str = "two-player") -> tuple[int, list[dict[str, Any]]]:
    """The first seed (of 1,000) whose first player, after drawing, has a listed meld that
    ``accept(state, action_json)`` takes; the seed and that meld's groups."""
    import pytest

    from canasta import Game, Settings
    from canasta.actions import action_from_json

    for seed in range(1000):
        game = Game(Settings.preset(preset, target="one_hand"), seed=seed)
        game.apply(action_from_json({"type": "draw"}))
        state = game.state
        for action in state.view(state.turn).to_json()["legal"]:
            if action["type"] == "meld" and accept(state, action):
                return seed, action["groups"]
    pytest.skip("no such deal in the first seeds")


def open_seeded_two_player(page: Any, url: str, seed: int) -> str:
    """Open a one-hand pass-and-play two-player table dealt from ``seed``, revealed to the first
    seat at its draw; the table id."""
    from .conftest import page_api

    page.goto(url)
    page.wait_for_selector("#btn-start")
    table = page_api(page, "POST", "/api/tables", {"mode": "local", "players": 2, "preset": "two-player",
                                                   "rules": {"target": "one_hand"}, "seed": seed})["table"]
    page.goto(url + f"#table={table}")
    page.click("#btn-reveal")
    assert wait_my_turn(page) == "draw"
    return str(table)


def open_finished_hand(page: Any, server: Any, preset: str = "two-player", lang: str = "en") -> None:
    """A one-hand pass-and-play match played to its end (``positions.finished_hand``), opened
    in ``page``."""
    from canasta import Settings

    from .conftest import page_api, use_prefs
    from .positions import DRIVE, finished_hand

    use_prefs(page, lang=lang)
    seed, actions = finished_hand(preset)
    page.goto(server.url)
    page.wait_for_selector("#btn-start")
    players = Settings.preset(preset).players
    table = page_api(page, "POST", "/api/tables", {"mode": "local", "players": players, "preset": preset,
                                                   "rules": {"target": "one_hand"}, "seed": seed})["table"]
    page.evaluate(DRIVE, [table, actions])
    page.goto(server.url + f"#table={table}")


def in_db(db_url: str, work: Any) -> Any:
    """``await work(store)`` on a server's database, from a (synchronous) browser test: in a
    thread of its own, since Playwright's sync API holds this thread's event loop."""
    from canasta.server.db import Store

    async def run() -> Any:
        store = Store(db_url)
        try:
            return await work(store)
        finally:
            await store.dispose()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result(60)
