"""The table's layout (issue 9): a 1366×768 desktop never pushes the hand and the actions below
the fold, and on a 390×844 phone every tap target is at least 44×44 CSS px, the hand lays out
in even rows, and two buttons move between the played melds and the hand."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import use_prefs
from .helpers import open_finished_hand, start_match, version, wait_my_turn, wait_version_change
from .positions import growing_hand, many_melds, open_position

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}



def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def test_desktop_with_wrapped_melds_keeps_the_hand_and_actions_in_view(browser, quick_server):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    use_prefs(page)
    seed, actions = many_melds()
    open_position(page, quick_server.url, seed, actions)
    page.wait_for_timeout(300)
    # the melds have wrapped onto a second row
    tops = page.eval_on_selector_all("#our-melds .meld", "els => [...new Set(els.map(e => Math.round(e.getBoundingClientRect().top)))]")
    assert len(tops) >= 2, "the position should have wrapped melds"
    # the page is no taller than the window: nothing to scroll to
    assert page.evaluate("document.documentElement.scrollHeight") <= DESKTOP["height"] + 1
    bottom = DESKTOP["height"]
    for sel in ["#hand .card", ".buttons .act"]:
        for box in page.locator(sel).evaluate_all("els => els.map(e => e.getBoundingClientRect().toJSON())"):
            assert 0 <= box["top"] and box["bottom"] <= bottom, (sel, box)
    # the meld areas stay above the player's own area; what does not fit scrolls inside them
    mine = _box(page, "#mine")
    for box in page.locator(".board .melds").evaluate_all("els => els.map(e => e.getBoundingClientRect().toJSON())"):
        assert box["bottom"] <= mine["y"] + 1, box
    scrolls = page.eval_on_selector_all(".board .melds", "els => els.map(e => getComputedStyle(e).overflowY)")
    assert all(s in ("auto", "scroll") for s in scrolls)
    # the move log is on screen too, beside the melds
    log = _box(page, "#movelog")
    assert log["y"] + log["height"] <= mine["y"] + 1
    context.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_three_player_match_over_fits_a_laptop_screen_without_scrolling(browser, quick_server, lang):
    """The end of a three-player match (R14: three totals, the partnership's columns, three
    hands left) at 1280 x 800: every button in one row, none below the fold."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    open_finished_hand(page, quick_server, "three-player", lang)
    page.wait_for_selector("#overlay[data-kind=match] #btn-new-match")
    dialog = page.locator("#overlay .dialog")
    assert dialog.evaluate("d => d.scrollHeight <= d.clientHeight"), "the dialog scrolls"
    buttons = page.eval_on_selector_all("#overlay .dialog-buttons button", "bs => bs.map(b => b.getBoundingClientRect().toJSON())")
    assert len(buttons) == 5 and len({round(b["y"]) for b in buttons}) == 1
    assert all(b["y"] + b["height"] <= 800 for b in buttons)
    context.close()


def test_a_result_dialog_taller_than_a_laptop_screen_keeps_its_buttons_in_view(browser, quick_server):
    """At 1280 x 700 the end of a four-player match is taller than the window: it scrolls, and
    its row of buttons stays at the dialog's foot, in view, whatever is scrolled."""
    context = browser.new_context(viewport={"width": 1280, "height": 700})
    page = context.new_page()
    open_finished_hand(page, quick_server, "classic", "en")
    page.wait_for_selector("#overlay[data-kind=match] #btn-new-match")
    dialog = page.locator("#overlay .dialog")
    assert dialog.evaluate("d => d.scrollHeight > d.clientHeight"), "the dialog fits: nothing to check"
    for where in ("0", "d.scrollHeight / 2", "d.scrollHeight"):
        dialog.evaluate(f"d => {{ d.scrollTop = {where}; }}")
        box = _box(page, "#overlay .dialog")
        for b in page.eval_on_selector_all("#overlay .dialog-buttons button", "bs => bs.map(b => b.getBoundingClientRect().toJSON())"):
            assert box["y"] <= b["y"] and b["y"] + b["height"] <= min(700, box["y"] + box["height"]) + 1, (where, b)
    context.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_tall_result_dialog_on_a_phone_opens_at_its_top(browser, quick_server, lang):
    """On a phone the end of a hand is taller than the screen: it opens showing how the hand
    ended, under its title (focusing its first button once scrolled it there, hiding that).
    A small phone (360×640): on a 390×844 one the English dialog now fits."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    page = context.new_page()
    open_finished_hand(page, quick_server, "classic", lang)
    page.wait_for_selector("#overlay[data-kind=match] #btn-new-match")
    page.wait_for_timeout(300)
    dialog = page.locator("#overlay .dialog")
    assert dialog.evaluate("d => d.scrollHeight > d.clientHeight"), "the dialog fits: nothing to check"
    assert dialog.evaluate("d => d.scrollTop") == 0
    head = _box(page, "#overlay .dialog-head")
    first = _box(page, "#overlay .dialog-body > *")
    assert first["y"] >= head["y"] + head["height"] - 1, "the dialog's first line is under its title"
    # its buttons are still the first reached from the keyboard
    assert page.evaluate("document.activeElement.id") == "btn-new-match"
    # opened from the keyboard, it shows the control it focused (Enter must not act unseen)
    page.click("#btn-peek")
    page.focus("#btn-peek-back")
    page.keyboard.press("Enter")
    page.wait_for_selector("#overlay[data-kind=match] #btn-new-match")
    page.wait_for_timeout(300)
    assert page.evaluate("document.activeElement.id") == "btn-new-match"
    seen = page.evaluate("""() => { const d = document.querySelector('#overlay .dialog').getBoundingClientRect();
        const b = document.activeElement.getBoundingClientRect(); return b.top >= d.top && b.bottom <= d.bottom; }""")
    assert seen, "the focused button is out of the dialog's view"
    context.close()


_UNDER_THE_BAR = """() => {
  const bar = document.querySelector('.table-nav').getBoundingClientRect();
  return [...document.querySelectorAll('#table .buttons > *')]
    .filter(el => { const r = el.getBoundingClientRect(); return r.height && r.bottom > bar.top + 1; })
    .map(el => el.id || el.className);
}"""


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_plan_staged_on_a_phone_keeps_every_table_button_above_the_bar(browser, server, lang):
    """Staging a meld grows the table (the plan, its count, the refusal's words) while the
    server checks it: the page keeps the table's buttons, all of them, above the bottom bar."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    use_prefs(page, lang=lang)
    start_match(page, server.url, mode="computer2")
    wait_my_turn(page)
    before = version(page)
    page.tap("#stock")
    wait_version_change(page, before)
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    page.wait_for_timeout(200)
    page.locator("#hand .card").first.tap()
    page.locator("#targets .rank-chip").first.tap()
    page.wait_for_selector("#table .plan-group")
    page.wait_for_selector("#validation")  # the server's answer has been drawn
    page.wait_for_timeout(300)
    assert page.evaluate(_UNDER_THE_BAR) == []
    context.close()


# Each text's lines (by the tops of its characters), and the places between two lines that
# fall inside a word (Intl.Segmenter's words in the page's language).
_BROKEN_WORDS = """els => els.flatMap(el => {
  const text = el.textContent, node = el.firstChild, range = document.createRange(), lines = [];
  let top = null;
  for (let i = 0; i < text.length; i++) {
    range.setStart(node, i); range.setEnd(node, i + 1);
    const r = range.getClientRects()[0];
    if (!r || !text[i].trim()) continue;
    if (top === null || r.top > top + 2) { lines.push(i); top = r.top; }
  }
  const starts = new Set([...new Intl.Segmenter(document.documentElement.lang, { granularity: "word" })
    .segment(text)].map(s => s.index));
  return lines.slice(1).filter(i => !starts.has(i) && text[i - 1].trim()).map(i => `${text.slice(0, i)}|${text.slice(i)}`);
})"""


@pytest.mark.parametrize("preset", ["classic", "three-player"])
def test_a_phone_breaks_the_japanese_score_lines_between_words(browser, quick_server, preset):
    """On a 360-px phone the end of a hand's labels wrap in Japanese, between phrases (カナスタの
    ｜ボーナス), never inside a word (ナチュラ｜ルカナス｜タ), nor inside a player's name."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    page = context.new_page()
    open_finished_hand(page, quick_server, preset, "ja")
    page.wait_for_selector("#overlay .breakdown")
    cells = "#overlay .breakdown tbody th, #overlay .breakdown thead th .side, #overlay .winner-line, #overlay .reason"
    assert page.eval_on_selector_all(cells, _BROKEN_WORDS) == []
    wrapped = page.eval_on_selector_all(
        "#overlay .breakdown th[scope=row]", "els => els.filter(e => e.getClientRects()[0].height > 30).length")
    assert wrapped, "no label wraps at this width: nothing to check"
    dialog = page.locator("#overlay .dialog")
    assert dialog.evaluate("d => d.scrollWidth <= d.clientWidth"), "the scores are wider than the dialog"
    context.close()


#: the end of a hand redrawn as an online four-player table's, with two of the longest names a
#: player may choose (20 letters, Japanese, no space in them), beside short ones
_LONG_NAMES = """async () => {
  const { S } = await import('/static/js/store.js');
  const overlays = await import('/static/js/overlays.js');
  const names = ['あいうえおかきくけこさしすせそたちつてと', 'ながいなまえのプレイヤーさんですよろしく', 'Bob', 'アリス'];
  S.table.mode = 'online';
  S.table.seat = 2;  // the reader is Bob: both long names show
  S.table.seats = names.map((name) => ({ kind: 'human', name }));
  S.table.online = { auto: [null, null, null, null], connected: [true, true, true, true],
    rematch: [false, false, false, false], spectators: 0, deadline_ms: null, now_ms: Date.now(),
    move_seconds: 40, ...(S.table.online || {}) };
  overlays.handOverlay({ redraw() {} });
}"""


@pytest.mark.parametrize("lang", ["ja", "en"])
def test_a_long_name_with_no_break_in_it_never_widens_the_scores_on_a_phone(browser, quick_server, lang):
    """A 20-letter Japanese name is one word: in the scores' column head, the winner's line and
    the cards left it breaks where it must, and the dialog stays as wide as a 360-px phone."""
    context = browser.new_context(viewport={"width": 360, "height": 1600}, is_mobile=True, has_touch=True)
    page = context.new_page()
    open_finished_hand(page, quick_server, "classic", lang)
    page.wait_for_selector("#overlay .breakdown")
    page.evaluate(_LONG_NAMES)
    page.wait_for_function("() => document.querySelector('#overlay .breakdown thead').textContent.includes('ながい')")
    dialog = page.locator("#overlay .dialog")
    assert dialog.evaluate("d => d.scrollWidth <= d.clientWidth"), "a long name widens the scores"
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    # every figure of the match totals is inside the dialog
    inside = dialog.evaluate("""d => { const r = d.getBoundingClientRect();
        return [...d.querySelectorAll('.totals b')].every(b => b.getBoundingClientRect().right <= r.right + 0.5); }""")
    assert inside, "a match total is pushed out of the dialog"
    # short names still break only between words
    heads = page.eval_on_selector_all("#overlay .breakdown thead th .side", "els => els.map(e => e.textContent)")
    assert any("アリス" in text for text in heads)
    # the table under the dialog: the score bar cuts a long name short, the page stays 360 px
    page.evaluate("""async () => { (await import('/static/js/screen.js')).redraw();
        document.querySelector('#overlay').style.display = 'none'; }""")
    page.wait_for_function("() => document.querySelector('#scorebar').textContent.includes('あいうえ')")
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), \
        "a long name in the score bar widens the page"
    context.close()


def test_a_phone_breaks_the_japanese_hand_off_between_words(browser, server):
    """Pass-and-play's hand-off on a 390-px phone: 「プレイヤー2に端末を｜渡してください。」,
    not 「…渡してくださ｜い。」 (a lone syllable on the second line)."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    use_prefs(page, lang="ja")
    start_match(page, server.url, mode="local3", target="one_hand", difficulty=None)
    page.wait_for_selector("#overlay[data-kind=handoff] #btn-reveal")
    cells = "#overlay .handoff-text, #overlay .dialog-body .muted, #btn-reveal"
    assert page.eval_on_selector_all(cells, _BROKEN_WORDS) == []
    context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_back_to_the_scores_never_covers_a_table_button(browser, quick_server, size):
    viewport = DESKTOP if size == "desktop" else PHONE
    context = browser.new_context(viewport=viewport, is_mobile=size == "phone", has_touch=size == "phone")
    page = context.new_page()
    open_finished_hand(page, quick_server)
    page.click("#btn-peek")
    page.wait_for_selector("#btn-peek-back")
    page.locator("#btn-peek-back").scroll_into_view_if_needed()
    back = _box(page, "#btn-peek-back")
    others = page.eval_on_selector_all(
        "#table button, .table-nav button",
        "els => els.filter(e => e.id !== 'btn-peek-back' && e.getClientRects().length).map(e => ({ id: e.id || e.className, box: e.getBoundingClientRect().toJSON() }))")
    for other in others:
        assert not _overlap(back, other["box"]), f"Back to the scores covers {other['id']}"
    context.close()


# every control a finger can reach on the table, in the header and in the dialog shown
TARGETS = """(scope) => {
  const sel = 'button, a[href], input, select, summary, [role=button], [tabindex="0"]';
  const roots = scope === 'dialog' ? [document.querySelector('#overlay')] : [document.querySelector('header'), document.querySelector('#table')];
  const out = [];
  for (const root of roots) for (const el of root.querySelectorAll(sel)) {
    if (!el.getClientRects().length || el.closest('[hidden]')) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    // a check box's target is its label; a hand card's the strip the next card leaves
    const target = el.matches('input[type=checkbox], input[type=radio]') && el.closest('label') ? el.closest('label') : el;
    const r = target.getBoundingClientRect();
    let width = r.width;
    if (el.matches('#hand .card')) {
      const next = el.nextElementSibling;
      if (next) {
        const n = next.getBoundingClientRect();
        if (Math.abs(n.top - r.top) < 20) width = n.left - r.left;
      }
    }
    out.push({ what: (el.id ? '#' + el.id : el.tagName.toLowerCase() + '.' + [...el.classList].join('.')) + ' ' + (el.textContent || '').trim().slice(0, 16),
               width, height: r.height });
  }
  return out;
}"""


def _small(page: Any, scope: str = "table") -> list[str]:
    return [f"{t['what']}: {t['width']:.0f}×{t['height']:.0f}" for t in page.evaluate(TARGETS, scope)
            if t["width"] < 44 - 0.5 or t["height"] < 44 - 0.5]


def test_every_tap_target_on_a_phone_is_at_least_44_px(browser, quick_server):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    use_prefs(page)
    seed, actions = many_melds()
    open_position(page, quick_server.url, seed, actions)
    bad = _small(page)
    # a selection shows the rank chips; a staged group its ×
    page.locator("#hand .card:not(.planned)").first.click()
    page.wait_for_selector("#targets .rank-chip")
    bad += _small(page)
    page.locator("#targets .rank-chip").first.click()
    page.wait_for_selector("#planbar .plan-x")
    bad += _small(page)
    page.click("#btn-cancel")
    # the move log unfolded, and the dialogs: a meld's cards, Settings, Help
    page.click("#movelog-title")
    bad += _small(page)
    page.locator("#our-melds .meld button.meld-meta").first.click()
    page.wait_for_selector("#overlay[data-kind=meld] .dialog")
    bad += _small(page, "dialog")
    page.click("#overlay .close")
    for opener, kind in (("#btn-settings", "settings"), ("#btn-help", "help")):
        page.click(opener)
        page.wait_for_selector(f"#overlay[data-kind={kind}] .dialog")
        bad += [f"{kind}: {b}" for b in _small(page, "dialog")]
        page.click("#overlay .close")
        page.wait_for_selector("#overlay", state="hidden")
    assert not bad, "tap targets under 44×44 px:\n" + "\n".join(bad)
    context.close()


def test_the_end_of_hand_dialog_on_a_phone_has_44_px_targets(browser, quick_server):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    open_finished_hand(page, quick_server)
    page.wait_for_selector("#overlay[data-kind=match] .dialog")
    bad = _small(page, "dialog")
    assert not bad, "tap targets under 44×44 px:\n" + "\n".join(bad)
    context.close()


@pytest.mark.parametrize(("size", "preset"), [(11, "classic"), (15, "two-player"), (18, "two-player"), (21, "two-player")])
def test_the_hand_lays_out_in_even_rows_on_a_phone(browser, quick_server, size, preset):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    use_prefs(page)
    seed, actions = growing_hand(size, preset)
    open_position(page, quick_server.url, seed, actions, players=4 if preset == "classic" else 2, preset=preset)
    boxes = page.locator("#hand .card").evaluate_all("els => els.map(e => e.getBoundingClientRect().toJSON())")
    assert len(boxes) == size
    rows: dict[int, list[dict[str, float]]] = {}
    for b in boxes:
        rows.setdefault(round(b["top"]), []).append(b)
    lengths = [len(r) for r in rows.values()]
    assert max(lengths) - min(lengths) <= 1, f"uneven rows for {size} cards: {lengths}"
    assert len(rows) <= (2 if size <= 16 else 3), lengths
    for row in rows.values():
        row.sort(key=lambda b: b["left"])
        for a, b in zip(row, row[1:], strict=False):
            assert b["left"] - a["left"] >= 44 - 0.5, "a card shows less than 44 px"
        assert row[0]["left"] >= 0 and row[-1]["right"] <= PHONE["width"], "the hand is wider than the phone"
        # each row is centred
        assert abs(row[0]["left"] - (PHONE["width"] - row[-1]["right"])) <= 24
    context.close()


def test_played_melds_and_hand_plan_move_within_the_table_on_a_phone(browser, quick_server):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    use_prefs(page)
    seed, actions = many_melds()
    open_position(page, quick_server.url, seed, actions)
    nav = _box(page, "#btn-nav-melds")
    assert nav["y"] + nav["height"] <= PHONE["height"] and nav["height"] >= 44  # always at hand
    page.click("#btn-nav-hand")
    page.wait_for_timeout(200)
    hand = _box(page, "#hand")
    assert hand["y"] >= 0 and hand["y"] + hand["height"] <= nav["y"], "the hand is not in view"
    assert page.evaluate("!!document.activeElement.closest('#hand')")
    page.click("#btn-nav-melds")
    page.wait_for_timeout(200)
    header = _box(page, "header")
    board = _box(page, "#board")
    assert header["y"] + header["height"] - 2 <= board["y"] <= PHONE["height"] / 3, board
    assert page.evaluate("!!document.activeElement.closest('#board')")
    context.close()


def test_staging_a_meld_on_a_phone_keeps_meld_above_the_bottom_bar(browser, quick_server):
    """A staged plan makes the table taller; the page scrolls so Meld stays in sight, clear of
    the bar fixed at the foot of a phone's screen (here only the hand's first row showed)."""
    from canasta import Game, Settings
    from canasta.actions import action_from_json

    seed, actions = many_melds()
    game = Game(Settings.preset("classic", target="one_hand"), seed=seed)
    for a in [*actions, {"type": "draw"}]:
        game.apply(action_from_json(a))
    meld = next((a for a in game.state.view(0).to_json()["legal"]
                 if a["type"] == "meld" and "discard" not in a and len(a["groups"]) == 1), None)
    if meld is None:
        pytest.skip("no meld in this position")
    group = meld["groups"][0]
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    use_prefs(page)
    open_position(page, quick_server.url, seed, actions)
    page.click("#stock")
    page.wait_for_selector("#table[data-phase=play][data-my-turn=yes]")
    for card in group["cards"]:
        page.locator(f"#hand .card[data-card='{card}']:not(.selected):not(.planned)").first.click()
    # scrolled so that the hand's first row sits just above the bar: the buttons are out of sight
    page.evaluate("""() => { const hand = document.querySelector('#hand').getBoundingClientRect();
      const card = document.querySelector('#hand .card').getBoundingClientRect();
      window.scrollBy(0, hand.top - (innerHeight - 64 - card.height)); }""")
    page.locator(f".rank-chip[data-rank='{group['rank']}']").first.click()
    page.wait_for_selector("#hand .card.planned")
    page.wait_for_timeout(300)  # (the scroll)
    box, bar = _box(page, "#btn-meld"), _box(page, ".table-nav")
    assert page.is_enabled("#btn-meld")
    assert box["y"] + box["height"] <= bar["y"] and box["y"] >= 0, (box, bar)
    context.close()
