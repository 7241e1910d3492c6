"""Cross-site requests, hosts, headers and the access log (server hardening, points 7 and 9)."""

from __future__ import annotations

import dataclasses
import json
import logging

import pytest
from starlette.websockets import WebSocketDisconnect

from canasta.server.app import STATIC

from .support import TEST_CONFIG, client, create_table, receive


def test_every_answer_carries_the_security_headers(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        for path in ("/", "/api/presets", "/static/js/app.js", "/api/nothing"):
            h = c.get(path).headers
            csp = h["content-security-policy"]
            assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
            assert "script-src 'self'" in csp and "unsafe-inline" not in csp
            assert h["x-content-type-options"] == "nosniff"
            assert h["referrer-policy"] == "no-referrer"
            assert h["x-frame-options"] == "DENY"


def test_api_docs_are_off_by_default(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        assert c.get("/docs").status_code == 404
        assert c.get("/openapi.json").status_code == 404
    with client(sqlite_url, config=dataclasses.replace(TEST_CONFIG, api_docs=True)) as c:
        assert c.get("/openapi.json").status_code == 200


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://testserver.evil"])
def test_the_socket_refuses_other_origins(sqlite_url: str, origin: str) -> None:
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer")
        with pytest.raises(WebSocketDisconnect) as refused:
            with c.websocket_connect(f"/ws/tables/{tid}", headers={"origin": origin}):
                pass
        assert refused.value.code == 4403


def test_the_socket_accepts_its_own_origin_and_configured_ones(sqlite_url: str) -> None:
    config = dataclasses.replace(TEST_CONFIG, allowed_origins=("https://cards.example",))
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer")
        with c.websocket_connect(f"/ws/tables/{tid}", headers={"origin": "http://testserver"}) as ws:
            assert receive(ws)["table"]["seat"] == 0
    with client(sqlite_url, config=config) as c:
        tid = create_table(c, mode="computer")
        with c.websocket_connect(
            f"/ws/tables/{tid}", headers={"origin": "https://cards.example"}
        ) as ws:
            assert receive(ws)["type"] == "state"
        with pytest.raises(WebSocketDisconnect):  # a configured list replaces same-origin
            with c.websocket_connect(f"/ws/tables/{tid}", headers={"origin": "http://testserver"}):
                pass


def test_cross_site_state_changes_are_refused(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        r = c.post(
            "/api/tables",
            content=b'{"mode": "computer"}',
            headers={"content-type": "text/plain"},  # a "simple" cross-site form post
        )
        assert r.status_code == 415 and r.json()["error"]["code"] == "unsupported_media_type"
        for headers in (
            {"origin": "https://evil.example"},
            {"origin": "null"},
            {"sec-fetch-site": "cross-site"},
        ):
            r = c.post("/api/tables", json={"mode": "computer"}, headers=headers)
            assert r.status_code == 403 and r.json()["error"]["code"] == "bad_origin", headers
            r = c.delete("/api/stats", headers=headers)
            assert r.status_code == 403, headers
        assert c.post(
            "/api/tables", json={"mode": "computer"}, headers={"origin": "http://testserver"}
        ).status_code == 200
        # reading needs no origin check (answers hold no secret of another browser)
        assert c.get("/api/presets", headers={"origin": "https://evil.example"}).status_code == 200


def test_only_the_configured_host_names_are_served(sqlite_url: str) -> None:
    config = dataclasses.replace(TEST_CONFIG, allowed_hosts=("testserver", "127.0.0.1"))
    with client(sqlite_url, config=config) as c:
        assert c.get("/api/presets").status_code == 200
        r = c.get("/api/presets", headers={"host": "rebound.example"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_host"
        assert c.get("/api/presets", headers={"host": "127.0.0.1:8000"}).status_code == 200


def test_the_access_log_has_method_path_status_and_time_but_no_secrets(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="canasta.access")
    with client(sqlite_url) as c:
        token = c.cookies["canasta_session"]
        c.get("/api/stats", params={"secret": "hunter2"})
        tid = create_table(c, mode="computer")
        c.get(f"/api/tables/{tid}")
    lines = [r.getMessage() for r in caplog.records if r.name == "canasta.access"]
    assert any(line.startswith("GET /api/stats 200 ") and line.endswith("ms") for line in lines)
    assert any(line.startswith("POST /api/tables 200 ") for line in lines)
    text = "\n".join(lines)
    assert "hunter2" not in text and token not in text


def test_answers_are_compressed_and_carry_cache_headers(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        page = c.get("/static/js/app.js", headers={"accept-encoding": "gzip"})
        assert page.headers["content-encoding"] == "gzip"
        assert page.headers["cache-control"] == "no-cache" and "etag" in page.headers
        again = c.get(
            "/static/js/app.js",
            headers={"accept-encoding": "gzip", "if-none-match": page.headers["etag"]},
        )
        assert again.status_code == 304
        # the translations: kept indented, served compact, with the same revalidation
        source = STATIC / "i18n" / "ja.json"
        strings = c.get("/static/i18n/ja.json", headers={"accept-encoding": "gzip"})
        assert strings.headers["content-type"] == "application/json"
        assert strings.json() == json.loads(source.read_text())
        assert b"\n" not in strings.content and len(strings.content) < 0.95 * source.stat().st_size
        again = c.get("/static/i18n/ja.json", headers={"if-none-match": strings.headers["etag"]})
        assert again.status_code == 304
        api = c.get("/api/presets", headers={"accept-encoding": "gzip"})
        assert api.headers["content-encoding"] == "gzip"
        assert api.headers["cache-control"] == "no-store"
        assert c.get("/api/stats").headers["cache-control"] == "no-store"
