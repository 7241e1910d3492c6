"""Email confirmation: with SMTP, registration and a change of email wait for a link sent to
the address, and the answer never says whether the address already has an account (its owner
gets a mail saying so instead). Through a real local SMTP server (aiosmtpd)."""

from __future__ import annotations

import email.header
import time

from sqlalchemy import select

from canasta.server.models_accounts import CredentialRow, EmailTokenRow

from .support import PASSWORD, Device, Inbox, app_client, code, new_email, smtp_server


def _register(dev: Device, email: str, password: str = PASSWORD, **extra: str) -> object:
    return dev.post("/api/account/register", {"email": email, "password": password, **extra})


def _confirm(dev: Device, token: str) -> object:
    return dev.post("/api/account/confirm", {"token": token})


def _shape(r: object) -> tuple:
    """What an observer sees of a registration answer, the account's own id, name and
    the address it typed aside."""
    body = r.json()  # type: ignore[attr-defined]
    account = {k: v for k, v in body["account"].items() if k not in ("id", "name", "pending_email")}
    return r.status_code, sorted(body), account, body.get("pending")  # type: ignore[attr-defined]


def test_r_registration_waits_for_the_link_and_a_taken_email_answers_like_a_free_one(
    db_url: str,
) -> None:
    taken, free = new_email(), new_email()
    with smtp_server() as (url, inbox), app_client(db_url, smtp_url=url, public_url="http://cards.test") as c:
        owner = Device(c, "Owner")
        assert owner.get("/api/account").json()["registration"] == "confirm"
        r = _register(owner, taken.upper())
        assert r.status_code == 202 and r.json()["pending"] == "check_mail"
        assert r.json()["account"]["kind"] == "guest"
        assert r.json()["account"]["pending_email"] == taken
        (mail,) = inbox.wait(1)
        assert mail["To"] == taken and "confirm" in mail["Subject"].lower()
        token = Inbox.token(mail, "confirm")
        assert f"http://cards.test/#confirm={token}" in Inbox.text(mail)
        # nothing counts before the link is opened: no login, still a guest
        assert code(Device(c).login(taken)) == "bad_credentials"
        r = _confirm(owner, token)
        assert r.status_code == 200, r.text
        assert r.json()["confirmed"] == "register" and r.json()["email"] == taken
        assert r.json()["account"]["kind"] == "registered" and r.json()["account"]["email"] == taken
        assert code(_confirm(owner, token)) == "bad_token"  # single use
        laptop = Device(c)
        assert laptop.login(taken).status_code == 200
        assert laptop.get("/api/account").json()["account"]["id"] == owner.account["id"]

        # a stranger registering the taken address and another registering a free one see
        # the same answer and the same account state
        stranger, newcomer = Device(c), Device(c)
        a = _register(stranger, taken, "stranger password", lang="ja")
        b = _register(newcomer, free)
        assert _shape(a) == _shape(b) and _shape(a)[0] == 202
        assert a.json()["account"]["pending_email"] == taken
        assert b.json()["account"]["pending_email"] == free
        assert stranger.get("/api/account").json()["account"]["kind"] == "guest"
        inbox.wait(3)
        (note,) = inbox.to(taken)[1:]
        assert "#confirm=" not in Inbox.text(note) and "アカウント" in Inbox.text(note)
        (link,) = inbox.to(free)
        assert "#confirm=" in Inbox.text(link)
        # the account is untouched: the stranger's password does not open it
        assert code(Device(c).login(taken, "stranger password")) == "bad_credentials"
        assert Device(c).login(taken).status_code == 200

        async def rows() -> tuple:
            async with c.app.state.store.sessions() as s:
                tokens = (await s.scalars(select(EmailTokenRow))).all()
                creds = (await s.scalars(select(CredentialRow))).all()
                return tokens, creds

        tokens, creds = c.portal.call(rows)
        assert {t.email for t in tokens} >= {taken, free}
        assert all(len(t.token_hash) == 64 and t.token_hash not in Inbox.text(m)
                   for t in tokens for m in inbox.messages)
        assert sum(cr.email == taken for cr in creds) == 1
        for dev in (owner, laptop, stranger, newcomer):
            dev.close()


def test_r_a_confirmation_link_expires_and_only_the_latest_one_works(db_url: str) -> None:
    with smtp_server() as (url, inbox), app_client(db_url, smtp_url=url, confirm_seconds=0.0) as c:
        d = Device(c)
        _register(d, new_email())
        (mail,) = inbox.wait(1)
        assert code(_confirm(d, Inbox.token(mail, "confirm"))) == "bad_token"  # expired at once
        assert d.get("/api/account").json()["account"]["kind"] == "guest"
    with smtp_server() as (url, inbox), app_client(db_url, smtp_url=url) as c:
        d = Device(c)
        first, second = new_email(), new_email()
        _register(d, first)
        _register(d, second)
        inbox.wait(2)
        assert code(_confirm(d, Inbox.token(inbox.to(first)[0], "confirm"))) == "bad_token"
        assert _confirm(d, Inbox.token(inbox.to(second)[0], "confirm")).status_code == 200
        assert d.get("/api/account").json()["account"]["email"] == second
        assert code(_confirm(d, "x" * 43)) == "bad_token"
        assert code(d.post("/api/account/confirm", {"token": 5})) == "bad_token"


def test_r_the_first_of_two_guests_to_confirm_one_address_gets_it(db_url: str) -> None:
    email = new_email()
    with smtp_server() as (url, inbox), app_client(db_url, smtp_url=url) as c:
        one, two = Device(c), Device(c)
        _register(one, email, "first password")
        _register(two, email, "second password")
        first, second = inbox.wait(2)
        t1, t2 = Inbox.token(first, "confirm"), Inbox.token(second, "confirm")
        # whichever mail belongs to whom, the first confirmation wins, the second is refused
        assert _confirm(Device(c), t1).status_code == 200
        r = _confirm(Device(c), t2)
        assert r.status_code == 409 and code(r) == "email_in_use"
        kinds = sorted(d.get("/api/account").json()["account"]["kind"] for d in (one, two))
        assert kinds == ["guest", "registered"]


def test_r_a_new_email_counts_once_its_link_is_opened(db_url: str) -> None:
    old, new, taken = new_email(), new_email(), new_email()
    with smtp_server() as (url, inbox), app_client(db_url, smtp_url=url) as c:
        a, other = Device(c), Device(c)
        for dev, email in ((a, old), (other, taken)):
            before = len(inbox.messages)  # counted before the mail can arrive
            _register(dev, email)
            _confirm(dev, Inbox.token(inbox.wait(before + 1)[before], "confirm"))
        assert a.get("/api/account").json()["account"]["email"] == old
        r = a.post("/api/account/email", {"password": "wrong password", "email": new})
        assert code(r) == "bad_credentials"
        assert code(a.post("/api/account/email", {"password": PASSWORD, "email": old})) == "same_email"
        r = a.post("/api/account/email", {"password": PASSWORD, "email": new})
        assert r.status_code == 202 and r.json()["account"]["email"] == old
        assert r.json()["account"]["pending_email"] == new
        r2 = a.post("/api/account/email", {"password": PASSWORD, "email": taken})
        assert r2.status_code == 202 and r2.json()["pending"] == r.json()["pending"]
        inbox.wait(4)
        (note,) = inbox.to(taken)[1:]
        assert "already has one" in Inbox.text(note) and "#confirm=" not in Inbox.text(note)
        # the link to the taken address's owner never came; the one to the new address was
        # voided by the later request: ask again
        assert code(_confirm(a, Inbox.token(inbox.to(new)[0], "confirm"))) == "bad_token"
        a.post("/api/account/email", {"password": PASSWORD, "email": new})
        inbox.wait(5)
        link = inbox.to(new)[-1]
        assert code(Device(c).login(new)) == "bad_credentials"
        # opened in another browser (a phone's mail app): confirmed, nobody logged in there
        phone = Device(c)
        r = _confirm(phone, Inbox.token(link, "confirm"))
        assert r.status_code == 200 and r.json() == {"confirmed": "email", "email": new, "account": None}
        assert phone.get("/api/account").json()["account"]["kind"] == "guest"
        assert a.get("/api/account").json()["account"]["email"] == new
        assert Device(c).login(new).status_code == 200
        assert code(Device(c).login(old)) == "bad_credentials"
        # the old address is told once the change takes effect, with the new one masked
        inbox.wait(6)
        (notice,) = [m for m in inbox.to(old) if "changed" in str(m["Subject"])]
        body = Inbox.text(notice)
        assert f"{new[0]}…@{new.split('@')[1]}" in body and new not in body
        assert "#confirm=" not in body and "#reset=" not in body
        assert not [m for m in inbox.messages if m["To"] != old and "changed" in str(m["Subject"])]


def test_r_the_old_address_is_told_in_both_languages_the_confirming_pages_first(db_url: str) -> None:
    old, new = new_email(), new_email()
    with smtp_server() as (url, inbox), app_client(db_url, smtp_url=url) as c:
        a = Device(c)
        _register(a, old)
        _confirm(a, Inbox.token(inbox.wait(1)[-1], "confirm"))
        a.post("/api/account/email", {"password": PASSWORD, "email": new})
        token = Inbox.token(inbox.wait(2)[-1], "confirm")
        r = a.post("/api/account/confirm", {"token": token, "lang": "ja"})
        assert r.status_code == 200 and r.json()["email"] == new
        notice = inbox.wait(3)[-1]
        text = Inbox.text(notice)
        # both languages (the link may be opened in a browser its owner never used), the
        # confirming page's first
        assert notice["To"] == old and "変更されました" in text and "was changed" in text
        assert text.index("変更されました") < text.index("was changed")
        subject = str(email.header.make_header(email.header.decode_header(notice["Subject"])))
        assert subject.startswith("Canasta: メールアドレス"), subject
        # a spent link tells nobody anything again
        assert code(a.post("/api/account/confirm", {"token": token})) == "bad_token"
        time.sleep(0.3)
        assert len(inbox.messages) == 3


def test_r_without_smtp_registration_is_at_once_or_refused_as_configured(db_url: str) -> None:
    with app_client(db_url) as c:
        d = Device(c)
        assert d.get("/api/account").json()["registration"] == "open"
        assert d.register(new_email())["kind"] == "registered"
    with app_client(db_url, registration_without_smtp=False) as c:
        d = Device(c)
        assert d.get("/api/account").json()["registration"] == "unavailable"
        r = _register(d, new_email())
        assert r.status_code == 503 and code(r) == "registration_unavailable"
        assert code(_register(d, "not an email")) == "bad_email"  # checked first all the same


def test_r_confirmation_mails_to_one_address_are_limited(db_url: str) -> None:
    email = new_email()
    with smtp_server() as (url, inbox), app_client(db_url, smtp_url=url, emails_per_hour_per_email=2) as c:
        results = [_register(Device(c), email).status_code for _ in range(3)]
        assert results == [202, 202, 429]
        assert code(_register(Device(c), email)) == "too_many_emails"
        inbox.wait(2)

        async def bound() -> int:
            async with c.app.state.store.sessions() as s:
                rows = await s.scalars(select(CredentialRow).where(CredentialRow.email == email))
                return len(rows.all())

        assert c.portal.call(bound) == 0  # nothing is registered before a link is opened
