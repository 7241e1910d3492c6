"""The server issues the browser's identity; a browser of the previous release keeps its
statistics and unfinished matches (server hardening, point 8), in real Chromium."""

from __future__ import annotations

import asyncio
import json
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from canasta import Settings
from canasta.server.db import StatsDelta, Store
from canasta.server.table import Table

from .conftest import page_api, use_prefs

pytestmark = pytest.mark.browser


def _previous_release_rows(db_url: str, legacy: str) -> str:
    """What the previous release stored for a browser: rows keyed by its own profile id."""

    async def write() -> str:
        store = Store(db_url)
        try:
            table = Table.create(
                table_id=uuid.uuid4().hex[:16],
                profile=legacy,
                mode="computer",
                settings=Settings.preset("two-player"),
                difficulty="normal",
                store=store,
                delay_ms=0,
            )
            await store.save_table(
                table.row_values(),
                [StatsDelta(legacy, canastas=2, best_hand=480, finished=True, won=True)],
            )
            return table.id
        finally:
            await store.dispose()

    # Playwright's sync API owns this thread's event loop: write from another thread
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, write()).result(60)


def _with_legacy_profile(page, legacy: str) -> None:
    page.add_init_script(
        "try { if (!sessionStorage.getItem('legacy-set')) {"
        f" localStorage.setItem('canasta.profile', {json.dumps(legacy)});"
        " sessionStorage.setItem('legacy-set', '1'); } } catch (e) {}"
    )


def test_an_old_profile_becomes_a_session_once_and_keeps_its_stats(browser, fresh_server):
    legacy = str(uuid.uuid4())
    fresh_server.stop()
    table = _previous_release_rows(fresh_server.db_url, legacy)
    fresh_server.start()

    context = browser.new_context()
    page = context.new_page()
    use_prefs(page)
    _with_legacy_profile(page, legacy)
    page.goto(fresh_server.url)
    page.wait_for_selector("#btn-start")
    # the old id was handed over and forgotten; the session is a cookie the page cannot read
    assert page.evaluate("localStorage.getItem('canasta.profile')") is None
    assert "canasta_session" not in page.evaluate("document.cookie")
    assert any(c["name"] == "canasta_session" and c["httpOnly"] for c in context.cookies())
    stats = page_api(page, "GET", "/api/stats")
    assert stats["played"] == 1 and stats["won"] == 1 and stats["canastas"] == 2
    assert [t["table"] for t in page_api(page, "GET", "/api/tables")["tables"]] == [table]
    # the unfinished match opens as the player's own table (seat 0, a hand to play)
    page.goto(fresh_server.url + f"#table={table}")
    page.wait_for_selector("#hand .card")
    page.reload()  # the same browser is the same player after a reload
    page.wait_for_selector("#hand .card")
    context.close()

    # another browser presenting the same old id gets nothing of it
    other = browser.new_context()
    page = other.new_page()
    use_prefs(page)
    _with_legacy_profile(page, legacy)
    page.goto(fresh_server.url)
    page.wait_for_selector("#btn-start")
    assert page_api(page, "GET", "/api/stats")["played"] == 0
    assert page_api(page, "GET", "/api/tables")["tables"] == []
    other.close()


def test_the_page_runs_under_its_content_security_policy(browser, server):
    context = browser.new_context()
    page = context.new_page()
    violations: list[str] = []
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    use_prefs(page)
    response = page.goto(server.url)
    assert response is not None
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    page.wait_for_selector("#btn-start")
    page.click("#btn-rules")
    page.wait_for_selector("#rules h1")
    assert violations == []
    context.close()
