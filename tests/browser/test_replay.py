"""The replay page: stepping through a finished match, seats, all hands, export, import, links."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import page_api, use_prefs

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
