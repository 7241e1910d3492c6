"""WCAG 2.1 A/AA checks with axe-core on every screen, in English and Japanese, desktop and phone.

axe-core comes from the npm registry, installed by ``scripts/test.sh`` into ``.node/`` (never
fetched at run time); the test injects that local file. Any serious or critical violation fails.
Set ``CANASTA_AXE_REPORT=<file>`` to also write every violation (all impacts) as JSON lines.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import use_prefs
from .helpers import play_simple_turn, start_match, version, wait_my_turn, wait_version_change

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = Path(os.environ.get("CANASTA_AXE", ROOT / ".node" / "node_modules" / "axe-core" / "axe.min.js"))
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
VIEWPORTS = {"desktop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}
COMBOS = [(lang, size) for lang in ("en", "ja") for size in VIEWPORTS]

RUN_AXE = """async (tags) => {
  const r = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
  return r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => ({ target: n.target.join(' '), html: n.html.slice(0, 160), summary: n.failureSummary })) }));
}"""


def _require_axe() -> None:
    if not AXE.exists():
        if os.environ.get("CANASTA_REQUIRE_AXE"):
            pytest.fail(f"axe-core missing at {AXE}")
        pytest.skip(f"axe-core not installed at {AXE} (scripts/test.sh runs: npm install --prefix .node axe-core@4)")


def scan(page: Any, screen: str, lang: str, size: str) -> list[str]:
    """Run axe on the page as it is; return one line per serious or critical violation."""
    page.wait_for_timeout(250)  # let transitions settle so colours are final
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    violations = page.evaluate(RUN_AXE, TAGS)
    report = os.environ.get("CANASTA_AXE_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as f:
            for v in violations:
                f.write(json.dumps({"screen": screen, "lang": lang, "size": size, **v}) + "\n")
    bad = []
    for v in violations:
        if v["impact"] in ("serious", "critical"):
            for n in v["nodes"][:3]:
                bad.append(f"{screen} [{lang} {size}] {v['id']} ({len(v['nodes'])} nodes): {n['target']} :: {n['html']}")
    return bad


def _close_dialog(page: Any) -> None:
    page.keyboard.press("Escape")
    page.wait_for_function("() => !['settings', 'stats', 'help'].includes(document.body.dataset.overlay)")


@pytest.mark.parametrize(("lang", "size"), COMBOS)
def test_axe_every_screen(browser, server, lang, size):
    _require_axe()
    # bypass_csp: axe is injected as an inline script, which the page's policy refuses
    context = browser.new_context(viewport=VIEWPORTS[size], is_mobile=size == "phone", has_touch=size == "phone",
                                  bypass_csp=True)
    page = context.new_page()
    # four-colour suits are checked in half the runs (their greens and blues are the risky ones)
    use_prefs(page, lang=lang, speed="slow", fourColour=(lang, size) in (("en", "phone"), ("ja", "desktop")))
    bad: list[str] = []

    page.goto(server.url)
    page.wait_for_selector("#btn-start")
    bad += scan(page, "start", lang, size)
    page.click("details.rules-details summary")
    bad += scan(page, "start-rules-open", lang, size)

    page.click("#btn-open-rules")
    page.wait_for_selector("#rules .rule-section")
    bad += scan(page, "rules", lang, size)

    page.goto(server.url + "#tutorial")
    page.wait_for_selector("#tutorial .tut-board")
    bad += scan(page, "tutorial", lang, size)
    for _ in range(page.locator("#tutorial .hand .card.hint").count()):
        page.locator("#tutorial .hand .card.hint").first.click()
    page.locator("#tutorial .rank-chip").click()
    bad += scan(page, "tutorial-staged", lang, size)

    # pass-and-play: the handoff screen
    page.goto(server.url)
    start_match(page, server.url, mode="local2", target="one_hand", difficulty=None)
    page.wait_for_selector("#overlay[data-kind=handoff] #btn-reveal")
    bad += scan(page, "handoff", lang, size)

    # a table mid-hand against the computer: draw, select, stage
    start_match(page, server.url, mode="computer4", target=5000)
    assert wait_my_turn(page) == "draw"
    bad += scan(page, "table-draw", lang, size)
    before = version(page)
    page.click("#stock")
    wait_version_change(page, before)
    page.locator("#hand .card").first.click()
    bad += scan(page, "table-selected", lang, size)
    page.locator("#targets .rank-chip").first.click()
    bad += scan(page, "table-staged", lang, size)

    for button, kind in (("#btn-settings", "settings"), ("#btn-stats", "stats"), ("#btn-help", "help")):
        page.click(button)
        page.wait_for_selector(f"#overlay[data-kind={kind}] .dialog-body > *")
        if kind == "stats":
            page.wait_for_selector("#overlay .stats")
        bad += scan(page, kind, lang, size)
        _close_dialog(page)
    page.click("#btn-stats")
    page.wait_for_selector("#btn-reset-stats")
    page.click("#btn-reset-stats")
    page.wait_for_selector("#btn-reset-confirm")
    bad += scan(page, "stats-confirm", lang, size)
    _close_dialog(page)
    context.close()
    assert not bad, "\n".join(bad)


END_BUTTON = {5000: "#btn-next-hand", "one_hand": "#btn-new-match"}


@pytest.fixture(scope="module", params=[5000, "one_hand"], ids=["end-of-hand", "end-of-match"])
def finished(request, browser, server):
    """A two-player match whose first hand has been played to the end: the end-of-hand screen
    (target 5000) or the end-of-match screen (one hand)."""
    context = browser.new_context(viewport=VIEWPORTS["desktop"], bypass_csp=True)  # axe is inline
    page = context.new_page()
    use_prefs(page)
    start_match(page, server.url, mode="computer2", target=request.param)
    deadline = time.monotonic() + 300
    while wait_my_turn(page) != "over":
        if time.monotonic() > deadline:
            pytest.fail("the hand did not end")
        play_simple_turn(page)
    page.wait_for_selector(END_BUTTON[request.param])
    yield page, request.param
    context.close()


@pytest.mark.parametrize(("lang", "size"), COMBOS)
def test_axe_end_of_hand_and_match(finished, lang, size):
    _require_axe()
    page, target = finished
    screen = "end-of-hand" if target == 5000 else "end-of-match"
    button = END_BUTTON[target]
    page.set_viewport_size(VIEWPORTS[size])
    if page.evaluate("document.documentElement.lang") != lang:
        # the language is a stored preference: change it and reload the table
        page.evaluate("""(lang) => {
          const p = JSON.parse(localStorage.getItem('canasta.prefs') || '{}');
          localStorage.setItem('canasta.prefs', JSON.stringify({ ...p, lang }));
          // the table's address (a finished match is no longer remembered to continue)
          if (!location.hash.startsWith('#table=')) throw new Error('not at a table: ' + location.hash);
          location.reload();
        }""", lang)
        page.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)
    page.wait_for_selector(button)
    bad = scan(page, screen, lang, size)
    # the dialog has focus on its main button and keeps Tab inside; the table behind is inert
    if page.evaluate("(sel) => document.activeElement !== document.querySelector(sel)", button):
        bad.append(f"{screen}: focus is not on {button}")
    if not page.evaluate("document.getElementById('app').inert"):
        bad.append(f"{screen}: the page behind is not inert")
    for _ in range(8):
        page.keyboard.press("Tab")
        if not page.evaluate("!!document.activeElement.closest('#overlay .dialog')"):
            bad.append(f"{screen}: Tab left the dialog")
            break
    page.click("#btn-peek")
    page.wait_for_selector("#btn-peek-back")
    bad += scan(page, f"{screen}-table", lang, size)
    if page.evaluate("document.activeElement.id") != "btn-peek-back":
        bad.append(f"{screen}: focus is not on the button back to the scores")
    page.click("#btn-peek-back")
    page.wait_for_selector(button)
    assert not bad, "\n".join(bad)
