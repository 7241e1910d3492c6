"""The replay page: stepping through a finished match, seats and their names, all hands, export,
import, links, a phone."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import Server, page_api, use_prefs
from .test_online import ONLINE

pytestmark = pytest.mark.browser

GOLDEN = Path(__file__).resolve().parents[1] / "golden"

#: plays the page's own table over its socket with random legal actions until the match ends,
#: at most one message every 120 ms (the server closes a socket past 10 a second, docs/protocol.md)
PLAY = """async (tid) => new Promise((resolve, reject) => {
  const ws = new WebSocket(`ws://${location.host}/ws/tables/${tid}`);
  let last = 0;
  const pace = (msg) => {
    const at = Math.max(Date.now(), last + 120);
    last = at;
    setTimeout(() => ws.send(JSON.stringify(msg)), at - Date.now());
  };
  let k = 1;
  const rnd = () => { k = (k * 16807) % 2147483647; return k / 2147483647; };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type !== "state") return;
    if (m.table.match.over) { ws.close(); resolve(m.table.match.scores); return; }
    const v = m.view;
    if (v.phase === "over") pace({ type: "next_hand" });
    else if (v.seat !== null && v.turn === v.seat && v.legal.length) {
      const out = v.legal.filter((a) => a.type === "meld" && a.discard);
      const action = out.length ? out[0] : v.legal[Math.floor(rnd() * v.legal.length)];
      pace({ type: "action", version: m.version, action });
    }
  };
  ws.onerror = () => reject("socket error");
  setTimeout(() => reject("timeout"), 120000);
})"""


def finished_match(page, server) -> str:
    page.goto(server.url)
    page.wait_for_selector("body.ready")
    table = page_api(page, "POST", "/api/tables",
                     {"mode": "computer", "preset": "two-player-quick", "rules": {"target": "one_hand"}})
    page.evaluate(PLAY, table["table"])
    return str(table["table"])


def index(page) -> int:
    return int(page.get_attribute("#replay", "data-index"))


def test_a_finished_match_replays_step_by_step(page, server):
    use_prefs(page)
    tid = finished_match(page, server)
    # the end-of-match dialog shows the shuffle check and opens the replay
    page.goto(server.url + f"#table={tid}")
    page.wait_for_selector("#btn-replay")
    assert "SHA-256" in (page.text_content("#fairness") or "")
    page.click("#btn-replay")
    page.wait_for_selector("#replay-count")
    assert page.evaluate("location.hash") == f"#replay={tid}"
    last = int(page.inner_text("#replay-count").split("/")[1])
    assert index(page) == 0 and last > 5
    assert page.locator("#replay-log li").count() == last + 1
    # keyboard arrows and the buttons step forward and back
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.querySelector('#replay').dataset.index === '2'")
    assert page.locator("#replay-log li.current").count() == 1
    first_moves = page.inner_text("#replay-now")
    assert first_moves
    page.click("#replay-back")
    page.wait_for_function("() => document.querySelector('#replay').dataset.index === '1'")
    page.keyboard.press("End")
    page.wait_for_function(f"() => document.querySelector('#replay').dataset.index === '{last}'")
    assert page.locator(".replay-result").count() == 1
    assert page.is_disabled("#replay-forward")
    page.locator("#replay-log li button").nth(3).click()
    page.wait_for_function("() => document.querySelector('#replay').dataset.index === '3'")
    # the seat's view: its own hand face up, the other seat's face down; all hands on request
    own = page.locator(".replay-seat.own")
    assert own.get_attribute("data-seat") == "0"
    assert page.locator(".replay-seat:not(.own) .replay-hand .card.back").count() > 0
    page.select_option("#replay-seat", "1")
    page.wait_for_selector(".replay-seat.own[data-seat='1']")
    assert index(page) == 3
    page.check("#replay-reveal")
    page.wait_for_function("() => !document.querySelector('.replay-hand .card.back')")
    # the record downloads in the core's format
    href = page.get_attribute("#replay-export", "href")
    record = page_api(page, "GET", href)
    assert record["format"] == "canasta-record" and record["over"] is True
    # the stats dialog lists the match and opens its replay
    page.goto(server.url)
    page.wait_for_selector("body.ready")
    page.click("#btn-stats")
    button = page.wait_for_selector(f"#recent-matches button[data-replay='{tid}']")
    button.click()
    page.wait_for_selector("#replay-count")
    assert index(page) == 0


def test_others_cannot_open_an_offline_replay(page, server, browser):
    use_prefs(page)
    tid = finished_match(page, server)
    other = browser.new_context()
    try:
        p2 = other.new_page()
        p2.goto(server.url + f"#replay={tid}")
        p2.wait_for_selector("#replay-error")
        assert "not yours" in p2.inner_text("#replay-error")
    finally:
        other.close()


def test_a_record_file_is_imported_and_a_broken_one_explained(page, server, tmp_path):
    use_prefs(page)
    page.goto(server.url + "#replay=")
    page.wait_for_selector("#replay-drop")
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    page.set_input_files("#replay-file", str(broken))
    page.wait_for_selector("#replay-error")
    assert "not valid JSON" in page.inner_text("#replay-error")
    record = json.loads((GOLDEN / "classic-2500-21.json").read_text())
    good = tmp_path / "match.json"
    good.write_text(json.dumps(record))
    page.set_input_files("#replay-file", str(good))
    page.wait_for_selector("#replay-count")
    assert page.locator("#replay-hand option").count() == len(record["hands"])
    assert page.locator(".replay-seat").count() == 4
    # stepping past the end of a hand goes on to the next one
    page.keyboard.press("End")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => document.querySelector('#replay').dataset.hand === '2'")
    assert index(page) == 0
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => document.querySelector('#replay').dataset.hand === '1'")
    assert index(page) == len(record["hands"][0]["actions"])


@pytest.mark.parametrize(("lang", "size"), [("en", "desktop"), ("ja", "phone")])
def test_axe_replay_page(browser, server, tmp_path, lang, size):
    from .test_accessibility import VIEWPORTS, _require_axe, scan

    _require_axe()
    context = browser.new_context(viewport=VIEWPORTS[size], is_mobile=size == "phone", has_touch=size == "phone",
                                  bypass_csp=True)
    try:
        page = context.new_page()
        use_prefs(page, lang=lang)
        page.goto(server.url + "#replay=")
        page.wait_for_selector("#replay-drop")
        bad = scan(page, "replay-import", lang, size)
        good = tmp_path / "match.json"
        good.write_text((GOLDEN / "classic-2500-21.json").read_text())
        page.set_input_files("#replay-file", str(good))
        page.wait_for_selector("#replay-count")
        for _ in range(30):
            page.keyboard.press("ArrowRight")
        page.check("#replay-reveal")
        page.wait_for_function("() => !document.querySelector('.replay-hand .card.back')")
        bad += scan(page, "replay", lang, size)
        assert not bad, "\n".join(bad)
    finally:
        context.close()


# ---- a finished online match ----------------------------------------------------------------

#: a finished online match (``online_match``): the server, the table, the guest's name, their page
OnlineMatch = tuple[Server, str, str, Any]


def context_page(browser, *, lang: str, phone: bool) -> Any:
    """A page of a new browser (its own session) in ``lang``, on a 390×844 phone or a desktop."""
    size = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True} if phone \
        else {"viewport": {"width": 1280, "height": 800}}
    page = browser.new_context(**size).new_page()
    use_prefs(page, lang=lang)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


@pytest.fixture(scope="module")
def online_match(browser, tmp_path_factory) -> Iterator[OnlineMatch]:
    """A one-hand two-player match of a private room between "Ann" and a guest, each moving at
    random over their own socket until it is over."""
    server = Server(tmp_path_factory.mktemp("db") / "canasta.db", config=ONLINE)
    server.start()
    pages = []
    try:
        ann, guest = pages = [context_page(browser, lang="en", phone=phone) for phone in (True, False)]
        for page in pages:
            page.goto(server.url)
            page.wait_for_selector("body.ready")
            page.click("#btn-online")
            page.wait_for_selector("#btn-find-match:not([disabled])")
        ann.click("#btn-edit-name")
        ann.fill("#name-input", "Ann")
        ann.click("#btn-save-name")
        ann.wait_for_selector("#online-you .you-name:text('Ann')")
        ann.select_option("#room-preset", "two-player")
        ann.select_option("#room-target", "one_hand")
        ann.click("#btn-create-room")
        code = ann.inner_text("#room-code-value")
        guest_name = guest.inner_text("#online-you .you-name")
        guest.fill("#room-code", code)
        guest.click("#btn-join-room")
        ann.click("#btn-room-start:not([disabled])")
        for page in pages:
            page.wait_for_selector("#table .seats", timeout=20_000)
        table = ann.evaluate("location.hash").removeprefix("#table=")
        for page in pages:  # both play at once
            page.evaluate(f"(tid) => {{ window.played = ({PLAY})(tid); }}", table)
        for page in pages:
            page.evaluate("() => window.played")
        yield server, table, guest_name, guest
    finally:
        for page in pages:
            page.context.close()
        server.stop()


def test_an_online_replay_names_the_players(online_match, browser):
    """The seats of an online match are its players, by the names the server sends (a guest's
    in the page's language): in the seat picker, the moves, the sides and the totals."""
    server, table, guest_name, guest = online_match
    guest.goto(server.url + f"#replay={table}")
    guest.wait_for_selector("#replay-count")
    names = {"Ann", guest_name}
    # the guest sees the match from their own seat, and which total is theirs
    seats = guest.eval_on_selector_all("#replay-seat option", "os => os.map((o) => o.textContent)")
    assert set(seats) == names and guest.input_value("#replay-seat") == str(seats.index(guest_name))
    assert guest.inner_text(".replay-seat.own .seat-name") == guest_name
    assert set(guest.eval_on_selector_all("#replay .side-name", "els => els.map((e) => e.textContent)")) == names
    meta = guest.inner_text(".replay-meta")
    assert re.search(" – ".join(rf"{name}: -?\d+" for name in seats), meta), meta
    assert re.fullmatch(rf"Hand 1 is dealt \(({'|'.join(names)}) deals\)\.", guest.inner_text("#replay-now"))
    guest.keyboard.press("End")
    guest.wait_for_selector(".replay-result")
    assert re.search(" · ".join(rf"{name}: -?\d+" for name in seats), guest.inner_text(".replay-result"))
    assert not re.search(r"Player \d", guest.inner_text("#replay"))
    # anyone may see a finished online match; a Japanese page reads the guest's name in Japanese
    other = context_page(browser, lang="ja", phone=False)
    try:
        other.goto(server.url + f"#replay={table}")
        other.wait_for_selector("#replay-count")
        number = guest_name.removeprefix("Guest ")
        assert other.eval_on_selector_all("#replay-seat option", "os => os.map((o) => o.textContent)") == \
            [f"ゲスト{number}" if s == guest_name else s for s in seats]
        text = other.inner_text("#replay")
        assert "Guest" not in text and not re.search(r"プレイヤー\d", text)
        assert not other.errors, other.errors
    finally:
        other.context.close()
    assert not guest.errors, guest.errors


def test_an_offline_replay_numbers_its_seats(page, server):
    """Against the computer the seats are numbered (the server's "You" and "Computer" are no
    names), the computer's said to be one."""
    use_prefs(page)
    tid = finished_match(page, server)
    page.goto(server.url + f"#replay={tid}")
    page.wait_for_selector("#replay-count")
    assert page.eval_on_selector_all("#replay-seat option", "os => os.map((o) => o.textContent)") == \
        ["Player 1", "Player 2 (Computer)"]
    assert "You" not in page.inner_text("#replay")


SETTLED = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(scrollY))))"


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_the_replay_opens_at_its_top_on_a_phone(online_match, browser, lang):
    """A phone's replay opens at its top, its heading clear of the sticky top bar (the move list,
    below the table, scrolls by itself to its current step, never the page); focus on the
    current step follows it."""
    server, table, *_ = online_match
    page = context_page(browser, lang=lang, phone=True)
    try:
        page.goto(server.url + f"#replay={table}")
        page.wait_for_selector("#replay-count")
        assert page.evaluate(SETTLED) == 0
        bar = page.evaluate("document.querySelector('.topbar').getBoundingClientRect().bottom")
        assert page.evaluate("document.querySelector('#replay h1').getBoundingClientRect().top") >= bar
        # the last step: the move list shows it, the page stays where it is
        page.keyboard.press("End")
        page.wait_for_function("() => document.querySelector('#replay-forward').disabled")
        assert page.evaluate(SETTLED) == 0
        inside = """() => { const list = document.querySelector('#replay-log').getBoundingClientRect();
          const li = document.querySelector('#replay-log li.current').getBoundingClientRect();
          return li.top >= list.top - 1 && li.bottom <= list.bottom + 1; }"""
        assert page.evaluate(inside)
        # a keyboard user on the current step stays on it as it moves
        page.focus("#replay-log li.current button")
        page.keyboard.press("Home")
        page.wait_for_function("() => document.querySelector('#replay').dataset.index === '0'")
        assert page.evaluate("!!document.activeElement.closest('#replay-log li.current')")
        assert page.evaluate(inside)
        assert not page.errors, page.errors
    finally:
        page.context.close()
