"""Identity (server hardening, point 8): the server issues a session; nothing in a URL is one."""

from __future__ import annotations

import hashlib
import json
import uuid

from sqlalchemy import select

from canasta.server.db import SessionRow, StatsDelta, Store

from .support import client, create_table, new_identity, receive, session_token, use_session


def test_a_session_is_an_httponly_lax_cookie_stored_only_as_a_hash(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        c.cookies.clear()
        r = c.post("/api/session", json={})
        assert r.status_code == 200 and r.json()["created"] is True
        header = r.headers["set-cookie"].lower()
        assert header.startswith("canasta_session=")
        assert "httponly" in header and "samesite=lax" in header and "path=/" in header
        token = session_token(c)
        account = r.json()["account"]
        assert account["kind"] == "guest" and token not in account["id"]
        again = c.post("/api/session", json={})
        assert again.json()["created"] is False and again.json()["account"] == account
        assert "set-cookie" not in again.headers

        store: Store = c.app.state.store  # type: ignore[attr-defined]

        async def stored() -> list[str]:
            async with store.sessions() as s:
                return list((await s.scalars(select(SessionRow.token_hash))).all())

        hashes = c.portal.call(stored)
        assert hashlib.sha256(token.encode()).hexdigest() in hashes
        assert token not in hashes


def test_a_forged_or_unknown_cookie_is_no_identity(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        for forged in ("x" * 43, "not-a-token", "!" * 30, "A" * 500):
            c.cookies.clear()
            c.cookies.set("canasta_session", forged)
            r = c.get("/api/stats")
            assert r.status_code == 401 and r.json()["error"]["code"] == "no_session"



def test_a_page_that_keeps_no_cookie_keeps_its_session_in_a_header(sqlite_url: str) -> None:
    """A browser that keeps no cookie: the page asks with X-Canasta-Cookieless, is given the
    token in the X-Canasta-Session answer header (only then: a cookie stays HTTP-only), and
    sends it back in that header and as its sockets' subprotocol beside ``canasta``."""
    with client(sqlite_url) as c:
        c.cookies.clear()
        plain = c.post("/api/session", json={})
        assert "x-canasta-session" not in plain.headers  # never without being asked
        c.cookies.clear()
        r = c.post("/api/session", json={}, headers={"X-Canasta-Cookieless": "1"})
        token = r.headers["x-canasta-session"]
        account = r.json()["account"]
        c.cookies.clear()  # the browser kept none
        assert c.get("/api/account").status_code == 401
        held = {"X-Canasta-Session": token, "X-Canasta-Cookieless": "1"}
        assert c.get("/api/account", headers=held).json()["account"]["id"] == account["id"]
        again = c.post("/api/session", json={}, headers=held)
        assert again.json()["created"] is False and again.json()["account"] == account
        r = c.post("/api/tables", json={"mode": "computer", "players": 2}, headers=held)
        assert r.status_code == 200, r.text
        table = r.json()["table"]
        c.cookies.clear()
        with c.websocket_connect(f"/ws/tables/{table}", subprotocols=["canasta", f"canasta.session.{token}"]) as ws:
            assert ws.accepted_subprotocol == "canasta"
            msg = receive(ws)
            assert msg["table"]["seat"] == 0 and msg["view"]["hand"] is not None  # its owner
        with c.websocket_connect(f"/ws/tables/{table}", subprotocols=["canasta", "canasta.session." + "x" * 43]) as ws:
            assert receive(ws)["table"]["seat"] is None  # a made-up token is nobody
        with c.websocket_connect("/ws/lobby", subprotocols=["canasta", f"canasta.session.{token}"]) as ws:
            assert receive(ws)["type"] == "lobby"
        for forged in ("x" * 43, "not a token"):
            assert c.get("/api/account", headers={"X-Canasta-Session": forged}).status_code == 401
        # a request carrying a cookie and a header: the cookie's session
        c.cookies.clear()
        other = c.post("/api/session", json={}).json()["account"]
        assert other["id"] != account["id"]
        assert c.get("/api/account", headers=held).json()["account"]["id"] == other["id"]

def test_a_table_says_who_only_watches_it(sqlite_url: str) -> None:
    """``table.watching``: false for its owner's sockets (pass-and-play's player between
    hand-offs has no seat, yet does not watch), true for anyone else's."""
    with client(sqlite_url) as c:
        local = create_table(c, mode="local", players=2)
        computer = create_table(c, mode="computer", preset="two-player")
        with c.websocket_connect(f"/ws/tables/{local}") as ws:
            mine = receive(ws)
            assert mine["table"]["handoff"] is not None and mine["table"]["seat"] is None
            assert mine["table"]["watching"] is False
        with c.websocket_connect(f"/ws/tables/{computer}") as ws:
            assert receive(ws)["table"]["watching"] is False
        new_identity(c)
        for table in (local, computer):
            with c.websocket_connect(f"/ws/tables/{table}") as ws:
                theirs = receive(ws)
                assert theirs["table"]["watching"] is True and theirs["table"]["seat"] is None


def test_an_id_in_the_url_grants_nothing(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        owner = c.account
        tid = create_table(c, mode="computer", preset="classic")
        new_identity(c)
        with c.websocket_connect(f"/ws/tables/{tid}?profile={owner}&account={owner}") as ws:
            msg = receive(ws)
            assert msg["table"]["seat"] is None and msg["view"]["hand"] is None
        assert c.get("/api/tables", params={"profile": owner}).json()["tables"] == []


def test_the_old_profile_id_is_exchanged_for_a_session_once(sqlite_url: str) -> None:
    """A browser of the previous release keeps its statistics and unfinished matches."""
    legacy = str(uuid.uuid4())  # what crypto.randomUUID() made in the previous release
    with client(sqlite_url) as c:
        store: Store = c.app.state.store  # type: ignore[attr-defined]
        # what the previous release stored: rows keyed by the browser-made id
        tid = create_table(c, mode="computer", preset="two-player")

        async def as_previous_release() -> None:
            row = await store.load_table(tid)
            assert row is not None
            values = {k: getattr(row, k) for k in ("id", "mode", "options", "record", "version")}
            values.update(profile=legacy)
            await store.save_table(values, [StatsDelta(legacy, canastas=3, finished=True, won=True)])

        c.portal.call(as_previous_release)
        new_identity(c)
        r = c.post("/api/session", json={"legacy_profile": legacy})
        assert r.status_code == 200 and r.json()["claimed"] is True
        token = session_token(c)
        assert [t["table"] for t in c.get("/api/tables").json()["tables"]] == [tid]
        stats = c.get("/api/stats").json()
        assert stats["played"] == 1 and stats["won"] == 1 and stats["canastas"] == 3
        c.app.state.tables._live.pop(tid, None)  # type: ignore[attr-defined]  # reload: new owner
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            assert receive(ws)["table"]["seat"] == 0

        # the old id is worth nothing now, for anyone
        new_identity(c)
        r = c.post("/api/session", json={"legacy_profile": legacy})
        assert r.json()["claimed"] is False
        assert c.get("/api/tables").json()["tables"] == []
        assert c.get("/api/stats").json()["played"] == 0
        use_session(c, token)
        assert c.get("/api/stats").json()["played"] == 1


def test_bad_legacy_ids_are_refused(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        for bad in ("", "x" * 81, "a b", "\ud800", "a\u0000b", 7, ["x"]):
            body = json.dumps({"legacy_profile": bad})  # escapes: any string can be sent
            r = c.post("/api/session", content=body, headers={"content-type": "application/json"})
            assert r.status_code == 400, bad
            assert r.json()["error"]["code"] in ("bad_profile", "bad_text")


def test_stats_and_tables_need_a_session(sqlite_url: str) -> None:
    with client(sqlite_url) as c:
        c.cookies.clear()
        for method, path in (("GET", "/api/stats"), ("DELETE", "/api/stats"), ("GET", "/api/tables")):
            r = c.request(method, path)
            assert r.status_code == 401 and r.json()["error"]["code"] == "no_session"
        r = c.post("/api/tables", json={"mode": "computer"})
        assert r.status_code == 401


def test_new_sessions_per_address_are_rate_limited(sqlite_url: str) -> None:
    import dataclasses

    from .support import TEST_CONFIG

    with client(
        sqlite_url, config=dataclasses.replace(TEST_CONFIG, sessions_per_minute_per_address=3)
    ) as c:  # the client's own start used one
        codes = []
        for _ in range(4):
            c.cookies.clear()
            codes.append(c.post("/api/session", json={}).status_code)
        assert codes == [200, 200, 429, 429]


def test_sessions_survive_a_restart(db_url: str) -> None:
    with client(db_url) as c:
        token, account = session_token(c), c.account
        create_table(c, mode="computer")
    with client(db_url) as c:
        use_session(c, token)
        assert c.post("/api/session", json={}).json()["account"]["id"] == account
        assert len(c.get("/api/tables").json()["tables"]) == 1
