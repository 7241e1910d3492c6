"""Keyboard and screen-reader behaviour: a whole turn by keyboard with focus checked after each
step, dialogs that trap and return focus, the mode radio group, the shortcut setting, the
announcer and reduced motion."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import page_api, use_prefs
from .helpers import (
    first_meld_deal,
    open_finished_hand,
    play_simple_turn,
    start_match,
    version,
    wait_my_turn,
    wait_version_change,
)

pytestmark = pytest.mark.browser

ACTIVE = """() => { const a = document.activeElement; if (!a || a === document.body) return null;
  return { id: a.id, card: a.dataset.card || null, i: a.dataset.i ?? null, cls: a.className,
           inHand: !!a.closest('#hand'), inDialog: !!a.closest('#overlay .dialog'),
           pressed: a.getAttribute('aria-pressed') }; }"""


def active(page: Any) -> dict[str, Any] | None:
    return page.evaluate(ACTIVE)


def _deal_with_a_two_group_opening() -> tuple[int, list[dict[str, Any]]]:
    """A seed where, after drawing, the first player can open with two groups and no discard."""
    return first_meld_deal(
        lambda state, a: len(a["groups"]) == 2 and "discard" not in a
        and all(g["rank"] != "T" for g in a["groups"])
    )


def _open_local_table(page: Any, server: Any, seed: int) -> None:
    page.goto(server.url)
    page.wait_for_selector("#btn-start")
    table = page_api(page, "POST", "/api/tables", {"mode": "local", "players": 2, "preset": "two-player",
                                                  "rules": {"target": "one_hand"}, "seed": seed})["table"]
    page.goto(server.url + f"#table={table}")


def _arrow_to(page: Any, card: str) -> None:
    """Move focus along the hand with the arrow keys to a free card showing ``card``."""
    order = page.eval_on_selector_all(
        "#hand .card", "els => els.map(e => [e.dataset.card, e.classList.contains('planned') || e.classList.contains('selected')])")
    here = page.evaluate("() => [...document.querySelectorAll('#hand .card')].indexOf(document.activeElement)")
    target = next(k for k, (c, busy) in enumerate(order) if c == card and not busy)
    key = "ArrowRight" if target > here else "ArrowLeft"
    for _ in range(abs(target - here)):
        page.keyboard.press(key)
    a = active(page)
    assert a and a["inHand"] and a["card"] == card


def test_a_whole_turn_by_keyboard_keeps_focus_in_place(page, server):
    seed, groups = _deal_with_a_two_group_opening()
    use_prefs(page)
    _open_local_table(page, server, seed)
    # the handoff dialog takes focus: Enter reveals the hand, and focus lands on its first card
    page.wait_for_selector("#overlay[data-kind=handoff] #btn-reveal")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'btn-reveal'")
    page.keyboard.press("Enter")
    assert wait_my_turn(page) == "draw"
    page.wait_for_function("() => document.activeElement && document.activeElement.closest('#hand .card')")
    # D draws; focus moves to the card just drawn
    before = version(page)
    page.keyboard.press("d")
    wait_version_change(page, before)
    page.wait_for_function("() => document.activeElement && document.activeElement.matches('#hand .card.fresh')")
    # select each group with arrows and Space, stage it with the rank's key
    for k, group in enumerate(groups):
        for card in group["cards"]:
            _arrow_to(page, card)
            page.keyboard.press("Space")
            a = active(page)
            assert a and a["card"] == card and a["pressed"] == "true", a  # focus stays on the card
        page.keyboard.press(group["rank"].lower())
        page.wait_for_selector(f".plan-group[data-rank='{group['rank']}']")
        a = active(page)
        assert a and a["inHand"] and "planned" not in a["cls"], a  # on to the next free card
        label = page.get_attribute(f".plan-group[data-rank='{group['rank']}']", "aria-label") or ""
        assert label.startswith(group["rank"]) and "staged" in label
        assert page.locator(".plan-group").count() == k + 1
    page.wait_for_selector("#validation.ok")
    # F melds both groups; focus returns to the hand (not to <body>)
    before = version(page)
    page.keyboard.press("f")
    wait_version_change(page, before)
    for group in groups:
        page.wait_for_selector(f"#our-melds .meld[data-rank='{group['rank']}']")
    page.wait_for_function("() => document.activeElement && document.activeElement.closest('#hand .card')")
    announced = page.inner_text("#announcer")
    assert "melded" in announced
    # the hand is one Tab stop: Tab leaves it for the buttons, Shift+Tab comes back to the same card
    card = active(page)["i"]
    page.keyboard.press("Tab")
    a = active(page)
    assert a and not a["inHand"] and a["id"].startswith("btn-"), a
    page.keyboard.press("Shift+Tab")
    assert active(page)["i"] == card
    # Space selects the focused card, X discards it; the handoff dialog then takes focus
    page.keyboard.press("End")
    name = (page.evaluate("document.activeElement.getAttribute('aria-label')") or "").split(", ")[1]
    page.keyboard.press("Space")
    before = version(page)
    page.keyboard.press("x")
    wait_version_change(page, before)
    page.wait_for_selector("#overlay[data-kind=handoff] #btn-reveal")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'btn-reveal'")
    assert page.evaluate("document.getElementById('app').inert")
    # the announcer spoke each move, with the discarded card
    text = page.inner_text("#announcer")
    assert f"discarded the {name}" in text, text
    # and at the hand-off it holds nothing of the hand: the cards just drawn are gone from it
    assert " drew " not in text, text
    # the first Tab stays in the handoff dialog
    page.keyboard.press("Tab")
    assert active(page)["inDialog"]


@pytest.mark.parametrize(("opener", "kind"), [("#btn-settings", "settings"), ("#btn-stats", "stats"), ("#btn-help", "help")])
def test_dialogs_take_trap_and_return_focus(page, server, opener, kind):
    use_prefs(page)
    start_match(page, server.url, mode="computer4", target=5000)
    wait_my_turn(page)
    page.focus(opener)
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#overlay[data-kind={kind}]")
    page.wait_for_function("() => document.activeElement && document.activeElement.closest('#overlay .dialog')")
    assert page.evaluate("document.getElementById('app').inert")
    for key in ["Tab"] * 40 + ["Shift+Tab"] * 15:
        page.keyboard.press(key)
        a = active(page)
        assert a and a["inDialog"], (key, a)
    if kind != "settings":
        # × closes; focus goes back to the button that opened the dialog
        page.click("#overlay .close")
    else:
        page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.dataset.overlay")
    assert not page.evaluate("document.getElementById('app').inert")
    assert active(page)["id"] == opener[1:]


def _open_inner_dialog_and_close_it(page: Any, outer: str, opener: str, inner: str) -> None:
    """From dialog ``outer``, open dialog ``inner`` by the keyboard on ``opener``; Esc closes it."""
    page.wait_for_selector(f"#overlay[data-kind={outer}] {opener}")
    page.focus(opener)
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#overlay[data-kind={inner}]")
    page.keyboard.press("Escape")


def _wait_focus_in_dialog(page: Any) -> None:
    page.wait_for_function("() => document.activeElement && document.activeElement.closest('#overlay .dialog')")


def test_a_dialog_opened_from_the_end_of_a_match_gives_focus_back_to_its_button(page, quick_server):
    """The stats opened from the end of a match, then closed: the end of the match comes back
    with focus on "Your stats", not on "New match" (Enter again must not start a match)."""
    open_finished_hand(page, quick_server, "two-player")
    _open_inner_dialog_and_close_it(page, "match", "#btn-match-stats", "stats")
    page.wait_for_selector("#overlay[data-kind=match] #btn-new-match")
    _wait_focus_in_dialog(page)
    assert active(page)["id"] == "btn-match-stats"
    # a match dialog opened afresh later still focuses its first choice
    page.click("#btn-peek")
    page.click("#btn-peek-back")
    page.wait_for_selector("#overlay[data-kind=match] #btn-new-match")
    _wait_focus_in_dialog(page)
    assert active(page)["id"] == "btn-new-match"


def test_a_dialog_opened_afresh_later_does_not_focus_an_old_opener(page, server):
    """Profile opened from the account panel, then closed (the panel does not come back): the
    account panel opened later focuses what it always does, not the Profile link."""
    use_prefs(page)
    page.goto(server.url)
    page.wait_for_selector("body.ready")
    page.click("#btn-account")
    _open_inner_dialog_and_close_it(page, "account", "#btn-profile", "profile")
    page.wait_for_function("() => !document.body.dataset.overlay")
    page.click("#btn-account")
    page.wait_for_selector("#overlay[data-kind=account] #btn-profile")
    _wait_focus_in_dialog(page)
    assert active(page)["id"] != "btn-profile"


def test_a_heading_focused_for_screen_readers_draws_no_ring_but_controls_do(page, server):
    """A new screen focuses its heading (screen readers read it first); on a fresh load the
    browser counts that as keyboard focus, which drew the focus ring across the page's top."""
    use_prefs(page)
    page.goto(server.url)
    page.wait_for_selector("#btn-start")
    page.wait_for_function("document.activeElement && document.activeElement.tagName === 'H1'")
    ring = "getComputedStyle(document.activeElement).outlineStyle"
    assert page.evaluate(ring) == "none"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.tagName") != "H1"
    assert page.evaluate(ring) != "none"  # a control reached by Tab still shows where it is


def test_mode_choices_are_a_radio_group_with_arrow_keys(page, server):
    use_prefs(page, mode="computer4")
    page.goto(server.url)
    page.wait_for_selector("#btn-start")
    stops = page.eval_on_selector_all("[role=radiogroup] [role=radio]", "els => els.filter(e => e.tabIndex === 0).map(e => e.id)")
    assert stops == ["mode-computer4"]
    page.focus("#mode-computer4")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#mode-computer2[aria-checked=true]")
    assert active(page)["id"] == "mode-computer2"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#mode-local4[aria-checked=true]")   # wraps around
    assert active(page)["id"] == "mode-local4"
    assert page.locator("[role=radio][aria-checked=true]").count() == 1


def test_single_key_shortcuts_can_be_turned_off(page, server):
    use_prefs(page, shortcuts=False)
    start_match(page, server.url, mode="computer4", target=5000)
    assert wait_my_turn(page) == "draw"
    assert page.locator("#btn-draw kbd").count() == 0
    assert page.get_attribute("#btn-draw", "aria-keyshortcuts") is None
    before = version(page)
    page.locator("#table").focus()
    page.keyboard.press("d")
    page.keyboard.press("?")
    page.wait_for_timeout(400)
    assert version(page) == before and not page.evaluate("document.body.dataset.overlay")
    # turned back on in Settings: the key hints return (hidden from screen readers) and D draws
    page.click("#btn-settings")
    page.check("#set-shortcuts")
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.dataset.overlay")
    assert page.get_attribute("#btn-draw kbd", "aria-hidden") == "true"
    assert page.get_attribute("#btn-draw", "aria-keyshortcuts") == "D"
    assert page.evaluate("JSON.parse(localStorage.getItem('canasta.prefs')).shortcuts") is True
    page.locator("#table").focus()
    page.keyboard.press("d")
    wait_version_change(page, before)


def test_the_announcer_is_one_persistent_region_that_speaks_moves(page, server):
    use_prefs(page, speed="fast")
    start_match(page, server.url, mode="computer4", target=5000)
    page.evaluate("document.getElementById('announcer').dataset.mark = 'same'")
    wait_my_turn(page)
    before = version(page)
    state = page.evaluate("[document.body.dataset.overlay || null, document.getElementById('app').inert]")
    assert state == [None, False], state  # no dialog over the table at our turn
    page.click("#stock")
    wait_version_change(page, before)
    assert "You drew" in page.inner_text("#announcer")   # with the card's name
    page.locator("#hand .card").last.click()
    before = version(page)
    page.click("#pile")
    wait_version_change(page, before)
    # after the discard, focus waits in the hand (not on <body>)
    page.wait_for_function("() => document.activeElement && document.activeElement.closest('#hand .card')")
    wait_my_turn(page)
    assert page.get_attribute("#announcer", "data-mark") == "same"
    text = page.inner_text("#announcer")
    # the deal is random: in about 1 deal of 750 a computer seat goes out before our second
    # turn (4 in 3,000 simulated), and then the last words are the hand's end
    assert text.endswith("Your turn.") or text.endswith("The hand is over."), text
    assert "Left opponent" in text and "discarded the" in text
    # nothing else on the table is a live region that the redraws would rebuild
    assert page.locator("#app [aria-live]").count() == 0
    # the turn is written out; the other sides' melds sit under headings
    assert page.locator(".melds h2.side-name").count() >= 2


def test_reduced_motion_stops_pulses_and_thinking_dots(browser, server):
    context = browser.new_context(reduced_motion="reduce")
    page = context.new_page()
    use_prefs(page)
    page.goto(server.url + "#tutorial")
    page.wait_for_selector("#tutorial .hand .card.hint")
    assert page.eval_on_selector("#tutorial .hand .card.hint", "e => getComputedStyle(e).animationName") == "none"
    assert page.evaluate("getComputedStyle(document.documentElement).scrollBehavior") == "auto"
    start_match(page, server.url, mode="computer4", target=5000)
    if wait_my_turn(page) == "draw":   # our turn first: play it so that another seat is active
        play_simple_turn(page)
        play_simple_turn(page)
    # Query and read in one evaluation: the table redraws on every state, and an element found in one
    # round trip may be detached by the next (a detached element has no computed style at all).
    thinking = page.wait_for_function(
        """() => {
            const e = document.querySelector(".seat.active .seat-name");
            return e && e.isConnected ? getComputedStyle(e, "::after").animationName : null;
        }""",
        timeout=60_000,
    ).json_value()
    assert thinking == "none"
    context.close()


def test_tutorial_by_keyboard_keeps_focus_and_moves_on(page, server):
    use_prefs(page)
    page.goto(server.url + "#tutorial")
    page.wait_for_selector("#tutorial .hand .card.hint")
    for k in range(3):  # the three kings: Space on each; focus stays on the card
        page.focus("#tutorial .hand .card.hint")
        card = active(page)["i"]
        page.keyboard.press("Space")
        if k < 2:
            a = active(page)
            assert a and a["i"] == card and a["pressed"] == "true", a
    # the last one selected: focus moves on to the rank to stage on; Enter stages there
    page.wait_for_function("() => document.activeElement && document.activeElement.matches('#tutorial .rank-chip')")
    page.keyboard.press("Enter")
    # and on to the next highlighted card (the eights and the two)
    page.wait_for_function("() => document.activeElement && document.activeElement.matches('#tutorial .hand .card.hint')")
    while page.locator("#tutorial .hand .card.hint").count():
        page.focus("#tutorial .hand .card.hint")
        page.keyboard.press("Space")
    # the 8 key on a selected card stages there, as at the table; then focus is on Meld
    page.focus("#tutorial .hand .card.selected")
    page.keyboard.press("8")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'tut-meld'")
    assert "70 / 50" in page.inner_text("#tutorial .pile-info")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'tut-next'")
