"""Suggestions with reasons (R15), plans kept after a refusal, and refusals with their numbers.

Every table is a pass-and-play deal found by seed (the server deals it from the seed), so each
test knows the cards the first player holds.
"""

from __future__ import annotations

from typing import Any

import pytest

from canasta import Game, Settings, action_from_json
from canasta.cards import FACE, card_str

from .conftest import use_prefs
from .helpers import hand_cards, open_seeded_two_player, version, wait_version_change

pytestmark = pytest.mark.browser

PLURAL = {"A": "aces", "K": "kings", "Q": "queens", "J": "jacks", "T": "10s"}


def _plural(rank: str) -> str:
    return PLURAL.get(rank, f"{rank}s")


def _seed(accept: Any, preset: str = "two-player") -> int:
    for seed in range(1000):
        if accept(Game(Settings.preset(preset, target="one_hand"), seed=seed).state):
            return seed
    pytest.skip("no such deal in the first seeds")


def _refused(code: str, naturals: int | None = None) -> Any:
    def accept(st: Any) -> bool:
        r = st.take_refusal()
        return r is not None and r.code == code and (naturals is None or r.details.get("naturals") == naturals)
    return accept


def _open(page: Any, server: Any, seed: int) -> None:
    open_seeded_two_player(page, server.url, seed)


def _toast(page: Any) -> str:
    page.wait_for_selector("#toast.show.bad")
    return str(page.inner_text("#toast"))


# ---------------------------------------------------------------------------- 1. a suggestion for every decision


def test_r15_suggest_when_drawing_is_right_says_why(page, server):
    seed = _seed(_refused("pile_frozen_needs_natural_pair", 1))
    st = Game(Settings.preset("two-player", target="one_hand"), seed=seed).state
    rank = card_str(st.pile[-1])[0]
    use_prefs(page)
    _open(page, server, seed)
    page.click("#btn-suggest")
    page.wait_for_selector("#suggest-reason")
    assert page.inner_text("#suggest-reason") == (
        f"Draw: the pile is frozen (your side has not opened) and you hold no pair of {_plural(rank)}.")
    assert page.inner_text("#notice").startswith("Suggestion: Draw: ")
    assert page.inner_text("#suggest-note") == "One legal option, not a guarantee."
    assert page.locator(".plan-group").count() == 0
    before = version(page)
    page.click("#stock")
    wait_version_change(page, before)
    # the play phase: the melds worth making now, else the discard, with its reason
    for _ in range(6):
        page.click("#btn-suggest")
        page.wait_for_selector("#suggest-reason")
        line = page.inner_text("#suggest-reason")
        assert line.split(" ")[0] in ("Meld", "Discard", "Go"), line
        assert page.inner_text("#suggest-note") == "One legal option, not a guarantee."
        before = version(page)
        if not page.locator(".plan-group").count():  # a discard (perhaps going out)
            selected = page.locator("#hand .card.selected")
            assert selected.count() == 1
            assert page.inner_text("#hand .card.selected .corner").replace("\n", "") in line
            # only a proposal: a tap on another card picks that card instead
            page.locator("#hand .card:not(.selected):not(.planned)").first.click()
            assert page.locator("#hand .card.selected").count() == 1
            page.click("#pile")
            wait_version_change(page, before)
            break
        page.wait_for_selector("#validation.ok")
        page.click("#btn-meld")
        wait_version_change(page, before)
        assert not page.locator("#toast.show.bad").count()
    else:
        pytest.fail("no discard was suggested")
    assert page.get_attribute("#table", "data-phase") in ("draw", "over") or page.evaluate(
        "document.body.dataset.overlay || ''")


def test_r15_suggestion_reasons_in_japanese(page, server):
    seed = _seed(_refused("pile_frozen_needs_natural_pair", 1))
    use_prefs(page, lang="ja")
    _open(page, server, seed)
    page.click("#btn-suggest")
    page.wait_for_selector("#suggest-reason")
    line = page.inner_text("#suggest-reason")
    assert line.startswith("引く：山は凍結していて（味方が未オープン）、"), line
    assert page.inner_text("#notice").startswith("ヒント：")
    assert "のペアを持っていません。" in line
    assert page.inner_text("#suggest-note") == "有効な手の一例で、最善とは限りません。"


# ---------------------------------------------------------------------------- 2. a refused plan stays


def _low_triple_after_draw(st: Any) -> bool:
    st = st.copy()
    st.apply(action_from_json({"type": "draw"}))
    hand = st.hands[st.turn]
    return any(sum(1 for c in hand if FACE[c] == f) == 3 for f in (3, 4, 5, 6)) and not st.nmelds[0]


def test_a_refused_plan_stays_staged_and_meld_waits_until_it_is_legal(page, server):
    seed = _seed(_low_triple_after_draw)
    use_prefs(page)
    _open(page, server, seed)
    before = version(page)
    page.click("#stock")
    wait_version_change(page, before)
    hand = hand_cards(page)
    rank = next(r for r in "4567" if sum(1 for c in hand if c[0] == r) == 3)
    triple = [i for i, c in enumerate(hand) if c[0] == rank]
    for i in triple:
        page.locator("#hand .card").nth(i).click()
    page.click(f"#targets .rank-chip[data-rank='{rank}']")
    page.wait_for_selector("#validation.bad")
    refusal = "Your melds count 15; your side needs 50 to open."
    assert page.inner_text("#validation") == refusal
    # Meld waits while the server says the plan is illegal; the reason stands next to it
    assert page.is_disabled("#btn-meld")
    assert page.inner_text("#meld-why") == refusal
    assert page.get_attribute("#btn-meld", "aria-describedby") == "meld-why"
    # Discard with the plan staged melds first: the server refuses, the plan stays staged
    other = next(i for i, c in enumerate(hand) if i not in triple)
    page.locator("#hand .card").nth(other).click()
    before = version(page)
    page.click("#btn-discard")
    assert _toast(page) == refusal
    assert version(page) == before
    assert page.locator(".plan-group").count() == 1
    # the next tap changes the selection, not the plan: it is still there, still checked
    page.locator("#hand .card").nth(other).click()
    page.wait_for_selector("#validation.bad")
    assert page.locator(".plan-group").count() == 1
    assert page.locator("#hand .card.planned").count() == 3
    assert page.is_disabled("#btn-meld")
    # fixing the plan (taking the group back) clears the refusal
    page.click(f".plan-group[data-rank='{rank}'] .plan-x")
    assert page.locator(".plan-group").count() == 0 and page.locator("#meld-why").count() == 0


# ---------------------------------------------------------------------------- 3. refusals with their numbers


def test_r8_the_pile_refused_says_why_with_the_numbers(page, server):
    seed = _seed(_refused("pile_frozen_needs_natural_pair", 1))
    st = Game(Settings.preset("two-player", target="one_hand"), seed=seed).state
    rank = card_str(st.pile[-1])[0]
    use_prefs(page)
    _open(page, server, seed)
    assert page.is_disabled("#btn-take")
    page.click("#pile")  # a tap on the pile asks to take it
    assert _toast(page) == (
        "The pile cannot be taken now. The pile is frozen (your side has not opened): "
        f"you need two natural {_plural(rank)} from your hand, and you hold 1.")


def test_r8_1_a_black_three_on_top_in_japanese(page, server):
    seed = _seed(_refused("pile_top_three"))
    st = Game(Settings.preset("two-player", target="one_hand"), seed=seed).state
    top = card_str(st.pile[-1])
    use_prefs(page, lang="ja")
    _open(page, server, seed)
    page.click("#pile")
    symbol = {"C": "♣", "S": "♠"}[top[1]]
    assert _toast(page) == f"今は山を取れません。山の一番上が黒の3（3{symbol}）です。"


def test_r6_3_a_take_short_of_the_minimum_gives_the_count_and_keeps_the_plan(page, server):
    seed = _seed(_refused("opening_minimum_not_met"))
    st = Game(Settings.preset("two-player", target="one_hand"), seed=seed).state
    top = st.pile[-1]
    pair = [card_str(c) for c in st.hands[st.turn] if FACE[c] == FACE[top]][:2]
    use_prefs(page)
    _open(page, server, seed)
    hand = hand_cards(page)
    used: list[int] = []
    for card in pair:
        i = next(i for i, c in enumerate(hand) if c == card and i not in used)
        used.append(i)
        page.locator("#hand .card").nth(i).click()
    page.click("#pile")  # stages the pair with the top card and asks to take
    from canasta.cards import VALUE
    count = VALUE[top] + sum(VALUE[c] for c in st.hands[st.turn] if card_str(c) in pair)
    refusal = f"Your melds count {count}; your side needs 50 to open."
    assert _toast(page) == refusal
    assert page.locator(".plan-group").count() == 1
    page.wait_for_function("() => !document.querySelector('#toast.show')", timeout=10_000)
    page.click("#btn-take")  # the same plan, refused again with the same numbers
    assert _toast(page) == refusal


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_r6_a_meld_of_one_card_says_a_meld_needs_three_not_the_opening_minimum(page, server, lang):
    """R6: a meld has at least three cards. The refusal's own numbers (3 cards, 1 held) are
    the ones said, not the validation's opening count and minimum (50 points)."""
    seed = _seed(lambda st: not st.nmelds[0])
    use_prefs(page, lang=lang)
    _open(page, server, seed)
    before = version(page)
    page.click("#stock")
    wait_version_change(page, before)
    hand = hand_cards(page)
    i, card = next((i, c) for i, c in enumerate(hand) if c[0] in "456789TJQKA")
    page.locator("#hand .card").nth(i).click()
    page.click(f"#targets .rank-chip[data-rank='{card[0]}']")
    page.wait_for_selector("#validation.bad")
    text = page.inner_text("#validation")
    if lang == "en":
        assert text == f"A meld needs at least 3 cards; your {_plural(card[0])} have 1."
    else:
        assert text.startswith("メルドは3枚以上必要です。") and "50" not in text, text
    assert page.inner_text("#meld-why") == text


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)])
@pytest.mark.parametrize("scroll", ["end", "start"])
def test_a_refusal_toast_never_covers_the_action_buttons(page, server, size, scroll):
    seed = _seed(_refused("pile_frozen_needs_natural_pair", 1))
    page.set_viewport_size({"width": size[0], "height": size[1]})
    use_prefs(page)
    _open(page, server, seed)
    # the buttons at the foot of the screen (scrolled to the end), or as high as they go
    page.evaluate(f"() => document.querySelector('#table .buttons').scrollIntoView({{block: '{scroll}'}})")
    page.keyboard.press("t")  # take the pile: refused, with its reason
    _toast(page)
    page.wait_for_timeout(300)  # the toast slides in
    toast = page.locator("#toast").bounding_box()
    assert toast is not None and toast["y"] >= 0 and toast["y"] + toast["height"] <= size[1]
    buttons = page.locator("#table .buttons button")
    assert buttons.count() >= 5
    for k in range(buttons.count()):
        b = buttons.nth(k).bounding_box()
        if b is None:
            continue
        overlap = (toast["x"] < b["x"] + b["width"] and b["x"] < toast["x"] + toast["width"]
                   and toast["y"] < b["y"] + b["height"] and b["y"] < toast["y"] + toast["height"])
        assert not overlap, (buttons.nth(k).get_attribute("id"), toast, b)
