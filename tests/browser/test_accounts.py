"""Accounts in real Chromium: registration confirmed by a link mailed through a local SMTP
server (aiosmtpd), login in a second browser with the same stats and coins (and the second
browser's guest stats added), recovery through the SMTP server, check-in and a purchase whose
card back shows at a table, the coin history in English and Japanese, and a report sent from
the table with its match record."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from canasta.server.db import StatsDelta, Store
from canasta.server.reports import list_reports
from tests.accounts.support import Inbox, smtp_server

from .conftest import Server, page_api, use_prefs
from .helpers import in_db, start_match

pytestmark = pytest.mark.browser

PASSWORD = "a long enough secret"


@pytest.fixture
def mail_server(tmp_path: Path) -> Iterator[tuple[Server, Inbox]]:
    with smtp_server() as (url, inbox):
        s = Server(tmp_path / "canasta.db", config={"smtp_url": url, "allowed_hosts": ["127.0.0.1"]})
        s.start()
        try:
            yield s, inbox
        finally:
            s.stop()


def _page(browser, server: Server, lang: str = "en"):
    context = browser.new_context(bypass_csp=True)
    page = context.new_page()
    use_prefs(page, lang=lang)
    page.goto(server.url)
    page.wait_for_function("() => document.body.classList.contains('ready')")
    return context, page


def _open_account(page) -> None:
    page.click("#btn-account")
    page.wait_for_selector("#overlay[data-kind=account] .acc-name")


def _wait_registered(page, email: str) -> None:
    try:
        page.wait_for_function(
            "(e) => (document.querySelector('#overlay .acc-kind') || {}).textContent === e",
            arg=email, timeout=10_000,
        )
    except Exception:
        print("OVERLAY:", page.text_content("#overlay"))
        raise


def _add_stats(db_url: str, *deltas: StatsDelta) -> None:
    """Statistics as a finished match of these profiles would save them."""

    async def write(store: Store) -> None:
        async with store.sessions() as s, s.begin():
            await store._apply_deltas(s, list(deltas))

    in_db(db_url, write)


def _reports(db_url: str) -> list:
    return in_db(db_url, list_reports)


def _confirm_link(page, server: Server, inbox: Inbox, email: str, count: int) -> None:
    """Open the confirmation link mailed to ``email`` (the ``count``-th mail) in ``page``."""
    mail = inbox.wait(count)[count - 1]
    assert mail["To"] == email
    token = Inbox.token(mail, "confirm")
    page.goto(f"{server.url}#confirm={token}")
    page.wait_for_selector("#overlay[data-kind=confirm] #confirm-result.good")
    assert "confirm=" not in page.url  # the token leaves the address bar


def test_register_buy_a_card_back_play_and_report_then_log_in_elsewhere(browser, mail_server) -> None:
    server, inbox = mail_server
    email = f"b-{uuid.uuid4().hex[:10]}@example.test"
    first, page = _page(browser, server)
    _open_account(page)
    page.fill("#reg-email", email)
    page.fill("#reg-password", PASSWORD)
    page.click("#form-register button[type=submit]")
    # "check your mail": nothing is registered until the link is opened
    page.wait_for_selector(".acc-note.good")
    assert email in page.text_content(".acc-note.good")
    page.wait_for_selector("#reg-pending")
    assert page_api(page, "GET", "/api/account")["account"]["kind"] == "guest"
    _confirm_link(page, server, inbox, email, 1)
    assert email in page.text_content("#confirm-result")
    page.keyboard.press("Escape")
    _open_account(page)
    _wait_registered(page, email)
    page.click("#btn-shop")
    page.wait_for_selector("#btn-checkin:not([disabled])")
    page.click("#btn-checkin")
    page.wait_for_selector("#btn-checkin[disabled]")
    assert page.text_content("#shop-coins") == "50"
    page.click("li[data-item='back:navy'] button")
    page.click("li[data-item='back:navy'] button:text-is('Equip')")
    assert page.text_content("#shop-coins") == "0"
    page.wait_for_function("() => document.body.dataset.back === 'navy'")
    page.keyboard.press("Escape")
    # an offline table shows the chosen back
    start_match(page, server.url)
    # read in the page itself: a redraw may replace the card between finding and reading it
    # (a detached element has no computed style)
    page.wait_for_function(
        """() => {
            const back = document.querySelector(".card.back");
            return back !== null && back.isConnected
                && getComputedStyle(back).backgroundImage.includes("rgb(28, 47, 107)");
        }"""
    )
    table_id = page_api(page, "GET", "/api/tables")["tables"][0]["table"]  # the match just started
    page.click("#btn-report")
    page.wait_for_selector("#overlay[data-kind=report] #report-attach:checked")
    page.select_option("#report-category", "rules")
    page.fill("#report-text", "The pile looked frozen")
    page.click("#form-report button[type=submit]")
    page.wait_for_selector("#report-done")
    assert "match record" in page.text_content("#report-done")
    (report,) = [r for r in _reports(server.db_url) if r.description == "The pile looked frozen"]
    assert report.category == "rules" and report.record is not None
    assert report.table_id == table_id
    stats = page_api(page, "GET", "/api/stats")
    account = page_api(page, "GET", "/api/account")["account"]

    # another browser (its own cookies and storage): a guest until it logs in; what its
    # guest played is added to the account
    second, other = _page(browser, server)
    assert other.evaluate("document.body.dataset.back") == "classic"
    guest = page_api(other, "GET", "/api/account")["account"]["id"]
    _add_stats(server.db_url, StatsDelta(guest, canastas=2, best_hand=700, finished=True, won=True))
    _open_account(other)
    other.fill("#login-email", email)
    other.fill("#login-password", "wrong password!")
    other.click("#form-login button[type=submit]")
    other.wait_for_selector(".acc-note.warn:text('The email or the password is wrong.')")
    other.fill("#login-password", PASSWORD)
    other.click("#form-login button[type=submit]")
    _wait_registered(other, email)
    other.wait_for_function("() => document.body.dataset.back === 'navy'")
    assert page_api(other, "GET", "/api/account")["account"]["id"] == account["id"]
    other.wait_for_selector("#acc-merged")
    assert "1 match" in other.text_content("#acc-merged")
    merged = page_api(other, "GET", "/api/stats")
    assert merged == {**stats, "played": stats["played"] + 1, "won": stats["won"] + 1,
                      "canastas": stats["canastas"] + 2,
                      "best_hand": max(stats["best_hand"] or 0, 700),
                      "best_streak": max(stats["best_streak"], 1)}
    assert page_api(page, "GET", "/api/stats") == merged  # the same account on both
    assert other.text_content("#acc-coins").strip().endswith("0")
    other.click("#btn-profile")
    other.wait_for_selector("#profile-name")
    assert other.text_content("#profile-name") == account["name"]
    assert other.locator(".profile-rating svg.rating-chart").count() == 2
    first.close()
    second.close()


def test_forgot_password_through_the_local_smtp_server(browser, mail_server) -> None:
    server, inbox = mail_server
    email = f"r-{uuid.uuid4().hex[:10]}@example.test"
    first, page = _page(browser, server)
    page_api(page, "POST", "/api/account/register", {"email": email, "password": PASSWORD})
    _confirm_link(page, server, inbox, email, 1)
    account = page_api(page, "GET", "/api/account")["account"]
    assert account["kind"] == "registered"
    first.close()
    context, page = _page(browser, server)
    _open_account(page)
    page.click("#btn-forgot")
    page.fill("#forgot-email", email)
    page.click("#form-forgot button[type=submit]")
    page.wait_for_selector(".acc-note.good")
    mail = inbox.wait(2)[1]
    token = Inbox.token(mail)
    page.goto(f"{server.url}#reset={token}")
    page.wait_for_selector("#overlay[data-kind=reset] #reset-password")
    assert "reset=" not in page.url  # the token leaves the address bar
    page.fill("#reset-password", "my new password")
    page.click("#form-reset button[type=submit]")
    page.wait_for_selector("#overlay[data-kind=reset] .good")
    assert page_api(page, "GET", "/api/account")["account"]["id"] == account["id"]
    # the link worked once
    assert page_api(page, "POST", "/api/account/reset", {"token": token, "password": "another one!"})["error"]["code"] == "bad_token"
    context.close()


def test_account_news_arriving_while_typing_keeps_the_password_and_the_caret(browser, mail_server) -> None:
    """Opening the panel asks for fresh account data; when it arrives changed (here, coins
    from a check-in elsewhere) while a password is being typed, the panel redraws without
    losing the typed email and password or the focus, and the registration goes through."""
    server, inbox = mail_server
    email = f"k-{uuid.uuid4().hex[:10]}@example.test"
    context, page = _page(browser, server)
    held: list = []
    page.route("**/api/account", lambda route: held.append(route) if route.request.method == "GET" else route.continue_())
    page.click("#btn-account")
    page.wait_for_selector("#overlay[data-kind=account] #reg-password")
    page.wait_for_function("() => true")  # a round trip: the route handler has run
    assert len(held) == 1  # the panel shows the data it had, and asks for fresh
    page.fill("#reg-email", email)
    page.fill("#reg-password", PASSWORD)
    assert page_api(page, "POST", "/api/shop/checkin", {})["award"] == 50
    held[0].continue_()
    page.unroute("**/api/account")
    page.wait_for_function("() => document.getElementById('acc-coins').textContent.endsWith('50')")
    assert page.input_value("#reg-email") == email
    assert page.input_value("#reg-password") == PASSWORD
    assert page.evaluate("() => document.activeElement.id") == "reg-password"
    page.click("#form-register button[type=submit]")
    page.wait_for_selector("#reg-pending")
    assert inbox.wait(1)[0]["To"] == email
    context.close()


def test_without_smtp_the_page_says_recovery_is_unavailable(browser, server) -> None:
    context, page = _page(browser, server)
    _open_account(page)
    page.click("#btn-forgot")
    page.wait_for_selector("#recovery-unavailable")
    assert "unavailable" in page.text_content("#recovery-unavailable")
    context.close()


def test_the_coin_history_lists_every_change_in_english_and_japanese(browser, server) -> None:
    context, page = _page(browser, server)
    assert page_api(page, "POST", "/api/shop/checkin", {})["award"] == 50
    assert page_api(page, "POST", "/api/shop/buy", {"item": "back:navy"})["coins"] == 0
    page.click("#btn-account")
    page.wait_for_selector("#overlay[data-kind=account] #btn-shop")
    page.click("#btn-shop")
    page.wait_for_selector("#btn-ledger")
    page.click("#btn-ledger")
    page.wait_for_selector("#overlay[data-kind=ledger] #ledger")
    heads = [h.strip() for h in page.locator("#ledger th").all_text_contents()]
    assert heads == ["Date", "Change", "Reason", "Balance"]
    rows = [[c.strip() for c in r.locator("td").all_text_contents()] for r in page.locator("#ledger tbody tr").all()]
    assert [r[1:] for r in rows] == [
        ["-50", "Bought the card back “Navy stripes”", "0"],
        ["+50", "Daily check-in", "50"],
    ]
    assert all(r[0] for r in rows)  # a date on each
    assert page.locator("#ledger tbody time").first.get_attribute("datetime")
    page.click("#btn-ledger-back")
    page.wait_for_selector("#overlay[data-kind=shop] #btn-ledger")
    # the same history in Japanese, from another browser logged in to the account
    email = f"l-{uuid.uuid4().hex[:10]}@example.test"
    assert page_api(page, "POST", "/api/account/register", {"email": email, "password": PASSWORD})["account"]["kind"] == "registered"
    context.close()
    context, page = _page(browser, server, lang="ja")
    page_api(page, "POST", "/api/account/login", {"email": email, "password": PASSWORD})
    page.click("#btn-account")
    page.wait_for_selector("#overlay[data-kind=account] #btn-shop")
    page.click("#btn-shop")
    page.click("#btn-ledger")
    page.wait_for_selector("#overlay[data-kind=ledger] #ledger")
    heads = [h.strip() for h in page.locator("#ledger th").all_text_contents()]
    assert heads == ["日時", "増減", "内容", "残高"]
    reasons = [r.locator("td").nth(2).text_content() for r in page.locator("#ledger tbody tr").all()]
    assert reasons[1] == "デイリーチェックイン" and "購入" in reasons[0]
    context.close()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_axe_the_confirmation_and_coin_history_dialogs(browser, mail_server, lang) -> None:
    from .test_accessibility import _require_axe, scan

    _require_axe()
    server, inbox = mail_server
    email = f"a-{uuid.uuid4().hex[:10]}@example.test"
    context, page = _page(browser, server, lang=lang)
    bad: list[str] = []
    _open_account(page)
    page.fill("#reg-email", email)
    page.fill("#reg-password", PASSWORD)
    page.click("#form-register button[type=submit]")
    page.wait_for_selector("#reg-pending")
    bad += scan(page, "account-pending", lang, "desktop")
    _confirm_link(page, server, inbox, email, 1)
    bad += scan(page, "confirmed", lang, "desktop")
    page_api(page, "POST", "/api/shop/checkin", {})
    page_api(page, "POST", "/api/shop/buy", {"item": "back:navy"})
    page.keyboard.press("Escape")
    _open_account(page)
    page.click("#btn-shop")
    page.click("#btn-ledger")
    page.wait_for_selector("#overlay[data-kind=ledger] #ledger")
    bad += scan(page, "ledger", lang, "desktop")
    context.close()
    assert not bad, "\n".join(bad)


def _registered(browser, server: Server, lang: str = "en"):
    """A page registered at once (the server has no SMTP) and loaded again; its email."""
    email = f"p-{uuid.uuid4().hex[:10]}@example.test"
    context, page = _page(browser, server, lang=lang)
    assert page_api(page, "POST", "/api/account/register", {"email": email, "password": PASSWORD, "lang": lang})["account"]["kind"] == "registered"
    page.goto(server.url)
    page.wait_for_selector("body.ready")
    return context, page, email


def _open_part(page, part: str) -> None:
    """Open one of the panel's parts (change password, delete my account...)."""
    page.click(f"#{part} > summary", timeout=5_000)
    page.wait_for_selector(f"#{part}[open]")


def test_a_guest_deletes_their_account_from_the_panel_but_not_while_in_a_match(browser, fresh_server) -> None:
    from .test_online import quick_match

    # two guests in a quick match: their accounts cannot go while it is played
    pages = [_page(browser, fresh_server) for _ in range(2)]
    quick_match([p for _, p in pages], fresh_server.url, "two-player")
    context, page = pages[0]
    guest = page_api(page, "GET", "/api/account")["account"]["id"]
    _open_account(page)
    _open_part(page, "delete-account")
    assert page.locator("#delete-password").count() == 0  # a guest has no password to give
    assert "leaderboard" in page.text_content("#delete-account")
    page.click("#form-delete button[type=submit]")
    page.wait_for_selector(".acc-note.warn")
    assert page.text_content(".acc-note.warn") == "Finish or leave your online match first."
    assert page_api(page, "GET", "/api/account")["account"]["id"] == guest
    for c, _ in pages:
        c.close()
    # a guest out of any match: deleted, and the page is a new guest
    context, page = _page(browser, fresh_server)
    guest = page_api(page, "GET", "/api/account")["account"]["id"]
    _open_account(page)
    _open_part(page, "delete-account")
    page.click("#form-delete button[type=submit]")
    page.wait_for_selector(".acc-note.good")
    assert page.text_content(".acc-note.good") == "Your account is deleted. This browser is a new guest."
    me = page_api(page, "GET", "/api/account")["account"]
    assert me["kind"] == "guest" and me["id"] != guest
    assert page_api(page, "GET", f"/api/players/{guest}")["error"]["code"] == "player_not_found"
    context.close()


@pytest.mark.parametrize(("lang", "wrong"), [("en", "The password is wrong."), ("ja", "パスワードが違います。")])
def test_the_forms_that_ask_only_for_the_password_say_the_password_is_wrong(browser, fresh_server, lang, wrong) -> None:
    context, page, email = _registered(browser, fresh_server, lang)
    _open_account(page)

    def submit(form: str) -> str:
        """The note the panel shows after ``form`` is sent (a new one: the panel redraws)."""
        page.evaluate("() => document.querySelector('#overlay .acc-note')?.setAttribute('data-old', '')")
        page.click(f"#{form} button[type=submit]")
        page.wait_for_selector("#overlay .acc-note.warn:not([data-old])")
        return page.text_content("#overlay .acc-note.warn")

    _open_part(page, "change-password")
    page.fill("#pw-current", "not the password")
    page.fill("#pw-new", "a brand new secret")
    assert submit("form-password") == wrong
    _open_part(page, "change-email")
    page.fill("#email-new", f"n-{email}")
    page.fill("#email-password", "not the password")
    assert submit("form-email") == wrong
    _open_part(page, "delete-account")
    page.fill("#delete-password", "not the password")
    assert submit("form-delete") == wrong
    assert page_api(page, "GET", "/api/account")["account"]["email"] == email  # nothing changed
    context.close()


def test_a_reset_link_that_cannot_be_used_offers_a_new_link_instead_of_the_form(browser, mail_server) -> None:
    server, _inbox = mail_server
    context, page = _page(browser, server)
    page.goto(f"{server.url}#reset={uuid.uuid4().hex}{uuid.uuid4().hex[:11]}")  # used, expired or unknown
    page.wait_for_selector("#overlay[data-kind=reset] #reset-password")
    page.fill("#reset-password", "my new password")
    page.click("#form-reset button[type=submit]")
    page.wait_for_selector("#overlay[data-kind=reset] p.warn", timeout=10_000)
    assert "ask for a new one" in page.text_content("#overlay p.warn")
    # no form to fill in vain: the way to a new link instead
    assert page.locator("#overlay #reset-password, #overlay #form-reset").count() == 0
    page.click("#btn-reset-new-link", timeout=5_000)
    page.wait_for_selector("#overlay[data-kind=account] #forgot-email")
    context.close()


def test_a_shop_that_cannot_be_read_says_why_and_is_not_left_loading(browser, server) -> None:
    context, page = _page(browser, server)
    down = '{"error": {"code": "storage_unavailable", "message": "down"}}'
    page.route("**/api/shop", lambda route: route.fulfill(status=503, content_type="application/json", body=down))
    _open_account(page)
    page.click("#btn-shop")
    page.wait_for_selector("#overlay[data-kind=shop] #shop-note.warn")
    page.wait_for_timeout(300)  # a redraw would have come
    assert page.text_content("#shop-note") == "The server's storage is unavailable: try again in a moment."
    assert "Loading" not in page.text_content("#overlay")
    context.close()


def test_the_display_name_changes_from_the_account_panel_too(browser, server) -> None:
    """The name shown at online tables is changed from the account panel as in the lobby: a
    guest's field starts empty (showing the given name), a given name is refused in words,
    and the new name shows in the panel and the lobby."""
    context, page = _page(browser, server)
    _open_account(page)
    given = page.text_content("#overlay .acc-name")
    assert given.startswith("Guest ")
    page.click("#change-name summary")
    assert page.input_value("#name-new") == ""
    assert page.get_attribute("#name-new", "placeholder") == given
    page.fill("#name-new", "Computer 2")
    page.click("#form-name button[type=submit]")
    page.wait_for_selector(".acc-note.warn:text('The game uses that name itself, for guests, computer players or seats')")
    page.fill("#name-new", "Zoë")
    page.click("#form-name button[type=submit]")
    page.wait_for_selector(".acc-note.good:text('Name saved')")
    assert page.text_content("#overlay .acc-name") == "Zoë"
    page.keyboard.press("Escape")
    page.click("#btn-online")
    page.wait_for_selector("#online-you .you-name:text('Zoë')")
    context.close()
