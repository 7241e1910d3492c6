"""Write the README screenshots of the table: docs/img/desktop.png (1440x900), docs/img/phone.png
(360x640), docs/img/phone-ja.png (390x844, in Japanese) and docs/img/desktop-midhand.png
(1366x768, later in the hand: the meld areas have wrapped; the move log in view if the page has
one).

Starts the web app on a temporary SQLite database, plays turns against the computer through the
page (draw, discard) until melds are on the table, selects a few cards so the planning
highlights show, and photographs the table in Debian's Chromium.

    python scripts/screenshots.py [--out docs/img] [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SERVER = """
import sys, uvicorn
from canasta.server import ServerConfig, create_app
from canasta.server.transport import uvicorn_options
config = ServerConfig()
uvicorn.run(create_app(sys.argv[1], bot_delay_ms=0, config=config), host="127.0.0.1", port=int(sys.argv[2]),
            log_level="warning", **uvicorn_options(config))
"""
MY_TURN = """() => ['hand', 'match'].includes(document.body.dataset.overlay) ||
  (document.querySelector('#table') || {dataset: {}}).dataset.myTurn === 'yes'"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_up(url: str) -> None:
    for _ in range(300):
        try:
            with urllib.request.urlopen(url + "api/presets", timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the server did not start")


def melds_on_table(page: Page) -> int:
    return int(page.evaluate("document.querySelectorAll('.melds .meld').length"))


def melds_wrapped(page: Page) -> bool:
    """Whether a side's melds take more than one row."""
    return bool(page.evaluate("""() => [...document.querySelectorAll('.melds .meld-list')].some(l =>
        new Set([...l.querySelectorAll('.meld')].map(m => m.offsetTop)).size > 1)"""))


def play_until_melds(page: Page, want: int = 4, max_turns: int = 14, wrapped: bool = False) -> None:
    """Draw and discard until ``want`` melds are on the table (``wrapped``: until a side's melds
    wrap, dealing the next hand when one ends first)."""
    for _ in range(max_turns):
        page.wait_for_function(MY_TURN, timeout=60_000)
        if page.evaluate("document.body.dataset.overlay || ''"):
            if not wrapped or not page.locator("#btn-next-hand").count():
                return
            page.click("#btn-next-hand")
            page.wait_for_function("() => !document.body.dataset.overlay", timeout=20_000)
            continue
        enough = melds_wrapped(page) if wrapped else melds_on_table(page) >= want
        if enough and page.get_attribute("#table", "data-phase") == "play":
            return
        before = page.get_attribute("#table", "data-version")
        phase = page.get_attribute("#table", "data-phase")
        if phase == "draw":
            if page.is_enabled("#btn-draw"):
                page.click("#stock")
            else:
                return
        else:
            page.locator("#hand .card").last.click()
            page.click("#pile")
        page.wait_for_function("(v) => document.querySelector('#table').dataset.version !== v || document.body.dataset.overlay",
                               arg=before, timeout=20_000)


def select_a_pair(page: Page) -> None:
    """Select two cards of one rank (or any card) so the targets light up."""
    cards = page.eval_on_selector_all("#hand .card", "els => els.map(e => e.dataset.card)")
    seen: dict[str, int] = {}
    for i, c in enumerate(cards):
        r = c[0] if c != "JK" else "JK"
        if r in seen and r not in ("2", "3", "JK"):
            page.locator("#hand .card").nth(seen[r]).click()
            page.locator("#hand .card").nth(i).click()
            return
        seen[r] = i
    if cards:
        page.locator("#hand .card").first.click()


#: name, viewport, device scale, language, melds on the table before the picture (0: until they wrap)
SHOTS: list[tuple[str, dict[str, int], int, str, int]] = [
    ("desktop", {"width": 1440, "height": 900}, 1, "en", 4),
    ("phone", {"width": 360, "height": 640}, 2, "en", 4),
    ("phone-ja", {"width": 390, "height": 844}, 2, "ja", 4),
    ("desktop-midhand", {"width": 1366, "height": 768}, 1, "en", 0),
]


def shoot(page: Page, url: str, path: Path, melds: int = 4) -> None:
    page.goto(url)
    page.click("#mode-computer4")
    page.select_option("#set-difficulty", "normal")
    page.select_option("#set-target", "5000")
    page.click("#btn-start")
    page.wait_for_selector("#table[data-phase]")
    if melds:
        play_until_melds(page, want=melds)
    else:
        play_until_melds(page, max_turns=150, wrapped=True)
    if page.get_attribute("#table", "data-phase") == "draw" and page.is_enabled("#btn-draw"):
        before = page.get_attribute("#table", "data-version")
        page.click("#stock")
        page.wait_for_function("(v) => document.querySelector('#table').dataset.version !== v", arg=before)
    select_a_pair(page)
    if page.locator("#movelog").count():  # the move log (when the page has one) in view
        page.locator("#movelog").scroll_into_view_if_needed()
    page.wait_for_timeout(400)
    page.screenshot(path=str(path))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "img"))
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([sys.executable, "-c", SERVER, f"sqlite:///{tmp}/shots.db", str(port)])
        try:
            wait_up(url)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium, args=ARGS, headless=True)
                for name, viewport, scale, lang, melds in SHOTS:
                    prefs = json.dumps(json.dumps({"speed": "off", "lang": lang}))
                    ctx = browser.new_context(viewport=viewport, device_scale_factor=scale,
                                              is_mobile=name.startswith("phone"), has_touch=name.startswith("phone"))
                    page = ctx.new_page()
                    page.add_init_script(f"try {{ localStorage.setItem('canasta.prefs', {prefs}); }} catch (e) {{}}")
                    shoot(page, url, out / f"{name}.png", melds)
                    print(f"wrote {out / (name + '.png')}")
                    ctx.close()
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
