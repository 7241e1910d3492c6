"""Taking a frozen pile with a natural pair, by clicks, on a known deal."""

from __future__ import annotations

from typing import Any

import pytest

from canasta import Game, Settings

from .conftest import use_prefs
from .helpers import (
    first_meld_deal,
    hand_cards,
    open_seeded_two_player,
    version,
    wait_version_change,
)

pytestmark = pytest.mark.browser


def _deal_with_a_natural_pair_take(preset: str = "two-player") -> tuple[int, list[str], str, int]:
    """A seed whose first player can take a frozen pile with exactly a natural pair."""
    for seed in range(1000):
        state = Game(Settings.preset(preset, target="one_hand"), seed=seed).state
        view = state.view(state.turn).to_json()
        causes = view["pile"]["causes"][view["sides"][state.turn]]
        if "wild" not in causes or "red_three" in causes:
            continue  # a buried wild freezes it (and no red three hides in the pile)
        for action in view["legal"]:
            groups = action.get("groups") or []
            if action["type"] == "take" and len(groups) == 1 and len(groups[0]["cards"]) == 2 \
                    and all(c[0] == groups[0]["rank"] for c in groups[0]["cards"]):
                return seed, groups[0]["cards"], view["pile"]["top"], view["pile"]["size"]
    pytest.skip("no such deal in the first seeds")


def test_take_a_frozen_pile_with_a_natural_pair_by_clicks(page, server):
    seed, pair, top, size = _deal_with_a_natural_pair_take()
    use_prefs(page)
    open_seeded_two_player(page, server.url, seed)
    assert page.get_attribute("#pile .card", "data-card") == top
    assert page.locator("#pile.frozen").count() == 1
    before_hand = hand_cards(page)
    # select the pair (two distinct card elements), then tap the pile
    used: list[int] = []
    for card in pair:
        idx = next(i for i, c in enumerate(before_hand) if c == card and i not in used)
        used.append(idx)
        page.locator("#hand .card").nth(idx).click()
    before = version(page)
    page.click("#pile")
    wait_version_change(page, before)
    assert page.get_attribute("#table", "data-phase") == "play"
    meld = page.locator(f"#our-melds .meld[data-rank='{pair[0][0]}']")
    assert meld.count() == 1
    assert "×3" in meld.inner_text()
    assert len(hand_cards(page)) == len(before_hand) - 2 + (size - 1)


def _deal_with_a_two_group_opening() -> tuple[int, list[dict[str, object]]]:
    """A seed where, after drawing, two groups open together but the first alone is short."""
    from canasta.actions import action_from_json

    def first_alone_is_short(state: Any, action: dict[str, Any]) -> bool:
        groups = action["groups"]
        if len(groups) != 2 or "discard" in action:
            return False
        first = state.check(action_from_json({"type": "meld", "groups": groups[:1]}))
        return first is not None and first.code == "opening_minimum_not_met"

    return first_meld_deal(first_alone_is_short)


def test_open_with_two_staged_groups_committed_together(page, server):
    seed, groups = _deal_with_a_two_group_opening()
    use_prefs(page)
    open_seeded_two_player(page, server.url, seed)
    before = version(page)
    page.click("#stock")
    wait_version_change(page, before)
    for k, group in enumerate(groups):
        hand = hand_cards(page)
        used: list[int] = []
        for card in group["cards"]:
            idx = next(i for i, c in enumerate(hand) if c == card and i not in used
                       and "planned" not in (page.locator("#hand .card").nth(i).get_attribute("class") or ""))
            used.append(idx)
            page.locator("#hand .card").nth(idx).click()
        page.click(f"#targets .rank-chip[data-rank='{group['rank']}']")
        if k == 0:
            page.wait_for_selector("#validation.bad")
            assert "needs 50 to open" in page.inner_text("#validation")
    page.wait_for_selector("#validation.ok")
    # the running count of the whole plan against the minimum, marked as enough
    assert page.inner_text("#plan-count") == "Count 60 / 50"
    assert "ok" in (page.get_attribute("#plan-count", "class") or "")
    assert page.locator(".plan-group").count() == 2
    before = version(page)
    page.click("#btn-meld")
    wait_version_change(page, before)
    for group in groups:
        assert page.locator(f"#our-melds .meld[data-rank='{group['rank']}']").count() == 1
    assert page.get_attribute("#table", "data-phase") == "play"
    # Undo (R15) takes the meld action back: the cards return to the hand
    n = len(hand_cards(page))
    assert page.is_enabled("#btn-undo")
    before = version(page)
    page.click("#btn-undo")
    wait_version_change(page, before)
    assert page.locator("#our-melds .meld").count() == 0
    assert len(hand_cards(page)) == n + sum(len(g["cards"]) for g in groups)
