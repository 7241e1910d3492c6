"""The account side's dialogs on a narrow phone, in both languages: nothing in them is wider
than the dialog (no sideways scrolling, no column pushed out of sight)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import page_api, use_prefs

pytestmark = pytest.mark.browser

PHONE = {"width": 360, "height": 640}

#: how far the dialog's content reaches past its right edge (0: it fits)
_OVERFLOW = """() => {
  const d = document.querySelector('#overlay .dialog');
  const right = d.getBoundingClientRect().right;
  const past = [...d.querySelectorAll('*')].map(e => e.getBoundingClientRect().right - right);
  return Math.max(d.scrollWidth - d.clientWidth, ...past, 0);
}"""


def _fits(page: Any, kind: str, ready: str) -> None:
    page.wait_for_selector(f"#overlay[data-kind={kind}] {ready}")
    page.wait_for_timeout(100)
    assert page.evaluate(_OVERFLOW) <= 1, f"{kind}: wider than its dialog"


def _reopen_account(page: Any) -> None:
    page.keyboard.press("Escape")
    page.wait_for_selector("#overlay .dialog", state="detached")
    page.click("#btn-account")
    page.wait_for_selector("#overlay[data-kind=account] .acc-name")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_account_dialogs_fit_a_narrow_phone(browser, server, lang):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    use_prefs(page, lang=lang)
    page.goto(server.url)
    page.wait_for_function("() => document.body.classList.contains('ready')")
    # a coin history with a long reason: a check-in, then the card back with the longest name
    assert page_api(page, "POST", "/api/shop/checkin", {})["award"] == 50
    assert page_api(page, "POST", "/api/shop/buy", {"item": "back:navy"})["coins"] == 0
    page.click("#btn-account")
    _fits(page, "account", ".acc-name")
    page.click("#btn-shop")
    _fits(page, "shop", "#btn-ledger")
    page.click("#btn-ledger")
    _fits(page, "ledger", "#ledger tbody tr")
    _reopen_account(page)
    page.click("#btn-profile")
    _fits(page, "profile", "#profile-name")
    _reopen_account(page)
    page.click("#btn-leaderboard")
    _fits(page, "leaderboard", "#lb-you")
    context.close()
