"""Pass-and-play privacy, resuming after a server restart, Japanese and the phone layout."""

from __future__ import annotations

import json
import re

import pytest

from .conftest import Server, use_prefs
from .helpers import (
    hand_cards,
    play_simple_turn,
    start_match,
    version,
    wait_my_turn,
)

pytestmark = pytest.mark.browser


def _hands_in_frames(frames: list[str]) -> list[object]:
    out = []
    for f in frames:
        try:
            msg = json.loads(f)
        except ValueError:
            continue
        if msg.get("type") == "state":
            out.append((msg["table"].get("handoff"), msg["view"].get("seat"), msg["view"].get("hand")))
    return out


def test_pass_and_play_never_shows_the_next_hand_before_reveal(page, server):
    use_prefs(page)
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    start_match(page, server.url, mode="local2", target="one_hand", difficulty=None)
    for _turn in range(3):
        # handoff screen: no hand on the page, nothing of any hand in the messages
        page.wait_for_selector("#overlay[data-kind=handoff] #btn-reveal")
        assert page.locator("#hand .card").count() == 0
        assert page.locator(".seat .card:not(.back)").count() == page.locator(".seat-r3 .card").count()
        pending = [h for h in _hands_in_frames(frames) if h[0] is not None]
        assert pending and all(hand is None for _, _, hand in pending)
        who = page.inner_text("#overlay .handoff-text")
        before = version(page)
        page.click("#btn-reveal")
        page.wait_for_function("() => document.body.dataset.overlay !== 'handoff'")
        page.wait_for_function("(v) => document.querySelector('#table').dataset.version !== v || document.querySelectorAll('#hand .card').length > 0", arg=before)
        assert page.locator("#hand .card").count() > 0
        assert re.search(r"Player \d", who)
        # play the turn: draw and discard, which hands the device on
        for _ in range(2):
            if wait_my_turn(page) == "over":
                return
            play_simple_turn(page)
        page.wait_for_function("() => ['handoff', 'hand', 'match'].includes(document.body.dataset.overlay)")
        if page.evaluate("document.body.dataset.overlay") != "handoff":
            return


def test_match_resumes_after_server_restart(page, fresh_server: Server):
    use_prefs(page)
    start_match(page, fresh_server.url, mode="computer4", target=5000)
    assert wait_my_turn(page) == "draw"
    play_simple_turn(page)          # draw
    play_simple_turn(page)          # discard
    assert wait_my_turn(page) == "draw"
    cards = sorted(hand_cards(page))
    scores = page.inner_text("#scorebar")
    fresh_server.stop()
    fresh_server.start()            # same port and database
    page.reload()                   # the address names the table: the reload reconnects to it
    page.wait_for_selector("#table[data-phase]")
    assert wait_my_turn(page) == "draw"
    assert sorted(hand_cards(page)) == cards
    page.goto(fresh_server.url)     # and the start screen offers it under Continue
    page.wait_for_selector("#resume .resume-btn")
    page.click("#resume .resume-btn")
    page.wait_for_selector("#table[data-phase]")
    assert wait_my_turn(page) == "draw"
    assert sorted(hand_cards(page)) == cards
    assert page.inner_text("#scorebar") == scores
    play_simple_turn(page)          # the match carries on
    assert page.get_attribute("#table", "data-phase") == "play"


LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def _visible_text(page) -> str:
    return page.evaluate(
        """() => {
          const parts = [];
          const walk = (root) => {
            const clone = root.cloneNode(true);
            clone.querySelectorAll('kbd, script, style, noscript').forEach(e => e.remove());
            parts.push(clone.innerText || clone.textContent || '');
          };
          for (const el of document.querySelectorAll('#app, #overlay:not([hidden])')) walk(el);
          for (const el of document.querySelectorAll('[aria-label]')) parts.push(el.getAttribute('aria-label'));
          parts.push(document.title);
          return parts.join('\\n');
        }"""
    )


def _english(page) -> list[str]:
    return [w for w in LATIN_WORD.findall(_visible_text(page))]


def test_japanese_page_has_no_english_interface_words(page, server):
    use_prefs(page, lang="ja")
    page.goto(server.url)
    page.wait_for_selector("#btn-start")
    assert _english(page) == []
    page.click("#mode-computer4")
    page.click("details.rules-details summary")
    assert _english(page) == []
    page.click("#btn-start")
    page.wait_for_selector("#table[data-phase]")
    wait_my_turn(page)
    assert _english(page) == []
    for button, selector in (("#btn-settings", "#overlay[data-kind=settings]"), ("#btn-stats", "#overlay[data-kind=stats] .stats"), ("#btn-help", "#overlay[data-kind=help]")):
        page.click(button)
        page.wait_for_selector(selector)
        assert _english(page) == [], button
        page.keyboard.press("Escape")
    page.click("#btn-rules")
    page.wait_for_selector("#rules .rule-section")
    assert _english(page) == []
    page.goto(server.url + "#tutorial")
    page.wait_for_selector("#tutorial .tut-board")
    assert _english(page) == []
    # switching language keeps the same match
    page.goto(server.url)
    page.wait_for_selector("#resume .resume-btn")
    page.select_option("#start-lang", "en")
    page.wait_for_selector("#btn-start >> text=Deal the cards")
    page.click("#resume .resume-btn")
    page.wait_for_selector("#table[data-phase]")


@pytest.mark.parametrize("screen", ["start", "table", "rules", "tutorial"])
def test_phone_layout_has_no_horizontal_scrolling(browser, server, screen):
    context = browser.new_context(viewport={"width": 360, "height": 640}, has_touch=True, is_mobile=True,
                                  bypass_csp=True)  # the test injects a style of its own
    page = context.new_page()
    use_prefs(page)
    if screen == "table":
        start_match(page, server.url, mode="computer4", target=5000)
        wait_my_turn(page)
    else:
        page.goto(server.url + ("" if screen == "start" else f"#{screen}"))
        page.wait_for_selector("#" + screen + " h1, #" + screen + " button")
    page.add_style_tag(content="html, body { overflow-x: visible !important; }")
    width = page.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    assert width <= 360, f"{screen}: content is {width}px wide"
    if screen == "table":
        # every hand card and action button is inside the screen
        for sel in ("#hand .card", ".buttons .act"):
            right = page.eval_on_selector_all(sel, "els => Math.max(...els.map(e => e.getBoundingClientRect().right))")
            assert right <= 360, sel
    context.close()
