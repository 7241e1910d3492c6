"""Stats, settings, rules and the tutorial."""

from __future__ import annotations

import time

import pytest

from .conftest import page_api, use_prefs
from .helpers import play_simple_turn, start_match, wait_my_turn

pytestmark = pytest.mark.browser


def _stat(page, key: str) -> int:
    return int(page.inner_text(f"#overlay [data-stat={key}] dd"))


def test_stats_count_a_match_and_reset_asks_for_confirmation(page, server):
    use_prefs(page)
    start_match(page, server.url, mode="computer2", target="one_hand")
    deadline = time.monotonic() + 240
    while wait_my_turn(page) != "over" and time.monotonic() < deadline:
        play_simple_turn(page)
    page.wait_for_selector("#btn-new-match")
    page.click("#btn-match-stats")
    page.wait_for_selector("#overlay [data-stat=played]")
    page.wait_for_function("() => document.querySelector('#overlay [data-stat=played] dd').textContent !== '0'")
    assert _stat(page, "played") == 1
    page.click("#btn-reset-stats")
    page.wait_for_selector("#btn-reset-confirm")
    assert _stat(page, "played") == 1          # nothing is reset before the confirmation
    page.click("#btn-reset-confirm")
    page.wait_for_function("() => document.querySelector('#overlay [data-stat=played] dd').textContent === '0'")
    assert _stat(page, "won") == 0
    assert page.inner_text("#overlay [data-stat=best_hand] dd") == "—"  # no hand scored: no 0
    # closing the stats brings the end-of-match screen back
    page.click("#overlay .close")
    page.wait_for_selector("#btn-new-match")


def test_settings_switch_language_and_keep_the_match(page, server):
    use_prefs(page)
    start_match(page, server.url, mode="computer4", target=5000)
    wait_my_turn(page)
    hand = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")
    page.click("#btn-settings")
    page.wait_for_selector("#overlay #set-lang")
    page.select_option("#set-lang", "ja")
    page.wait_for_selector("#overlay h2 >> text=設定")
    page.check("#set-fourcolour")
    page.click("#overlay .close")
    page.wait_for_function("() => !document.body.dataset.overlay")
    assert page.inner_text("#btn-draw").startswith("引く")
    assert page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)") == hand
    assert page.evaluate("document.body.classList.contains('four-colour-all')")
    # the computer play that Settings paused carries on (once the server confirms the resume)
    page.wait_for_function(
        "() => { const t = document.querySelector('#btn-pause').innerText;"
        " return !t.includes('Continue') && !t.includes('再開'); }"
    )


def test_settings_opened_and_closed_quickly_leave_the_play_running(page, server):
    """Each opening of Settings pauses the computer play and each closing resumes it, a moment
    later: opened again meanwhile, nothing is sent, so quick openings and closings stay under
    the server's limit on pauses (no "too many requests") and never leave the play paused."""
    use_prefs(page)
    start_match(page, server.url, mode="computer4", target=5000)
    wait_my_turn(page)
    for _ in range(12):
        page.click("#btn-settings")
        page.wait_for_selector("#overlay #set-lang")
        page.keyboard.press("Escape")
        page.wait_for_function("() => !document.body.dataset.overlay")
    page.wait_for_timeout(600)
    assert page.locator(".toast.bad").count() == 0
    assert "Continue" not in page.inner_text("#btn-pause")


def test_rules_page_and_tutorial_steps(page, server):
    use_prefs(page)
    page.goto(server.url)
    page.click("#btn-open-rules")
    page.wait_for_selector("#rules .rule-section")
    assert page.locator("#rules .rule-section").count() >= 8
    page.goto(server.url + "#tutorial")
    page.wait_for_selector("#tutorial .tut-board")

    def tap_hints() -> None:
        for _ in range(page.locator("#tutorial .hand .card.hint").count()):
            page.locator("#tutorial .hand .card.hint").first.click()

    # 1: two groups staged, the count passes the minimum, meld together
    tap_hints()
    page.click("#tutorial .rank-chip")
    assert "30 / 50" in page.inner_text("#tutorial .pile-info")
    tap_hints()
    page.click("#tutorial .rank-chip")
    assert "70 / 50" in page.inner_text("#tutorial .pile-info")
    page.click("#tutorial .act.primary.pulse")
    page.click("text=Next step →")
    # 2: a wrong try is refused; the natural pair takes the frozen pile
    page.locator("#tutorial .hand .card").nth(2).click()      # the wild two
    page.click("#tut-pile")
    page.wait_for_selector("#toast.show")
    page.click("text=Start this step again")
    tap_hints()
    page.click("#tut-pile")
    page.click("text=Next step →")
    # 3 to 5: a wild card and a black three discarded, a red three drawn
    for target in ("#tut-pile", "#tut-pile", "#tut-stock"):
        tap_hints()
        page.click(target)
        page.wait_for_selector("#tutorial[data-done=yes]")
        page.click("text=Next step →")
    # 6: going out: meld the fives, discard the last card
    tap_hints()
    page.click("#tutorial .rank-chip")
    tap_hints()
    page.click("#tut-pile")
    assert page.locator("#tutorial .hand .card").count() == 0
    page.click("text=Next step →")
    # 7: going out concealed: a canasta and a meld from the hand, then the discard
    for _ in range(2):
        tap_hints()
        page.click("#tutorial .rank-chip")
    tap_hints()
    page.click("#tut-pile")
    assert page.locator("#tutorial .hand .card").count() == 0
    page.click("text=Done: play a match")
    page.wait_for_selector("#btn-start")


def test_escape_on_settings_resumes_play_like_the_close_button(page, server):
    """Issue 9, point 5: Esc and × close Settings the same way, and play carries on."""
    use_prefs(page)
    start_match(page, server.url, mode="computer4", target=5000)
    wait_my_turn(page)
    page.click("#btn-settings")
    page.wait_for_selector("#overlay #set-lang")
    page.wait_for_function("() => /Continue/.test(document.querySelector('#btn-pause').innerText)")
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.dataset.overlay")
    page.wait_for_function("() => !/Continue/.test(document.querySelector('#btn-pause').innerText)")
    assert page.evaluate("document.activeElement && document.activeElement.id") == "btn-settings"


def test_the_rules_page_stays_while_the_computers_move(page, server):
    """Issue 9, point 4: a page the player opened stays until they leave it."""
    use_prefs(page, speed="slow")  # 1.5 s per computer move: the rules page opens before the next
    start_match(page, server.url, mode="computer4", target=5000)
    wait_my_turn(page)
    table = page.evaluate("localStorage.getItem('canasta.table')")
    play_simple_turn(page)  # draw
    play_simple_turn(page)  # discard: the three computer seats now play, one move at a time
    page.click("#btn-rules")
    page.wait_for_selector("#rules h1")
    start = page_api(page, "GET", f"/api/tables/{table}")["version"]
    deadline = time.monotonic() + 20
    while page_api(page, "GET", f"/api/tables/{table}")["version"] < start + 1:
        assert time.monotonic() < deadline, "the computers did not move"
        page.wait_for_timeout(100)
    assert page.is_visible("#rules h1") and page.is_hidden("#table")
    page.click("#rules .btn.ghost")  # back to the table, which shows the moves made meanwhile
    page.wait_for_selector("#table:not([hidden])")
    wait_my_turn(page)


def test_individual_rule_settings_lay_out_in_columns_wide_enough_for_their_words(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    use_prefs(page, mode="computer4")
    page.goto(server.url)
    page.wait_for_selector("#btn-start")
    page.click(".rules-details summary")
    boxes = page.eval_on_selector_all(".rules-details .field", "els => els.map(e => e.getBoundingClientRect().toJSON())")
    assert len({round(b["x"]) for b in boxes}) >= 2  # side by side on a desktop, not one narrow column
    # the longest choice shows whole (its select is as wide as its words)
    fits = page.evaluate("""() => { const s = document.querySelector('#rule-wild_limit');
      const probe = document.createElement('span'); probe.style.font = getComputedStyle(s).font;
      probe.textContent = [...s.options].map(o => o.textContent).sort((a, b) => b.length - a.length)[0];
      document.body.append(probe); const w = probe.getBoundingClientRect().width; probe.remove();
      return w + 40 <= s.getBoundingClientRect().width; }""")
    assert fits
    context.close()
