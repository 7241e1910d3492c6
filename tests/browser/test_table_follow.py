"""Following the table (issue 9): the move log, each seat's last move, Continue CPU, a meld's
cards, and every hand shown at the end of the hand."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import use_prefs
from .helpers import (
    hand_cards,
    open_finished_hand,
    open_seeded_two_player,
    start_match,
    version,
    wait_my_turn,
    wait_version_change,
)
from .positions import many_melds, open_position
from .test_pile import _deal_with_a_natural_pair_take

pytestmark = pytest.mark.browser

SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def short(card: str) -> str:
    """A card as the page writes it: "KH" -> "K♥", "TD" -> "10♦", "JK" -> "★"."""
    if card == "JK":
        return "★"
    return ("10" if card[0] == "T" else card[0]) + SUITS[card[1]]



def log_items(page: Any) -> list[dict[str, Any]]:
    return list(page.eval_on_selector_all(
        "#movelog-list li.log-item",
        "els => els.map(e => ({ seat: e.dataset.seat == null ? null : Number(e.dataset.seat),"
        " who: (e.querySelector('.log-who') || {}).textContent || '', what: e.querySelector('.log-what').textContent }))"))


def test_the_move_log_lists_each_seats_moves_with_their_cards(page, server):
    use_prefs(page)
    start_match(page, server.url, "computer4")
    assert wait_my_turn(page) == "draw"
    before = hand_cards(page)
    v = version(page)
    page.click("#stock")
    wait_version_change(page, v)
    drawn = [c for c in hand_cards(page) if hand_cards(page).count(c) > before.count(c)]
    # my own draw names the card (my view has it); a list, not a live region
    assert page.locator("#movelog ol#movelog-list").count() == 1
    assert page.get_attribute("#movelog", "aria-live") is None
    mine = [i for i in log_items(page) if i["seat"] == 0]
    assert mine and short(drawn[0]) in mine[-1]["what"], (drawn, mine)
    card = page.locator("#hand .card").last.get_attribute("data-card")
    page.locator("#hand .card").last.click()
    v = version(page)
    page.click("#pile")
    wait_version_change(page, v)
    assert wait_my_turn(page) in ("draw", "over")
    items = log_items(page)
    assert any(i["seat"] == 0 and f"discarded {short(card)}" in i["what"] for i in items)
    # the three computer seats each drew (how many, not which) and discarded a named card
    for seat in (1, 2, 3):
        theirs = [i for i in items if i["seat"] == seat]
        assert theirs, f"no move of seat {seat} in the log"
        assert all(i["who"] for i in theirs)
        # their draws say how many cards, never which
        for i in theirs:
            first = i["what"].split(";")[0]
            if first.startswith("drew"):
                assert first in ("drew a card", "drew 2 cards"), i
        # the seat's badge shows its last move, as the log words it
        badge = page.locator(f".seat[data-seat='{seat}'] .seat-last").inner_text()
        assert badge == theirs[-1]["what"]
    top = page.get_attribute("#pile .card", "data-card")
    if page.get_attribute("#table", "data-phase") == "draw" and top:
        assert f"discarded {short(top)}" in items[-1]["what"], items[-1]
    # folded and unfolded by its heading's button
    page.click("#movelog-title")
    assert page.get_attribute("#movelog-title", "aria-expanded") == "false"
    assert not page.is_visible("#movelog-list")
    page.click("#movelog-title")
    assert page.is_visible("#movelog-list")


def test_the_log_names_a_take_with_the_pile_size_and_its_top_card(page, server):
    seed, pair, top, size = _deal_with_a_natural_pair_take()
    use_prefs(page)
    open_seeded_two_player(page, server.url, seed)
    cards = hand_cards(page)
    used: list[int] = []
    for card in pair:
        idx = next(i for i, c in enumerate(cards) if c == card and i not in used)
        used.append(idx)
        page.locator("#hand .card").nth(idx).click()
    v = version(page)
    page.click("#pile")
    wait_version_change(page, v)
    last = log_items(page)[-1]
    assert f"took the pile ({size} cards, {short(top)} on top)" in last["what"], last
    rank = "10" if top[0] == "T" else top[0]
    assert f"melded {rank}: {short(top)} {short(pair[0])} {short(pair[1])}" in last["what"], last


def test_continue_cpu_plays_exactly_one_computer_move_per_press(page, server):
    use_prefs(page, speed="slow")  # 1.5 s between computer moves: time to pause
    start_match(page, server.url, "computer4")
    assert wait_my_turn(page) == "draw"
    v = version(page)
    page.click("#stock")
    wait_version_change(page, v)
    page.locator("#hand .card").last.click()
    page.click("#pile")
    page.click("#btn-pause")
    page.wait_for_selector("#btn-step:not([disabled])")
    count = len(log_items(page))
    page.click("#btn-step")
    page.wait_for_function("(n) => document.querySelectorAll('#movelog-list li.log-item').length > n", arg=count)
    page.wait_for_timeout(2500)
    items = log_items(page)
    assert len(items) == count + 1 and items[-1]["seat"] == 1
    assert "Continue" in page.inner_text("#btn-pause")  # still paused
    page.click("#btn-step")
    page.wait_for_function("(n) => document.querySelectorAll('#movelog-list li.log-item').length > n", arg=count + 1)
    page.wait_for_timeout(500)
    assert len(log_items(page)) == count + 2
    # resumed: the computers play on by themselves, and the button goes
    page.click("#btn-pause")
    page.wait_for_selector("#btn-step", state="detached")
    assert wait_my_turn(page) in ("draw", "over")


def test_a_meld_opens_to_show_its_cards_and_bonus(page, quick_server):
    page.set_viewport_size({"width": 1366, "height": 768})
    use_prefs(page)
    seed, actions = many_melds()
    open_position(page, quick_server.url, seed, actions)
    canasta = page.locator("#our-melds .meld.canasta").first
    rank = canasta.get_attribute("data-rank")
    label = canasta.inner_text()
    canasta.locator("button.meld-meta").click()
    page.wait_for_selector("#overlay[data-kind=meld] .dialog")
    dialog = page.locator("#overlay .dialog")
    n = int(label.split("×")[1].split()[0])
    cards = dialog.locator(".meld-cards li .card")
    assert cards.count() == n
    faces = cards.evaluate_all("els => els.map(e => e.dataset.card)")
    assert all(c[0] == rank or c[0] == "2" or c == "JK" for c in faces), faces
    wilds = sum(1 for c in faces if c[0] == "2" or c == "JK")
    text = dialog.inner_text()
    assert ("Natural canasta" in text) == (wilds == 0)
    assert ("+500" if wilds == 0 else "+300") in text
    assert f"Wild cards ({wilds})" in text or wilds == 0
    page.keyboard.press("Escape")
    page.wait_for_selector("#overlay[data-kind=meld]", state="detached")
    assert page.evaluate("document.activeElement.classList.contains('meld-meta')")
    # another side's meld opens the same way
    page.locator(".melds.theirs .meld button.meld-meta").first.click()
    page.wait_for_selector("#overlay[data-kind=meld] .meld-cards")
    page.click("#overlay .close")


def test_the_score_screen_shows_the_cards_left_in_every_hand(page, quick_server):
    open_finished_hand(page, quick_server)
    # a one-hand match: the end of the hand is the end of the match
    page.wait_for_selector("#overlay[data-kind=match] #hands-left")
    rows = page.locator("#hands-left li.hand-left")
    assert rows.count() == 2
    total = 0
    for k in range(2):
        row = rows.nth(k)
        n = row.locator(".card").count()
        total += n
        assert (f"{n} cards" in row.inner_text()) or (n == 1 and "1 card" in row.inner_text()) or (n == 0 and "no cards" in row.inner_text())
        if n:
            name = row.locator(".hand-left-cards").get_attribute("aria-label") or ""
            assert name.count(",") >= n - 1
    assert total > 0
