"""The start page's "Continue" is only for a match the reader plays and that is not over; a
table the reader only watches names no seat "You" and offers none of its owner's controls."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Server
from tests.browser.helpers import start_match, wait_my_turn
from tests.browser.test_online import ONLINE, contexts, quick_match, seat_labels, watch_from_lobby


@pytest.fixture
def lobby_server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "canasta.db", config=ONLINE)
    s.start()
    yield s
    s.stop()


def resume_offers(page: Any, url: str) -> list[str]:
    """The start page's "Continue" buttons, each as its text (what it says it continues)."""
    page.goto(url)
    page.wait_for_selector("#btn-start")
    page.wait_for_timeout(600)  # the offers are filled in after the server answers
    return list(page.eval_on_selector_all("#resume .resume-btn", "els => els.map(e => e.innerText)"))


def test_a_watched_online_match_is_offered_to_its_player_but_not_to_a_spectator(browser, lobby_server):
    a, b, watcher = contexts(browser, 3)
    table = quick_match([a, b], lobby_server.url, "two-player")
    watch_from_lobby(watcher, lobby_server.url, table)
    assert resume_offers(watcher, lobby_server.url) == []
    # the player's own match is offered, and says what it is
    offers = resume_offers(a, lobby_server.url)
    assert len(offers) == 1 and "Online play" in offers[0], offers
    a.click("#resume .resume-btn")
    a.wait_for_selector("#hand .card")
    for page in (a, b, watcher):
        assert not page.errors, page.errors


def test_a_left_online_match_is_not_offered_to_continue(browser, lobby_server):
    a, b = contexts(browser, 2)
    quick_match([a, b], lobby_server.url, "two-player")
    a.click("#btn-leave-match")
    a.click("#btn-leave-confirm")
    a.wait_for_selector("#table .seats", state="hidden", timeout=10_000)
    assert resume_offers(a, lobby_server.url) == []
    a.reload()
    a.wait_for_selector("#btn-start")
    a.wait_for_timeout(600)
    assert a.locator("#resume .resume-btn").count() == 0
    assert a.evaluate("localStorage.getItem('canasta.table')") is None
    for page in (a, b):
        assert not page.errors, page.errors


def test_a_strangers_view_of_a_computer_table_names_nobody_you_and_offers_no_pause(browser, server):
    owner, stranger = contexts(browser, 2)
    start_match(owner, server.url, mode="computer4", target=5000)
    wait_my_turn(owner)
    link = owner.evaluate("location.href")
    stranger.goto(link)
    stranger.wait_for_selector("#table[data-phase] .seats")
    assert stranger.locator("#hand .card").count() == 0
    labels = seat_labels(stranger)
    assert len(labels) == 4 and "You" not in labels, labels  # every seat, the owner's as a player
    assert "Player 1" in labels
    assert "You" not in stranger.inner_text("#status")
    assert "Your side" not in stranger.inner_text("#table")
    for control in ("#btn-pause", "#btn-step", "#btn-undo", "#btn-suggest", "#btn-draw", "#btn-meld"):
        assert stranger.locator(control).count() == 0, control
    # nor is the owner's match offered to the stranger on the start page
    assert resume_offers(stranger, server.url) == []
    # the owner's own view is unchanged: "You", and Pause
    assert owner.locator("#btn-pause").count() == 1
    assert resume_offers(owner, server.url) != []
    for page in (owner, stranger):
        assert not page.errors, page.errors


#: the owner's own socket plays its seat to the end of the match: a discard when one is legal,
#: else the first legal action (the draw), so the hand ends quickly against the computer
PLAY_OUT = """async (id) => {
  const ws = new WebSocket(`ws://${location.host}/ws/tables/${encodeURIComponent(id)}`);
  return await new Promise((resolve, reject) => {
    ws.onerror = () => reject(new Error('socket error'));
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type !== 'state') return;
      if (m.table.match && m.table.match.over) { ws.close(); resolve(m.version); return; }
      const v = m.view;
      if (v.turn !== v.seat || !v.legal.length) return;
      const action = v.legal.find((a) => a.type === 'discard') || v.legal[0];
      ws.send(JSON.stringify({ type: 'action', version: m.version, action }));
    };
  });
}"""


def test_a_stranger_at_a_finished_computer_match_gets_none_of_its_players_buttons(browser, server):
    """The end of someone else's match shows its scores, the winner and its replay, never the
    owner's "New match" or "Your stats" (nor "Next hand" between hands)."""
    owner, stranger = contexts(browser, 2)
    start_match(owner, server.url, mode="computer2", target="one_hand")
    table = owner.evaluate("location.hash").split("=", 1)[1]
    owner.evaluate(PLAY_OUT, table)
    owner.wait_for_selector("#overlay[data-kind=match] #btn-new-match")
    stranger.goto(server.url + f"#table={table}")
    stranger.wait_for_selector("#overlay[data-kind=match] .breakdown")
    for control in ("#btn-new-match", "#btn-match-stats", "#btn-next-hand"):
        assert stranger.locator(control).count() == 0, control
    assert stranger.locator("#overlay .winner-line").count() == 1
    assert "You" not in stranger.inner_text("#overlay .dialog")
    for page in (owner, stranger):
        assert not page.errors, page.errors


def test_a_stranger_at_a_pass_and_play_table_is_handed_nothing(browser, server):
    """Someone else's pass-and-play link: no hand-off screen to reveal a hand, no buttons; the
    owner's own page still hands the device over."""
    owner, stranger = contexts(browser, 2)
    start_match(owner, server.url, mode="local2", difficulty=None)
    owner.wait_for_selector("#overlay[data-kind=handoff] #btn-reveal")
    table = owner.evaluate("location.hash").split("=", 1)[1]
    stranger.goto(server.url + f"#table={table}")
    stranger.wait_for_selector("#table[data-phase] .seats")
    stranger.wait_for_timeout(300)
    assert stranger.locator("#overlay[data-kind=handoff]").count() == 0
    assert stranger.locator("#btn-reveal").count() == 0
    for control in ("#btn-draw", "#btn-meld", "#btn-undo", "#btn-suggest"):
        assert stranger.locator(control).count() == 0, control
    assert stranger.locator("#hand .card").count() == 0
    for page in (owner, stranger):
        assert not page.errors, page.errors
