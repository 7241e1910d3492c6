"""Registration, login on a second device, logout (everywhere), password and email changes,
limits, and deletion of an account's personal data."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from sqlalchemy import select
from starlette.testclient import TestClient

from canasta.server import create_app
from canasta.server.db import AccountRow, SessionRow, StatsDelta, TableRow
from canasta.server.models_accounts import CredentialRow, MatchPlayerRow, RatingRow
from tests.online.support import quick_match

from .support import (
    ACCOUNT_CONFIG,
    PASSWORD,
    Device,
    app_client,
    code,
    finish_quick_match,
    new_email,
    wait_for,
)


def test_a_registered_account_brings_its_stats_ratings_and_coins_to_a_second_device(
    db_url: str,
) -> None:
    email = new_email()
    with app_client(db_url) as c:
        phone = Device(c, "Mika")
        account = phone.register(email.upper())  # stored and compared in lower case
        assert account["kind"] == "registered" and account["email"] == email
        assert phone.post("/api/shop/checkin").status_code == 200
        assert phone.post("/api/shop/buy", {"item": "back:navy"}).status_code == 200
        assert phone.post("/api/shop/equip", {"item": "back:navy"}).status_code == 200

        async def stats() -> None:
            store = c.app.state.store
            async with store.sessions() as s, s.begin():
                await store._apply_deltas(
                    s, [StatsDelta(account["id"], canastas=3, best_hand=650, finished=True, won=True)]
                )

        c.portal.call(stats)
        before = phone.get("/api/stats").json()

        laptop = Device(c)  # another cookie jar: a guest of its own
        guest = laptop.get("/api/account").json()["account"]
        assert guest["id"] != account["id"] and guest["kind"] == "guest"
        # an unfinished offline match of the laptop's guest stays on the laptop
        r = laptop.post("/api/tables", {"mode": "computer", "players": 2})
        laptop_table = r.json()["table"]
        r = laptop.login(email)
        assert r.status_code == 200, r.text
        mine = laptop.get("/api/account").json()
        assert mine["account"]["id"] == account["id"]
        assert mine["account"]["coins"] == phone.get("/api/account").json()["account"]["coins"] == 0
        assert "back:navy" in laptop.get("/api/shop").json()["wallet"]["owned"]
        assert laptop.get("/api/shop/ledger").json()["ledger"] == phone.get("/api/shop/ledger").json()["ledger"]
        assert mine["account"]["cosmetics"] == {"back": "navy", "theme": "felt"}
        assert laptop.get("/api/stats").json() == before == {
            "played": 1, "won": 1, "best_hand": 650, "canastas": 3, "streak": 1, "best_streak": 1}
        assert laptop.get("/api/profile").json()["ratings"] == phone.get("/api/profile").json()["ratings"]
        assert [t["table"] for t in laptop.get("/api/tables").json()["tables"]] == [laptop_table]
        # the session cookie the server issued is HttpOnly; the guest's old session is over
        assert "httponly" in r.headers["set-cookie"].lower()
        # both devices stay logged in
        assert phone.get("/api/account").json()["account"]["id"] == account["id"]
        phone.close()
        laptop.close()


def test_a_failed_login_never_says_whether_the_email_is_registered(db_url: str) -> None:
    email = new_email()
    with app_client(db_url) as c:
        a = Device(c)
        a.register(email)
        b = Device(c)
        wrong = b.login(email, "not the password")
        unknown = b.login(new_email(), "not the password")
        assert wrong.status_code == unknown.status_code == 401
        assert wrong.json() == unknown.json()
        assert code(wrong) == "bad_credentials"
        # registering a taken email is refused without naming the reason
        r = b.post("/api/account/register", {"email": email, "password": PASSWORD})
        assert code(r) == "registration_refused"
        assert "registered" not in r.json()["error"]["message"].replace("cannot be registered", "")
        assert code(b.post("/api/account/register", {"email": "nope", "password": PASSWORD})) == "bad_email"
        # one mailbox only: nothing that would name a second recipient in the To header
        for two in ("a@example.test,b@example.test", "a@example.test;b", "<a@example.test>", '"a"@example.test',
                    "a@exa(mple).test", "=?utf-8?q?victim?=@example.test", "victim@=?utf-8?q?example?=.test",
                    "=?utf-8?q?victim=40evil.test=2C_x?=@y.test"):
            assert code(b.post("/api/account/register", {"email": two, "password": PASSWORD})) == "bad_email", two
        assert code(b.post("/api/account/register", {"email": new_email(), "password": "short"})) == "weak_password"
        assert code(a.post("/api/account/register", {"email": new_email(), "password": PASSWORD})) == "already_registered"


def test_login_registration_and_attempt_limits_have_their_own_codes(db_url: str) -> None:
    email = new_email()
    config = dataclasses.replace(
        ACCOUNT_CONFIG, login_failures_per_hour_per_email_and_address=3,
        registrations_per_hour_per_address=2, auth_per_minute_per_address=10**6,
    )
    with app_client(db_url, config) as c:
        a = Device(c)
        a.register(email)
        b = Device(c)
        codes = [code(b.login(email, "wrong password")) for _ in range(3)]
        assert codes == ["bad_credentials"] * 3
        r = b.login(email)  # even the right password: this email's attempts here are spent
        assert r.status_code == 429 and code(r) == "too_many_attempts"
        # the same limit for an email nobody registered: the limit reveals nothing either
        other = new_email()
        assert [code(b.login(other, "x" * 8)) for _ in range(4)][-1] == "too_many_attempts"
        d = Device(c)
        d.post("/api/account/register", {"email": "bad", "password": PASSWORD})
        r = Device(c).post("/api/account/register", {"email": new_email(), "password": PASSWORD})
        assert code(r) == "too_many_registrations" and r.status_code == 429
    tight = dataclasses.replace(ACCOUNT_CONFIG, auth_per_minute_per_address=2)
    with app_client(db_url, tight) as c:
        b = Device(c)
        results = [b.login(new_email(), "whatever1").status_code for _ in range(3)]
        assert results[:2] == [401, 401] and results[2] == 429
        assert code(b.login(new_email(), "whatever1")) == "too_many_attempts"


class Addressed:
    """The app as reached from ``host`` (the address the limits count), changeable between
    requests: several clients on one test server."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.host = "192.0.2.1"

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = {**scope, "client": (self.host, 50000)}
        await self.app(scope, receive, send)


def test_wrong_passwords_from_elsewhere_do_not_lock_the_owner_out(db_url: str) -> None:
    """Only failed logins count against an email, and mostly per address: a stranger's wrong
    guesses lock out their own address, and the email only past a much larger number from
    everywhere together."""
    config = dataclasses.replace(
        ACCOUNT_CONFIG, auth_per_minute_per_address=10**6,
        login_failures_per_hour_per_email_and_address=3, login_failures_per_hour_per_email=5,
    )
    front = Addressed(create_app(db_url, bot_delay_ms=0, config=config))
    with TestClient(front) as c:
        email = new_email()
        owner = Device(c)
        owner.register(email)
        stranger = Device(c)
        front.host = "198.51.100.7"
        assert [code(stranger.login(email, "guess 1234")) for _ in range(4)] == (
            ["bad_credentials"] * 3 + ["too_many_attempts"]
        )
        assert code(stranger.login(email)) == "too_many_attempts"  # spent here, right or not
        front.host = "192.0.2.1"
        for _ in range(4):  # successes never count
            assert owner.login(email).status_code == 200
        assert code(owner.login(email, "typo typo")) == "bad_credentials"  # the fourth failure
        front.host = "203.0.113.9"
        assert code(stranger.login(email, "guess 5678")) == "bad_credentials"  # the fifth
        for host in ("203.0.113.9", "192.0.2.1", "192.0.2.200"):
            front.host = host  # the email's ceiling, from every address alike
            r = owner.login(email)
            assert r.status_code == 429 and code(r) == "too_many_attempts"
        # attempts sent at once are counted before their passwords are checked: a fresh
        # address sending more than its allowance together gets only that many tries
        email2 = new_email()
        Device(c).register(email2)
        front.host = "198.51.100.20"
        import concurrent.futures

        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(lambda _: code(stranger.login(email2, "guess 9999")), range(8)))
        assert sorted(codes) == ["bad_credentials"] * 3 + ["too_many_attempts"] * 5, codes
        # an email nobody registered is limited the same way: the limit tells nothing
        ghost = new_email()
        front.host = "198.51.100.8"
        assert [code(stranger.login(ghost, "x" * 8)) for _ in range(4)][-1] == "too_many_attempts"


def test_logout_ends_one_session_and_logout_everywhere_ends_them_all(db_url: str) -> None:
    email = new_email()
    with app_client(db_url) as c:
        a, b, d = Device(c), Device(c), Device(c)
        account = a.register(email)
        assert b.login(email).status_code == 200
        assert d.login(email).status_code == 200
        r = d.post("/api/account/logout")
        assert r.status_code == 200 and d.token == ""
        assert b.get("/api/account").json()["account"]["id"] == account["id"]
        r = a.post("/api/account/logout-all")
        assert r.json()["revoked"] == 2
        for dev in (a, b):
            assert code(dev.get("/api/account")) == "no_session"

        async def left() -> int:
            async with c.app.state.store.sessions() as s:
                rows = await s.scalars(select(SessionRow).where(SessionRow.account_id == account["id"]))
                return len(rows.all())

        assert c.portal.call(left) == 0
        assert b.login(email).status_code == 200


def test_a_new_password_ends_the_other_sessions_and_a_new_email_logs_in(db_url: str) -> None:
    email, email2 = new_email(), new_email()
    with app_client(db_url) as c:
        a, b = Device(c), Device(c)
        a.register(email)
        b.login(email)
        r = a.post("/api/account/password", {"current": "wrong password", "password": "new password 1"})
        assert code(r) == "bad_credentials"
        r = a.post("/api/account/password", {"current": PASSWORD, "password": "new password 1"})
        assert r.status_code == 200 and r.json()["revoked"] == 1
        assert code(b.get("/api/account")) == "no_session"
        assert a.get("/api/account").status_code == 200
        assert code(Device(c).login(email)) == "bad_credentials"
        r = a.post("/api/account/email", {"password": "new password 1", "email": email2})
        assert r.json()["account"]["email"] == email2
        assert Device(c).login(email2, "new password 1").status_code == 200
        assert code(Device(c).login(email, "new password 1")) == "bad_credentials"
        guest = Device(c)
        assert code(guest.post("/api/account/password", {"current": "x", "password": "y" * 9})) == "not_registered"


def test_deleting_an_account_removes_personal_data_and_keeps_anonymised_matches(db_url: str) -> None:
    email = new_email()
    with app_client(db_url) as c:
        a, b = Device(c, "Alice Secret"), Device(c, "Bob")
        account = a.register(email)
        table_id = finish_quick_match(c, [a, b])
        # the finished match is still in memory, with the player's name
        assert c.app.state.tables.peek(table_id) is not None
        assert "Alice Secret" in b.get(f"/api/tables/{table_id}").text
        assert code(a.request("DELETE", "/api/account", json={"confirm": True, "password": "nope"})) == "bad_credentials"
        assert code(a.request("DELETE", "/api/account", json={})) == "confirm_required"
        r = a.request("DELETE", "/api/account", json={"confirm": True, "password": PASSWORD})
        assert r.status_code == 200, r.text
        assert code(a.get("/api/account")) == "no_session"
        assert code(Device(c).login(email)) == "bad_credentials"
        assert code(b.get(f"/api/players/{account['id']}")) == "player_not_found"
        # at once, not when memory is swept: the table reads back with the seat renamed
        summary = b.get(f"/api/tables/{table_id}").text
        assert "Alice Secret" not in summary and "Deleted player" in summary
        ws = b.socket(f"/ws/tables/{table_id}")
        state = b.until(ws, lambda m: m["type"] == "state")
        assert "Alice Secret" not in str(state) and "Deleted player" in str(state)

        async def rows() -> tuple:
            async with c.app.state.store.sessions() as s:
                acc = await s.get(AccountRow, account["id"])
                cred = await s.get(CredentialRow, account["id"])
                table = await s.get(TableRow, table_id)
                played = (await s.scalars(select(MatchPlayerRow).where(
                    MatchPlayerRow.table_id == table_id))).all()
                return acc, cred, table, played

        acc, cred, table, played = c.portal.call(rows)
        assert cred is None and acc.name is None and acc.kind == "deleted"
        names = [seat["name"] for seat in table.options["seats"]]
        assert "Alice Secret" not in names and "Deleted player" in names and "Bob" in names
        assert len(played) == 2  # the match itself is kept
        assert b.get("/api/profile").json()["matches"][0]["table"] == table_id
        # the email is free again
        assert Device(c).post("/api/account/register", {"email": email, "password": PASSWORD}).status_code == 200
        a.close()
        b.close()


def _one_left_a_match(c: TestClient) -> tuple[Device, Device, str]:
    """A two-player quick match that "Carol Private" (the first device) has left and "Bob"
    plays on: the devices and the table id."""
    a, b = Device(c, "Carol Private"), Device(c, "Bob")
    table_id = quick_match([a, b], preset="two-player", target=2500)
    mine = a.socket(f"/ws/tables/{table_id}")
    a.until(mine, lambda m: m["type"] == "state")
    a.send(mine, type="leave")
    a.until(mine, lambda m: m["type"] == "state" and m.get("change") == "leave")
    return a, b, table_id


def test_deleting_an_account_after_leaving_a_match_in_play(db_url: str) -> None:
    """docs/protocol.md, deleting an account: a player who left a match the others play on
    may delete the account. The seat is renamed at once where anyone can read it (the table,
    the spectators, the replay), the match plays on unharmed, and when it ends nothing is
    recorded for the deleted account (no match row, no rating)."""
    from tests.server.support import play_to_the_end

    with app_client(db_url) as c:
        a, b, table_id = _one_left_a_match(c)
        theirs = b.socket(f"/ws/tables/{table_id}")
        state = b.until(theirs, lambda m: m["type"] == "state")
        names = [seat["name"] for seat in state["table"]["seats"]]
        assert sorted(names) == ["Bob", "Carol Private"]
        gone = names.index("Carol Private")
        expected = ["Deleted player" if seat == gone else "Bob" for seat in range(2)]
        account_id = a.get("/api/account").json()["account"]["id"]
        r = a.request("DELETE", "/api/account", json={"confirm": True})
        assert r.status_code == 200, r.text
        # the other player's socket stays open and is told the new name
        renamed = b.until(theirs, lambda m: m["type"] == "state" and m.get("change") == "rename")
        assert [seat["name"] for seat in renamed["table"]["seats"]] == expected
        assert "Carol Private" not in b.get(f"/api/tables/{table_id}").text
        watcher = Device(c)
        spectator = watcher.socket(f"/ws/tables/{table_id}")
        assert "Carol Private" not in str(watcher.until(spectator, lambda m: m["type"] == "state"))
        # still Bob's match: the lobby sends him back to it, and he plays it to its end
        b.open_lobby()
        assert b.lobby_ask(type="sync")["current"] == table_id
        play_to_the_end(theirs, random.Random(table_id), held=renamed)
        tables = c.app.state.tables
        wait_for(lambda: (t := tables.peek(table_id)) is not None and t.game.is_over and t.match_counted,
                 what="the match to end")
        assert b.get(f"/api/replays/{table_id}").status_code == 200
        assert "Carol Private" not in b.get(f"/api/replays/{table_id}").text

        async def rows() -> tuple[list[MatchPlayerRow], list[RatingRow], TableRow | None]:
            async with c.app.state.store.sessions() as s:
                played = (await s.scalars(select(MatchPlayerRow).where(MatchPlayerRow.table_id == table_id))).all()
                rated = (await s.scalars(select(RatingRow).where(RatingRow.account_id == account_id))).all()
                return list(played), list(rated), await s.get(TableRow, table_id)

        played, rated, table = c.portal.call(rows)
        assert [p.account_id for p in played] == [b.account["id"]] and rated == []
        assert table is not None and [seat["name"] for seat in table.options["seats"]] == expected
        a.close()
        b.close()
        watcher.close()


def test_a_deleted_seat_keeps_its_new_name_while_the_table_waits_for_storage(db_url: str) -> None:
    """A table whose storage is away (it refuses changes until it is back) still takes the
    deleted account's new name, in memory and in what a failed save rolls back to: its next
    save cannot write the old name over the renamed row."""
    with app_client(db_url) as c:
        a, b, table_id = _one_left_a_match(c)
        table = c.app.state.tables.peek(table_id)
        assert table is not None
        table.storage_ok = False  # as after a failed save
        r = a.request("DELETE", "/api/account", json={"confirm": True})
        assert r.status_code == 200, r.text
        names = [seat.name for seat in table.seats]
        assert "Carol Private" not in names and "Deleted player" in names
        saved = [seat["name"] for seat in table._saved["options"]["seats"]]
        assert saved == [seat["name"] for seat in table.options["seats"]] == names
        gone = names.index("Deleted player")
        assert table.online["auto"][gone] == "left" and not table.online["rematch"][gone]
        a.close()
        b.close()
