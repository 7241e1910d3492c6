"""A report about a player names them: at an online table by choosing their seat from the
other people there, and from their profile (opened from the leaderboard) with that player
fixed. The stored report names the right account; the form fits a 360-px phone in Japanese."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from canasta.server.db import Store, now
from canasta.server.models_accounts import RatingRow
from canasta.server.reports import list_reports

from .conftest import Server, page_api
from .helpers import in_db
from .test_accessibility import AXE, scan
from .test_online import ONLINE, contexts, open_lobby
from .test_phone_panels import _OVERFLOW

pytestmark = pytest.mark.browser


@pytest.fixture
def online_server(tmp_path: Path) -> Any:
    s = Server(tmp_path / "canasta.db", config=ONLINE)
    s.start()
    yield s
    s.stop()


def _rated(db_url: str, account_id: str) -> None:
    """A classic rating for the account, so that the leaderboard lists it."""

    async def write(store: Store) -> None:
        async with store.sessions() as s, s.begin():
            s.add(RatingRow(account_id=account_id, kind="classic", mu=27.0, sigma=6.0,
                            ordinal=9.0, played=3, updated_at=now()))

    in_db(db_url, write)


def _report(db_url: str, description: str) -> Any:
    (found,) = [r for r in in_db(db_url, list_reports) if r.description == description]
    return found


def _send(page: Any, description: str) -> None:
    page.fill("#report-text", description)
    page.click("#form-report button[type=submit]")
    page.wait_for_selector("#report-done")


def _fits(page: Any, screen: str) -> None:
    """The form fits the phone, and axe (when installed) finds nothing serious in it."""
    page.wait_for_timeout(100)
    assert page.evaluate(_OVERFLOW) <= 1, "the report form is wider than its dialog"
    if AXE.exists():
        assert scan(page, screen, "ja", "phone") == []


def test_a_player_is_reported_from_the_table_and_from_their_profile(browser, online_server, tmp_path):
    phone = browser.new_context(bypass_csp=True, viewport={"width": 360, "height": 640},
                                is_mobile=True, has_touch=True)
    phone.add_init_script(
        "try { if (!sessionStorage.getItem('prefs-set')) {"
        " localStorage.setItem('canasta.prefs', JSON.stringify({speed: 'off', lang: 'ja'}));"
        " sessionStorage.setItem('prefs-set', '1'); } } catch (e) {}"
    )
    a = phone.new_page()
    (b,) = contexts(browser, 1)
    for page, name in ((a, "Ann"), (b, "Bo")):
        open_lobby(page, online_server.url)
        page.click("#btn-edit-name")
        page.fill("#name-input", name)
        page.click("#btn-save-name")
        page.wait_for_selector(f"#online-you .you-name:text('{name}')")
        page.click("#quick-preset [data-value='two-player']")
        page.click("#btn-find-match")
        page.wait_for_selector("#queue-waiting, #table .seats")
    for page in (a, b):
        page.wait_for_selector("#table .seats", timeout=20_000)
    table = a.evaluate("location.hash").removeprefix("#table=")
    bo = page_api(b, "GET", "/api/account")["account"]["id"]

    # at the table: "Which player" lists the other person, never Ann herself
    a.click("#btn-report")
    a.wait_for_selector("#overlay[data-kind=report] #report-category")
    assert a.is_hidden("#report-player")  # shown for a report about a player only
    a.select_option("#report-category", "player")
    a.wait_for_selector("#report-player", state="visible")
    options = a.eval_on_selector_all("#report-player option", "os => os.map(o => [o.value, o.textContent])")
    assert [text for _, text in options] == ["プレイヤーを選んでください", "Bo"]
    assert a.text_content("label[for=report-player] .field-label") == "どのプレイヤーですか？"
    assert a.is_hidden("#report-attach")  # the record goes with a report about a seat
    _fits(a, "report at a table")
    a.fill("#report-text", "暴言を吐かれた")
    a.click("#form-report button[type=submit]")  # nobody chosen yet: the form says so
    a.wait_for_selector("#report-error:text('報告の対象となるプレイヤーを選んでください。')")
    assert a.evaluate("document.activeElement.id") == "report-player"
    a.select_option("#report-player", options[1][0])
    a.click("#form-report button[type=submit]")
    a.wait_for_selector("#report-done")
    stored = _report(online_server.db_url, "暴言を吐かれた")
    assert stored.category == "player" and stored.player_id == bo
    assert stored.table_id == table and stored.record is not None
    a.keyboard.press("Escape")

    # from Bo's profile, opened from the leaderboard: Bo is fixed, no table goes with it
    _rated(online_server.db_url, bo)
    a.click("#btn-account")
    a.wait_for_selector("#overlay[data-kind=account] .acc-name")
    a.click("#btn-profile")  # Ann's own profile offers no report
    a.wait_for_selector("#profile-name")
    assert a.locator("#btn-report-player").count() == 0
    a.keyboard.press("Escape")
    a.click("#btn-account")
    a.click("#btn-leaderboard")
    a.click("table.leaderboard button:text-is('Bo')")
    a.wait_for_selector("#profile-name:text-is('Bo')")
    a.click("#btn-report-player")
    a.wait_for_selector("#overlay[data-kind=report] #report-player-fixed")
    assert a.input_value("#report-category") == "player"
    assert a.text_content("#report-player-fixed") == "Bo"
    assert a.locator("#report-player").count() == 0 and a.locator("#report-attach").count() == 0
    _fits(a, "report from a profile")
    _send(a, "プロフィールから報告")
    stored = _report(online_server.db_url, "プロフィールから報告")
    assert stored.player_id == bo and stored.table_id is None and stored.record is None
    phone.close()
    b.context.close()
