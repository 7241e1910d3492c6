"""A session ended elsewhere (another browser of the account logs out everywhere, or changes
the password), in real Chromium: the page becomes a new guest, as on a first visit, says so
once, and reconnects its sockets with the new session, without a storm of reconnections; a
socket the server closes straight away is asked again less and less often."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest

from .conftest import CHROMIUM, CHROMIUM_ARGS, Server, page_api, use_prefs
from .helpers import start_match, wait_my_turn

pytestmark = pytest.mark.browser

PASSWORD = "a long enough secret"
ENDED = "You were logged out on this device"


def _page(browser: Any, server: Server, lang: str = "en") -> tuple[Any, Any]:
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    use_prefs(page, lang=lang)
    page.goto(server.url)
    page.wait_for_selector("body.ready")
    return context, page


def _two_browsers_of_one_account(browser: Any, server: Server) -> tuple[list[Any], str]:
    """Browser X registers (the server has no SMTP: at once), browser Y logs in to the same
    account and loads the page again; their contexts, pages and the account id."""
    email = f"s-{uuid.uuid4().hex[:10]}@example.test"
    cx, x = _page(browser, server)
    account = page_api(x, "POST", "/api/account/register", {"email": email, "password": PASSWORD, "lang": "en"})["account"]
    assert account["kind"] == "registered"
    cy, y = _page(browser, server)
    assert page_api(y, "POST", "/api/account/login", {"email": email, "password": PASSWORD})["account"]["id"] == account["id"]
    y.goto(server.url)
    y.wait_for_selector("body.ready")
    return [cx, x, cy, y], account["id"]


def _sockets(page: Any, path: str) -> list[float]:
    """The times at which ``page`` opens a websocket to ``path`` from now on."""
    opened: list[float] = []
    page.on("websocket", lambda ws: opened.append(time.monotonic()) if path in ws.url else None)
    return opened


def test_a_lobby_whose_session_ends_elsewhere_becomes_a_new_guest_without_a_reconnection_storm(browser, fresh_server) -> None:
    (cx, x, cy, y), account = _two_browsers_of_one_account(browser, fresh_server)
    y.click("#btn-online")
    y.wait_for_selector("#btn-find-match:not([disabled])")
    lobby = _sockets(y, "/ws/lobby")
    assert page_api(x, "POST", "/api/account/logout-all", {})["revoked"] == 2
    # the server closes Y's lobby socket (4401); Y says once that it was logged out
    y.wait_for_selector(f"#toast.show:has-text('{ENDED}')", timeout=5_000)
    y.wait_for_timeout(5_000)
    assert 1 <= len(lobby) <= 3, f"{len(lobby)} lobby sockets in 5 s"
    # in the lobby as a new guest, with its new session
    y.wait_for_selector("#btn-find-match:not([disabled])", timeout=2_000)
    assert "Guest" in y.text_content("#online-you")
    me = page_api(y, "GET", "/api/account")["account"]
    assert me["kind"] == "guest" and me["id"] != account
    assert y.get_attribute("#btn-account", "data-kind") == "guest"
    assert not y.errors
    cx.close()
    cy.close()


def test_a_table_socket_whose_session_ends_reconnects_to_watch_as_a_new_guest(browser, fresh_server) -> None:
    (cx, x, cy, y), account = _two_browsers_of_one_account(browser, fresh_server)
    start_match(y, fresh_server.url)
    tables = _sockets(y, "/ws/tables/")
    password = {"current": PASSWORD, "password": "another long secret"}
    assert page_api(x, "POST", "/api/account/password", password)["revoked"] == 1
    y.wait_for_selector(f"#toast.show:has-text('{ENDED}')", timeout=5_000)
    y.wait_for_timeout(5_000)
    assert 1 <= len(tables) <= 3, f"{len(tables)} table sockets in 5 s"
    # connected again (no "Reconnecting…" tag), watching: the table is the ended account's
    assert "Reconnecting" not in y.text_content("#table")
    assert y.get_attribute("#table", "data-my-turn") != "yes"
    me = page_api(y, "GET", "/api/account")["account"]
    assert me["kind"] == "guest" and me["id"] != account
    assert not y.errors
    cx.close()
    cy.close()


def test_the_account_panel_and_the_shop_show_the_new_guest_once_the_session_ended(browser, fresh_server) -> None:
    """Y1 opens its account panel after the end; Y2 had it open, and opens the shop."""
    (cx, x, cy1, y1), account = _two_browsers_of_one_account(browser, fresh_server)
    email = page_api(x, "GET", "/api/account")["account"]["email"]
    cy2, y2 = _page(browser, fresh_server)
    page_api(y2, "POST", "/api/account/login", {"email": email, "password": PASSWORD})
    y2.goto(fresh_server.url)
    y2.wait_for_selector("body.ready")
    y2.click("#btn-account")
    y2.wait_for_function("(e) => document.querySelector('#overlay .acc-kind')?.textContent === e", arg=email)
    assert page_api(x, "POST", "/api/account/logout-all", {})["revoked"] == 3

    y1.click("#btn-account")
    y1.wait_for_function("() => document.querySelector('#overlay .acc-kind')?.textContent === 'Guest account (this browser only)'", timeout=5_000)
    assert email not in y1.text_content("#overlay")
    assert y1.locator("#btn-logout").count() == 0
    assert y1.get_attribute("#btn-account", "data-kind") == "guest"
    y1.wait_for_selector(f"#toast.show:has-text('{ENDED}')")

    y2.click("#btn-shop")
    y2.wait_for_selector("#overlay[data-kind=shop] #shop-coins", timeout=5_000)
    assert y2.text_content("#shop-coins") == "0"
    assert y2.is_enabled("#btn-checkin")
    shop = y2.text_content("#overlay")
    assert "Loading" not in shop and "reload the page" not in shop
    y2.keyboard.press("Escape")
    y2.click("#btn-account")
    y2.wait_for_selector("#overlay[data-kind=account] #form-register")
    assert email not in y2.text_content("#overlay")
    for page in (y1, y2):
        assert page_api(page, "GET", "/api/account")["account"]["id"] != account
        assert not page.errors
    cx.close()
    cy1.close()
    cy2.close()


def test_a_socket_the_server_closes_straight_away_is_asked_again_less_and_less_often(browser, fresh_server) -> None:
    """Eight lobby sockets of the account are open already: the server accepts the page's
    and closes it at once (1013, too many lobby tabs), again and again."""
    context, page = _page(browser, fresh_server)
    held = page.evaluate(
        """async () => {
            window.heldSockets = [];
            for (let i = 0; i < 8; i++) {
                const ws = new WebSocket(`ws://${location.host}/ws/lobby`);
                await new Promise((ok) => { ws.onmessage = ok; });
                window.heldSockets.push(ws);
            }
            return window.heldSockets.length;
        }"""
    )
    assert held == 8
    lobby = _sockets(page, "/ws/lobby")
    page.click("#btn-online")
    page.wait_for_timeout(5_000)
    # without the back-off growing, one every 300 ms: about 16
    assert 1 <= len(lobby) <= 6, f"{len(lobby)} lobby sockets in 5 s"
    assert page.is_disabled("#btn-find-match")
    # room again: the page's socket gets in (within the longest wait, 4 s)
    page.evaluate("() => window.heldSockets.forEach((ws) => ws.close())")
    page.wait_for_selector("#btn-find-match:not([disabled])", timeout=6_000)
    context.close()


def test_a_browser_that_keeps_no_cookie_plays_all_the_same(browser, tmp_path) -> None:
    """A Secure session cookie over plain http (a misconfigured proxy): the browser keeps no
    cookie. The page sees its session did not stick and keeps the session itself (in memory,
    sent in a header and as its sockets' subprotocol): the shop, the lobby and a match against
    the computer work, no stream of new guests is made, and nobody is told they were logged
    out."""
    server = Server(tmp_path / "canasta.db", config={"secure_cookies": True, "allowed_hosts": ["canasta.test", "127.0.0.1"]})
    server.start()
    # a name that is not this machine's: plain http there is no secure context
    other = browser.browser_type.launch(
        executable_path=CHROMIUM, headless=True,
        args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP canasta.test 127.0.0.1"])
    try:
        page = other.new_context(bypass_csp=True).new_page()
        page.errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        sessions: list[float] = []
        page.on("request", lambda r: sessions.append(time.monotonic())
                if r.url.endswith("/api/session") and r.method == "POST" else None)
        use_prefs(page)
        page.goto(f"http://canasta.test:{server.port}/")
        page.wait_for_selector("body.ready")
        assert page.context.cookies() == []
        page.click("#btn-account")
        page.wait_for_selector("#overlay[data-kind=account] #btn-shop")
        page.click("#btn-shop")
        page.wait_for_selector("#overlay[data-kind=shop] .shop-item")  # read with the session
        assert page.locator("#shop-note.warn").count() == 0
        page.keyboard.press("Escape")
        page.click("#btn-online")
        page.wait_for_selector("#btn-find-match:not([disabled])", timeout=10_000)  # the lobby's socket
        page.wait_for_timeout(3000)
        assert len(sessions) <= 2, f"{len(sessions)} sessions asked for"
        # a new load (the session lived in the page: a new guest) deals a match and plays it
        start_match(page, f"http://canasta.test:{server.port}/", mode="computer2")
        wait_my_turn(page)
        page.click("#stock")
        page.wait_for_selector("#table[data-phase=play]")  # a move, through the table's socket
        assert page.context.cookies() == []
        assert len(sessions) <= 4, f"{len(sessions)} sessions asked for in two loads"
        assert page.locator(f"#toast:text('{ENDED}')").count() == 0
        assert not page.errors, page.errors
    finally:
        other.close()
        server.stop()
