"""Playing through the page against the computer, with clicks and with the keyboard."""

from __future__ import annotations

import re
import time

import pytest

from .conftest import page_api, use_prefs
from .helpers import (
    hand_cards,
    play_simple_turn,
    start_match,
    version,
    wait_my_turn,
    wait_version_change,
)
from .positions import asked_to_go_out, open_position

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("mode", ["computer4", "computer3"])
def test_play_a_complete_hand_against_the_computer_with_clicks(page, server, mode):
    """Four players (a computer partner), and three (R14: everyone alone until a pile is taken)."""
    use_prefs(page)
    start_match(page, server.url, mode=mode, target="one_hand", difficulty="normal")
    seats = page.evaluate("fetch('/api/tables/' + localStorage.getItem('canasta.table')).then(r => r.json())")
    players = 3 if mode == "computer3" else 4
    assert [s["kind"] for s in seats["seats"]] == ["human"] + ["computer"] * (players - 1)
    assert seats["settings"]["players"] == players
    deadline = time.monotonic() + 240
    turns = 0
    while time.monotonic() < deadline:
        if wait_my_turn(page) == "over":
            break
        play_simple_turn(page)
        turns += 1
    else:
        pytest.fail("the hand did not end")
    assert turns > 0
    page.wait_for_selector("#overlay .breakdown")
    text = page.inner_text("#overlay")
    totals = page.eval_on_selector_all("#overlay .totals p span", "els => els.map(e => e.textContent)")
    # every player keeps a total of their own in the three-player game, partnered or not
    assert totals == (["You", "Left opponent", "Right opponent"] if mode == "computer3" else ["Our side", "Their side"])
    for label in ("Melded cards", "Natural canastas", "Mixed canastas", "Red threes", "Cards left in hand", "Hand total"):
        assert label in text
    # the final table can be looked at, then the scores come back
    page.click("#btn-peek")
    page.wait_for_selector("#btn-peek-back")
    assert page.locator("#overlay .breakdown").count() == 0
    page.click("#btn-peek-back")
    page.wait_for_selector("#overlay .breakdown")
    text = page.inner_text("#overlay")
    # one-hand match: the match is over, a winner (or a draw) is named and a new match can start
    assert page.locator("#btn-new-match").is_visible()
    assert re.search(r"Winner|drawn", text)
    page.click("#btn-new-match")
    page.wait_for_function("() => !document.body.dataset.overlay")
    assert page.get_attribute("#table", "data-phase") in ("draw", "play")


def test_opening_minimum_message_when_a_plan_is_short(page, server):
    use_prefs(page)
    for _attempt in range(15):
        start_match(page, server.url, mode="computer4", target=5000)
        if wait_my_turn(page) != "draw" or page.locator(".melds.ours .tag.ok").count():
            continue  # partner opened already: no minimum to show
        before = version(page)
        page.click("#stock")
        wait_version_change(page, before)
        cards = hand_cards(page)
        # A group worth less than 50: three naturals of 4..K, or two naturals of 4..K and a two.
        by_rank: dict[str, list[int]] = {}
        for i, c in enumerate(cards):
            by_rank.setdefault("JK" if c == "JK" else c[0], []).append(i)
        twos = by_rank.get("2", [])
        pick = None
        for rank, idx in by_rank.items():
            if rank in list("456789TJQK"):
                if len(idx) >= 3:
                    pick = (rank, idx[:3])
                elif len(idx) == 2 and twos:
                    pick = (rank, idx + twos[:1])
            if pick:
                break
        if not pick:
            continue
        rank, idx = pick
        hand = page.locator("#hand .card")
        for i in idx:
            hand.nth(i).click()
        page.click(f"#targets .rank-chip[data-rank='{rank}']")
        page.wait_for_selector("#validation.bad")
        msg = page.inner_text("#validation")
        assert re.search(r"count \d+; your side needs 50 to open", msg), msg
        assert "/ 50" in page.inner_text("#planbar")
        # × returns the group; Esc clears everything
        page.click(".plan-group .plan-x")
        assert page.locator(".plan-group").count() == 0
        return
    pytest.skip("no deal offered a short opening group")


def test_keyboard_shortcuts(page, server):
    use_prefs(page, speed="slow")
    start_match(page, server.url, mode="computer4", target=5000)
    assert wait_my_turn(page) == "draw"
    page.locator("#table").focus()
    # S sorts the hand by suit and back
    label = page.inner_text("#btn-sort")
    page.keyboard.press("s")
    assert page.inner_text("#btn-sort") != label
    page.keyboard.press("s")
    # D draws
    before = version(page)
    page.keyboard.press("d")
    wait_version_change(page, before)
    assert page.get_attribute("#table", "data-phase") == "play"
    n = len(hand_cards(page))
    # Esc clears a selection
    page.locator("#hand .card").first.click()
    assert page.locator("#hand .card.selected").count() == 1
    page.keyboard.press("Escape")
    assert page.locator("#hand .card.selected").count() == 0
    # X discards the selected card, U takes the discard back before the next seat acts
    page.locator("#hand .card").last.click()
    before = version(page)
    page.keyboard.press("x")
    wait_version_change(page, before)
    assert len(hand_cards(page)) == n - 1
    before = version(page)
    page.keyboard.press("u")
    wait_version_change(page, before)
    assert len(hand_cards(page)) == n
    assert page.get_attribute("#table", "data-phase") == "play"
    # M toggles sound, ? opens help, Esc closes it
    page.keyboard.press("m")
    page.wait_for_selector("#toast.show")
    assert "Sound on" in page.inner_text("#toast")
    page.keyboard.press("?")
    page.wait_for_selector("#overlay[data-kind=help] .keys")
    page.keyboard.press("Escape")
    page.wait_for_function("() => !document.body.dataset.overlay")
    # T with the pile: in the play phase it does nothing harmful; F with no plan does nothing
    page.keyboard.press("f")
    assert page.get_attribute("#table", "data-phase") == "play"


def test_suggestion_and_pause(page, server):
    use_prefs(page, speed="slow")
    start_match(page, server.url, mode="computer4", target=5000)
    page.click("#btn-pause")
    page.wait_for_selector("#btn-pause >> text=Continue")
    page.click("#btn-pause")
    page.wait_for_selector("#btn-pause >> text=Pause")
    assert wait_my_turn(page) == "draw"
    page.click("#btn-suggest")
    page.wait_for_selector("#planbar .notice")
    text = page.inner_text("#planbar")
    assert "No legal suggestion" in text or "Suggestion" in text


def test_suggested_plans_commit_as_one_action(page, server):
    """Suggest stages the server's plan as groups; Take pile / Meld commits that plan."""
    use_prefs(page)
    start_match(page, server.url, mode="computer4", target=5000)
    committed = 0
    for _turn in range(60):
        phase = wait_my_turn(page)
        if phase == "over":
            break
        page.click("#btn-suggest")
        page.wait_for_function("() => document.querySelector('#planbar .notice') || document.querySelector('.plan-group')")
        if page.locator(".plan-group").count():
            page.wait_for_selector("#validation")
            assert page.locator("#validation.ok").count() == 1, page.inner_text("#planbar")
            before = version(page)
            page.click("#btn-take" if phase == "draw" else "#btn-meld")
            wait_version_change(page, before)
            assert not page.locator("#toast.show.bad").count()
            committed += 1
            if committed >= 2:
                return
            if page.get_attribute("#table", "data-phase") == "play" and wait_my_turn(page) == "play":
                if page.locator("#btn-discard").is_visible():
                    play_simple_turn(page)
            continue
        play_simple_turn(page)
    if committed == 0:
        pytest.skip("no suggestion came up in this deal")


@pytest.mark.parametrize("answer", [True, False])
def test_after_the_partners_answer_the_status_says_what_is_left(page, quick_server, answer):
    """R11: after a yes the player must go out now, and no plain discard is offered; after a no
    they may not go out this turn. The status line says which."""
    use_prefs(page)
    seed, actions = asked_to_go_out(answer)
    open_position(page, quick_server.url, seed, actions, rules={"ask_partner": True})
    status = page.inner_text("#status")
    if answer:
        assert status.startswith("Your partner said yes: go out now.")
    else:
        assert status.startswith("Your partner said no:") and "may not go out" in status
    page.locator("#hand .card").first.click()  # one card selected: a discard, if one is legal
    page.wait_for_selector("#hand .card.selected")
    assert page.is_enabled("#btn-discard") is (not answer)


def test_three_players_the_first_take_makes_partners_and_the_page_says_so(page, server):
    """R14: whoever first takes the pile plays on alone; the page names the other computer
    player my partner from then on, and says so once (toast and screen reader)."""
    use_prefs(page)
    page.goto(server.url)
    page.wait_for_selector("#btn-start")
    table = page_api(page, "POST", "/api/tables", {"mode": "computer", "preset": "three-player", "seed": 7,
                                                   "difficulty": "beginner", "rules": {"target": "one_hand"}})["table"]
    page.goto(server.url + f"#table={table}")
    page.wait_for_selector("#table[data-phase]")
    deadline = time.monotonic() + 60
    while "plays on alone" not in page.inner_text("#announcer"):  # (seed 7: after my second turn)
        assert time.monotonic() < deadline and wait_my_turn(page) != "over", "nobody took the pile"
        play_simple_turn(page)
    said = [line for line in page.inner_text("#announcer").splitlines() if "plays on alone" in line]
    assert len(said) == 1 and said[0].endswith("the other two are partners now.")
    alone = said[0].split(" took the pile first")[0]
    header = page.inner_text("#scorebar")
    partner = "Right partner" if alone == "Left opponent" else "Left partner"
    assert alone in header and partner in header and "opponent" in alone, header


def test_a_one_card_pile_is_one_card_not_one_cards(page, server):
    use_prefs(page)
    page.goto(server.url)
    page.wait_for_selector("#btn-start")
    said = page.evaluate("""async () => {
      const i18n = await import('/static/js/i18n.js');
      const reasons = await import('/static/js/reasons.js');
      return [i18n.t('moves.take_cards', { name: 'You', n: 1 }), i18n.t('log.take', { n: 2 }),
              reasons.reasonText({ code: 'take_pair', size: 1, rank: '7' }, null),
              reasons.reasonText({ code: 'take_pair', size: 5, rank: '7' }, null)];
    }""")
    assert said == ["You took the pile (1 card).", "took the pile (2 cards)",
                    "Take the pile: 1 card, with your pair of 7s.", "Take the pile: 5 cards, with your pair of 7s."]


def test_a_suggested_answer_to_may_i_go_out_stands_out(page, quick_server):
    use_prefs(page)
    seed, actions = asked_to_go_out(None, asker=2)
    open_position(page, quick_server.url, seed, actions, rules={"ask_partner": True})
    assert page.get_attribute("#table", "data-phase") == "ask"
    assert "primary" not in (page.get_attribute("#btn-yes", "class") or "")
    page.click("#btn-suggest")
    page.wait_for_selector("#btn-yes.primary, #btn-no.primary")
    assert page.locator("#btn-yes.primary, #btn-no.primary").count() == 1
