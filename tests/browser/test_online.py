"""Online play through the pages: several browser contexts (separate sessions) at one server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Server
from tests.browser.helpers import play_simple_turn

ONLINE = {
    "move_seconds": 120.0,
    "grace_seconds": 60.0,
    "hand_break_seconds": 120.0,
    "online_bot_delay_ms": 0,
    "live_list_seconds": 0.2,
}


@pytest.fixture
def online_server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "canasta.db", config=ONLINE)
    s.start()
    yield s
    s.stop()


def contexts(browser: Any, n: int, *, lang: str = "en") -> list[Any]:
    """``n`` browsers: separate contexts, each with its own cookie jar (its own session)."""
    pages = []
    for i in range(n):
        ctx = browser.new_context(bypass_csp=True, viewport={"width": 1100, "height": 800} if i % 2 else {"width": 390, "height": 844})
        ctx.add_init_script(
            "try { if (!sessionStorage.getItem('prefs-set')) {"
            f" localStorage.setItem('canasta.prefs', JSON.stringify({{speed: 'off', lang: '{lang}'}}));"
            " sessionStorage.setItem('prefs-set', '1'); } } catch (e) {}"
        )
        page = ctx.new_page()
        page.errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda e, p=page: p.errors.append(str(e)))
        pages.append(page)
    return pages


def open_lobby(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body.ready")
    page.click("#btn-online")
    page.wait_for_selector("#btn-find-match:not([disabled])")


def watch_from_lobby(page: Any, url: str, table: str) -> None:
    """Open the lobby and watch ``table`` from its live list."""
    open_lobby(page, url)
    page.wait_for_selector(f"[data-watch='{table}']", timeout=10_000)
    page.click(f"[data-watch='{table}']")
    page.wait_for_selector("#table .seats")


def quick_match(pages: list[Any], url: str, preset: str) -> str:
    for page in pages:
        open_lobby(page, url)
        if preset != "classic":
            page.click(f"#quick-preset [data-value='{preset}']")
        page.click("#btn-find-match")
        # the last one to queue fills the table: its page may go straight to the match
        page.wait_for_selector("#queue-waiting, #table .seats")
    for page in pages:
        page.wait_for_selector("#table .seats", timeout=20_000)
    ids = {page.evaluate("location.hash") for page in pages}
    assert len(ids) == 1, ids
    return ids.pop().removeprefix("#table=")


def play_hand_through_pages(pages: list[Any], limit: int = 2000) -> None:
    """Every player draws and discards from their own page until the hand ends."""
    for _ in range(limit):
        if any(p.evaluate("document.body.dataset.overlay || ''") in ("hand", "match") for p in pages):
            return
        acted = False
        for page in pages:
            if page.get_attribute("#table", "data-my-turn") == "yes":
                play_simple_turn(page)
                acted = True
                break
        if not acted:
            pages[0].wait_for_timeout(50)
    raise AssertionError("the hand did not end")


def seat_labels(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#table .seat .seat-label", "els => els.map(e => e.textContent)"))


def test_four_players_quick_match_play_a_classic_hand_to_the_score_screen(browser, online_server):
    pages = contexts(browser, 4)
    names = ["Ann", "Bo", "Cy", "Di"]
    for page, name in zip(pages, names, strict=True):
        open_lobby(page, online_server.url)
        page.click("#btn-edit-name")
        page.fill("#name-input", name)
        page.click("#btn-save-name")
        page.wait_for_selector(f"#online-you .you-name:text('{name}')")
    # three wait: the count and the elapsed time are shown, then the fourth fills the table
    for page in pages[:3]:
        page.click("#btn-find-match")
        page.wait_for_selector("#queue-waiting")
    pages[2].wait_for_function("() => document.querySelector('#queue-count').textContent.startsWith('3 of 4')")
    pages[0].wait_for_function("() => document.querySelector('#queue-elapsed').textContent !== '0:00'", timeout=5000)
    pages[3].click("#btn-find-match")
    for page in pages:
        page.wait_for_selector("#table .seats", timeout=20_000)
    # each page shows the three others by name, itself as "You", nobody's hand but its own
    for page, name in zip(pages, names, strict=True):
        labels = seat_labels(page)
        assert len(labels) == 3 and name not in labels
        assert set(labels) <= set(names)
        assert page.locator("#hand .card").count() == 11
        assert page.locator("#btn-undo").count() == 0 and page.locator("#btn-suggest").count() == 0
    play_hand_through_pages(pages)
    for page in pages:
        page.wait_for_selector("#overlay .breakdown")
        assert page.locator("#btn-next-hand").count() == 1
        assert not page.errors, page.errors


def test_two_players_quick_match_and_a_spectator(browser, online_server):
    a, b, watcher = contexts(browser, 3)
    table = quick_match([a, b], online_server.url, "two-player")
    watch_from_lobby(watcher, online_server.url, table)
    assert watcher.locator("#hand .card").count() == 0  # spectators never see a hand
    assert watcher.locator("#table .seat").count() == 2
    assert watcher.locator(".tag.watching").count() == 1
    a.wait_for_selector(".tag:text('1 watching')")
    # quick chat reaches the other player and the spectator, in their language
    a.click("#btn-chat")
    a.click("#overlay [data-phrase='good_luck']")
    b.wait_for_selector(".bubble[data-phrase='good_luck']")
    watcher.wait_for_selector(".bubble:text('Good luck!')")
    play_hand_through_pages([a, b])
    for page in (a, b):
        page.wait_for_selector("#overlay .breakdown")
    for page in (a, b, watcher):
        assert not page.errors, page.errors


def test_private_room_by_code_and_link_with_partners_and_a_computer(browser, online_server):
    host, friend, other = contexts(browser, 3)
    open_lobby(host, online_server.url)
    host_name = host.inner_text("#online-you .you-name")
    host.select_option("#room-target", "one_hand")
    host.click("#btn-create-room")
    host.wait_for_selector("#room-code-value")
    code = host.inner_text("#room-code-value")
    assert re.fullmatch(r"[A-Z2-9]{6}", code)
    link = host.input_value("#room-link")
    assert link.endswith(f"/#room={code}")
    # a friend joins by typing the code (lower case; a mistyped one first: its refusal goes
    # once the room opens), another by opening the link
    open_lobby(friend, online_server.url)
    friend_name = friend.inner_text("#online-you .you-name")
    friend.fill("#room-code", "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY")
    friend.click("#btn-join-room")
    friend.wait_for_selector("#toast.show.bad")
    friend.fill("#room-code", code.lower())
    friend.click("#btn-join-room")
    friend.wait_for_selector("#room")
    assert friend.locator("#toast.show.bad").count() == 0
    other.goto(link)
    other.wait_for_selector("#room")
    host.wait_for_function("() => document.querySelectorAll('#room-seats .who b').length === 3")
    assert host.is_disabled("#btn-room-start")  # one seat is still empty
    assert friend.locator("#btn-room-start").count() == 0  # only the host starts
    # the host takes the friend as partner: seat 2 (friend) moves to seat 3 (across)
    host.click("#room-seats [data-move='1']")
    host.click("#room-seats [data-swap='2']")
    friend.wait_for_selector("#room-seats [data-seat='2'] .tag:text('you')")
    # the empty seat gets a computer player, and the host starts
    host.click("#room-seats [data-bot='3']")
    host.wait_for_selector("#btn-room-start:not([disabled])")
    host.click("#btn-room-start")
    for page in (host, friend, other):
        page.wait_for_selector("#table .seats", timeout=20_000)
    # the friend sits across from the host (the others are drawn left, across, right)
    assert seat_labels(host)[1] == friend_name
    assert seat_labels(host)[2] == "Computer 4"
    assert seat_labels(friend)[1] == host_name
    # a side's score names the reader first, whichever seat they have
    for page, partner in ((host, friend_name), (friend, host_name), (other, "Computer 4")):
        assert page.inner_text("#scorebar .score.own .who") == f"You & {partner}"
    # a one-hand match says so, not "to One hand"
    assert host.inner_text("#scorebar .meta") == "Hand 1 · a one-hand match"
    for page in (host, friend, other):
        assert not page.errors, page.errors


def test_names_the_server_gives_read_in_japanese_and_cannot_be_chosen(browser, online_server):
    """A guest's and a computer seat's names are the server's ("Guest 4821", "Computer 3"):
    a Japanese page reads them in Japanese, and nobody may take one as their own name."""
    host, friend = contexts(browser, 2, lang="ja")
    open_lobby(host, online_server.url)
    number = re.fullmatch(r"ゲスト(\d{4})", host.inner_text("#online-you .you-name"))
    assert number, host.inner_text("#online-you .you-name")
    # the name field starts empty, showing the given name; taking a given name is refused
    host.click("#btn-edit-name")
    assert host.input_value("#name-input") == ""
    assert host.get_attribute("#name-input", "placeholder") == f"ゲスト{number[1]}"
    host.fill("#name-input", "コンピューター2")
    host.click("#btn-save-name")
    host.wait_for_selector(".toast:text('席の呼び名としてゲームが使っています')")
    host.click("#btn-create-room")
    host.wait_for_selector("#room-code-value")
    code = host.inner_text("#room-code-value")
    open_lobby(friend, online_server.url)
    friend_name = friend.inner_text("#online-you .you-name")
    assert re.fullmatch(r"ゲスト\d{4}", friend_name)
    friend.fill("#room-code", code)
    friend.click("#btn-join-room")
    friend.wait_for_selector("#room")
    host.wait_for_selector(f"#room-seats .who b:text('{friend_name}')")
    host.click("#room-seats [data-bot='2']")
    host.click("#room-seats [data-bot='3']")
    host.wait_for_selector("#btn-room-start:not([disabled])")
    host.click("#btn-room-start")
    for page in (host, friend):
        page.wait_for_selector("#table .seats", timeout=20_000)
    assert seat_labels(host) == [friend_name, "コンピューター3", "コンピューター4"]
    for page in (host, friend):
        assert "Guest" not in page.inner_text("body") and "Computer" not in page.inner_text("body")
        assert not page.errors, page.errors


def test_a_room_code_being_typed_survives_the_lobby_drawing_itself_again(browser, online_server):
    """Every lobby message (here: another player joining the queue) draws the lobby again; the
    code a player is typing keeps its text, focus and caret, and joins the room."""
    host, typist, other = contexts(browser, 3)
    open_lobby(host, online_server.url)
    host.click("#btn-create-room")
    host.wait_for_selector("#room-code-value")
    code = host.inner_text("#room-code-value")
    open_lobby(typist, online_server.url)
    typist.click("#room-code")
    typist.keyboard.type(code[:3].lower())
    open_lobby(other, online_server.url)
    other.click("#btn-find-match")
    typist.wait_for_function(
        "document.querySelector('#quick-match .queue-count').textContent.includes('1 player')"
    )
    assert typist.input_value("#room-code") == code[:3].lower()
    typist.keyboard.type(code[3:].lower())  # still focused, the caret still at the end
    assert typist.input_value("#room-code") == code.lower()
    typist.keyboard.press("Enter")
    typist.wait_for_selector("#room")
    assert typist.inner_text("#room-code-value") == code
    for page in (host, typist, other):
        assert not page.errors


def test_the_move_timer_plays_for_an_absent_player_until_they_are_back(browser, tmp_path):
    server = Server(tmp_path / "canasta.db", config={**ONLINE, "move_seconds": 3.0})
    server.start()
    try:
        a, b = contexts(browser, 2)
        quick_match([a, b], server.url, "two-player")
        # whoever must act does nothing: the server draws and discards, auto-play starts
        idle = a if a.get_attribute("#table", "data-my-turn") == "yes" else b
        idle.wait_for_selector("#table .countdown")
        idle.wait_for_selector("#auto-banner", timeout=15_000)
        other = b if idle is a else a
        other.wait_for_selector(".seat .tag.auto", timeout=5000)
        idle.click("#btn-back")
        idle.wait_for_selector("#auto-banner", state="detached", timeout=10_000)
        other.wait_for_selector(".seat .tag.auto", state="detached", timeout=10_000)
        for page in (a, b):
            assert not page.errors, page.errors
    finally:
        server.stop()


def test_a_match_played_out_on_auto_play_shows_no_auto_play_once_over(browser, tmp_path):
    """Both players let their moves time out: the server plays a one-hand room match to its
    end. Once it is over nobody is "on auto-play" any more: no banner, no tag."""
    server = Server(tmp_path / "canasta.db", config={**ONLINE, "move_seconds": 1.0})
    server.start()
    try:
        host, friend = contexts(browser, 2)
        open_lobby(host, server.url)
        host.select_option("#room-preset", "two-player")
        host.select_option("#room-target", "one_hand")
        host.click("#btn-create-room")
        host.wait_for_selector("#room-code-value")
        code = host.inner_text("#room-code-value")
        open_lobby(friend, server.url)
        friend.fill("#room-code", code)
        friend.click("#btn-join-room")
        host.wait_for_selector("#btn-room-start:not([disabled])")
        host.click("#btn-room-start")
        # nobody acts: every move of the match is auto-play's (its banner may come and go
        # before a page looks)
        for page in (host, friend):
            page.wait_for_selector("#overlay[data-kind=match]", timeout=60_000)
            assert page.locator("#auto-banner").count() == 0
            assert page.locator(".seat .tag.auto").count() == 0
            assert not page.errors, page.errors
    finally:
        server.stop()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_disconnected_player_is_named_so_in_words(browser, online_server, lang):
    """A player whose page closed is marked "offline" beside the seat's hollow dot (before
    its grace period ends and the seat goes "away"), not by the dot alone."""
    a, b = contexts(browser, 2, lang=lang)
    quick_match([a, b], online_server.url, "two-player")
    assert a.locator(".seat .tag.offline").count() == 0
    b.context.close()
    a.wait_for_selector(".seat .tag.offline", timeout=10_000)
    assert a.inner_text(".seat .tag.offline") == ("offline" if lang == "en" else "切断中")
    assert a.locator(".seat .tag.auto").count() == 0  # not away yet: the grace period runs
    assert not a.errors, a.errors


def test_a_server_restart_mid_match_loses_nothing_and_the_pages_reconnect(browser, online_server):
    a, b = contexts(browser, 2)
    quick_match([a, b], online_server.url, "two-player")
    mover = a if a.get_attribute("#table", "data-my-turn") == "yes" else b
    play_simple_turn(mover)
    before = [p.get_attribute("#table", "data-version") for p in (a, b)]
    hands = [p.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)") for p in (a, b)]
    online_server.stop()
    a.wait_for_selector(".status .tag.stop")  # "reconnecting…"
    online_server.start()
    for page, version, hand in zip((a, b), before, hands, strict=True):
        page.wait_for_selector(".status .tag.stop", state="detached", timeout=20_000)
        assert page.get_attribute("#table", "data-version") == version
        assert page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)") == hand
    nxt = a if a.get_attribute("#table", "data-my-turn") == "yes" else b
    play_simple_turn(nxt)  # the match goes on
    for page in (a, b):
        assert not page.errors, page.errors


def test_a_match_its_last_player_leaves_is_abandoned_and_says_so(browser, online_server):
    """docs/protocol.md, "Abandoned matches": a room filled with computers and left is not
    played on for nobody; a spectator is told, and the host may play again at once."""
    host, watcher = contexts(browser, 2)
    open_lobby(host, online_server.url)
    host.click("#btn-create-room")
    host.wait_for_selector("#room-code-value")
    for seat in (1, 2, 3):
        host.click(f"#room-seats [data-bot='{seat}']")
        host.wait_for_selector(f"#room-seats [data-seat='{seat}'] .who")
    host.wait_for_selector("#btn-room-start:not([disabled])")
    host.click("#btn-room-start")
    host.wait_for_selector("#table .seats", timeout=20_000)
    table = host.evaluate("location.hash")
    watcher.goto(online_server.url + table)
    watcher.wait_for_selector("#table .seats", timeout=20_000)
    assert watcher.locator("#abandoned-banner").count() == 0
    host.click("#btn-leave-match")
    host.click("#btn-leave-confirm")
    watcher.wait_for_selector("#abandoned-banner", timeout=10_000)
    assert "abandoned" in watcher.inner_text("#abandoned-banner")
    watcher.screenshot(path="/tmp/canasta-abandoned.png")
    watcher.click("#btn-abandoned-lobby")
    watcher.wait_for_selector("#table .seats", state="hidden", timeout=10_000)
    # the host is in no match any more: a new room at once
    host.wait_for_selector("#table .seats", state="hidden", timeout=10_000)
    open_lobby(host, online_server.url)
    host.click("#btn-create-room")
    host.wait_for_selector("#room-code-value")
    for page in (host, watcher):
        assert not page.errors, page.errors


def test_the_end_of_a_quick_match_shows_each_players_rating_change(browser, tmp_path):
    """A two-player quick match played out (both players let their moves time out: the
    computer plays both seats): its end shows what it did to both ratings, the reader's own
    first in words ("You"), the same figures the profiles give."""
    # both browsers come from 127.0.0.1: rated all the same (as for a club sharing an address)
    config = {**ONLINE, "move_seconds": 0.5, "hand_break_seconds": 0.5, "rate_shared_networks": True}
    server = Server(tmp_path / "canasta.db", config=config)
    server.start()
    try:
        a, b = contexts(browser, 2)
        for page in (a, b):
            open_lobby(page, server.url)
            page.click("#quick-preset [data-value='two-player']")
            page.click("#quick-target [data-value='2500']")
        quick_match([a, b], server.url, "two-player")
        for page in (a, b):
            page.wait_for_selector("#overlay[data-kind=match] #rating-changes li", timeout=240_000)
            rows = page.eval_on_selector_all(
                "#rating-changes li",
                "els => els.map(e => [e.classList.contains('own'), e.querySelector('.who').textContent,"
                " e.querySelector('.rating-move').textContent, e.querySelector('.rating-diff').textContent])",
            )
            assert len(rows) == 2
            mine = [r for r in rows if r[0]]
            assert len(mine) == 1 and rows[0] == mine[0] and mine[0][1] == "You"
            before, after = (int(x) for x in mine[0][2].split(" → "))
            assert before == 1000
            diff = after - before
            assert mine[0][3] == (f"+{diff}" if diff > 0 else f"\u2212{-diff}" if diff < 0 else "\u00b10")
            profile = page.evaluate("fetch('/api/profile').then(r => r.json())")
            assert profile["ratings"]["two-player"]["rating"] == after
            assert "Ratings: Two players" in page.inner_text("#rating-changes h3")
            # a screen reader hears a sentence, not arrows and signs
            said = page.inner_text("#rating-changes li.own .sr-only")
            assert said == (f"You: from {before} to {after}, " + (f"up {diff}" if diff > 0 else f"down {-diff}")
                            if diff else f"You: {before}, unchanged")
            # back in the lobby, the reader's ratings are the new ones
            page.click("#overlay[data-kind=match] button:has-text('Back to the lobby')")
            page.wait_for_selector(f"#lobby-ratings [data-kind=two-player] b:text-is('{after}')")
            assert page.inner_text("#lobby-ratings [data-kind=classic] b") == "1000"
            assert not page.errors, page.errors
    finally:
        server.stop()


def test_a_new_screen_opens_at_its_top_on_a_phone(browser, online_server):
    """The phone's start screen scrolled down to its "Online play" button: the lobby opens at
    its top (its title and the player's name in view), not at the start screen's offset."""
    (phone,) = contexts(browser, 1)  # the first context is a 390 x 844 phone
    phone.set_viewport_size({"width": 390, "height": 600})
    phone.goto(online_server.url)
    phone.wait_for_selector("body.ready")
    phone.locator("#btn-online").scroll_into_view_if_needed()
    assert phone.evaluate("window.scrollY") > 0, "the start screen fits: nothing to check"
    phone.click("#btn-online")
    phone.wait_for_selector("#btn-find-match:not([disabled])")
    assert phone.evaluate("window.scrollY") == 0
    assert phone.locator("#online-you .you-name").bounding_box()["y"] >= 0
