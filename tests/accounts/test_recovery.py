"""Password recovery by email through a real local SMTP server (aiosmtpd)."""

from __future__ import annotations

from .support import PASSWORD, Device, Inbox, app_client, code, new_email, smtp_server


def test_without_smtp_recovery_is_unavailable(db_url: str) -> None:
    with app_client(db_url) as c:
        a = Device(c)
        assert a.get("/api/account").json()["recovery"] is False
        r = a.post("/api/account/forgot", {"email": new_email()})
        assert r.status_code == 503 and code(r) == "recovery_unavailable"


def test_a_recovery_link_works_once_and_says_nothing_about_unknown_emails(db_url: str) -> None:
    email = new_email()
    with smtp_server() as (url, inbox), app_client(db_url, smtp_url=url, public_url="http://cards.test") as c:
        a = Device(c)
        account = a.register_confirmed(email, inbox)
        assert a.get("/api/account").json()["recovery"] is True
        other = Device(c)
        known = other.post("/api/account/forgot", {"email": email.upper()})
        unknown = other.post("/api/account/forgot", {"email": new_email()})
        assert known.status_code == unknown.status_code == 202
        assert known.json() == unknown.json()
        (_, mail) = inbox.wait(2)
        assert mail["To"] == email and "reset" in mail["Subject"].lower()
        token = inbox.token(mail)
        body = mail.get_payload(decode=True).decode()
        assert f"http://cards.test/#reset={token}" in body
        r = other.post("/api/account/reset", {"token": token, "password": "brand new secret"})
        assert r.status_code == 200 and r.json()["account"]["id"] == account["id"]
        assert other.get("/api/account").json()["account"]["id"] == account["id"]
        # single use; the old sessions and the old password are gone
        r = Device(c).post("/api/account/reset", {"token": token, "password": "another secret"})
        assert code(r) == "bad_token"
        assert code(a.get("/api/account")) == "no_session"
        assert code(Device(c).login(email, PASSWORD)) == "bad_credentials"
        assert Device(c).login(email, "brand new secret").status_code == 200
        assert len(inbox.messages) == 2  # nothing was sent for the unknown address
        assert code(Device(c).post("/api/account/reset", {"token": "x" * 43, "password": PASSWORD})) == "bad_token"


def test_recovery_links_expire_and_requests_are_limited(db_url: str) -> None:
    email = new_email()
    with smtp_server() as (url, inbox), app_client(
        db_url, smtp_url=url, recovery_seconds=0.0, recoveries_per_hour_per_email=2
    ) as c:
        Device(c).register_confirmed(email, inbox)
        b = Device(c)
        assert b.post("/api/account/forgot", {"email": email, "lang": "ja"}).status_code == 202
        (_, mail) = inbox.wait(2)
        assert "パスワード" in mail.get_payload(decode=True).decode()
        r = b.post("/api/account/reset", {"token": inbox.token(mail), "password": "new secret 123"})
        assert code(r) == "bad_token"  # expired at once
        assert b.post("/api/account/forgot", {"email": email}).status_code == 202
        r = b.post("/api/account/forgot", {"email": email})
        assert r.status_code == 429 and code(r) == "too_many_recoveries"
        # an unregistered email is limited the same way
        stranger = new_email()
        results = [b.post("/api/account/forgot", {"email": stranger}).status_code for _ in range(3)]
        assert results == [202, 202, 429]


def _mailed(inbox: Inbox, to: str, link: str) -> str:
    """The token of the latest ``#link=`` mailed to ``to``."""
    return Inbox.token([m for m in inbox.to(to) if f"#{link}=" in Inbox.text(m)][-1], link)


def test_securing_an_account_voids_every_link_it_has_outstanding(db_url: str) -> None:
    """Someone who learnt the password asks to move the account to their own address; the owner
    resets the password, and later changes it and logs out everywhere: each of these voids the
    links outstanding (the intruder's change of email, recovery links), so none takes the
    account back afterwards."""
    owner_mail, intruder_mail = new_email(), new_email()
    with smtp_server() as (url, inbox), app_client(db_url, smtp_url=url) as c:
        owner = Device(c)
        owner.register_confirmed(owner_mail, inbox)
        intruder = Device(c)
        assert intruder.login(owner_mail).status_code == 200
        sent = len(inbox.messages)
        r = intruder.post("/api/account/email", {"password": PASSWORD, "email": intruder_mail})
        assert r.status_code == 202
        inbox.wait(sent + 1)
        change = _mailed(inbox, intruder_mail, "confirm")
        # the owner resets the password: the pending change dies with the intruder's session
        Device(c).post("/api/account/forgot", {"email": owner_mail})
        inbox.wait(sent + 2)
        reset = Device(c).post(
            "/api/account/reset", {"token": _mailed(inbox, owner_mail, "reset"), "password": "owner again 1"}
        )
        assert reset.status_code == 200 and reset.json()["account"]["pending_email"] is None
        assert code(Device(c).post("/api/account/confirm", {"token": change})) == "bad_token"
        assert code(intruder.get("/api/account")) == "no_session"

        # a change of password voids a recovery link mailed before it, and a pending change
        owner = Device(c)
        assert owner.login(owner_mail, "owner again 1").status_code == 200
        Device(c).post("/api/account/forgot", {"email": owner_mail})
        owner.post("/api/account/email", {"password": "owner again 1", "email": intruder_mail})
        inbox.wait(sent + 4)
        early, change = _mailed(inbox, owner_mail, "reset"), _mailed(inbox, intruder_mail, "confirm")
        r = owner.post("/api/account/password", {"current": "owner again 1", "password": "owner again 2"})
        assert r.status_code == 200 and r.json()["account"]["pending_email"] is None
        assert code(Device(c).post("/api/account/reset", {"token": early, "password": "taken over 1"})) == "bad_token"
        assert code(Device(c).post("/api/account/confirm", {"token": change})) == "bad_token"

        # logging out everywhere voids them too
        Device(c).post("/api/account/forgot", {"email": owner_mail})
        owner.post("/api/account/email", {"password": "owner again 2", "email": intruder_mail})
        inbox.wait(sent + 6)
        early, change = _mailed(inbox, owner_mail, "reset"), _mailed(inbox, intruder_mail, "confirm")
        assert owner.post("/api/account/logout-all").status_code == 200
        assert code(Device(c).post("/api/account/reset", {"token": early, "password": "taken over 1"})) == "bad_token"
        assert code(Device(c).post("/api/account/confirm", {"token": change})) == "bad_token"
        assert Device(c).login(owner_mail, "owner again 2").status_code == 200


def test_a_new_address_voids_the_recovery_links_mailed_to_the_old_one(db_url: str) -> None:
    old, new = new_email(), new_email()
    with smtp_server() as (url, inbox), app_client(db_url, smtp_url=url) as c:
        owner = Device(c)
        owner.register_confirmed(old, inbox)
        Device(c).post("/api/account/forgot", {"email": old})
        owner.post("/api/account/email", {"password": PASSWORD, "email": new})
        inbox.wait(3)
        stale = _mailed(inbox, old, "reset")
        r = Device(c).post("/api/account/confirm", {"token": _mailed(inbox, new, "confirm")})
        assert r.status_code == 200 and r.json()["email"] == new
        # whoever still reads the old mailbox cannot reset the password any more
        assert code(Device(c).post("/api/account/reset", {"token": stale, "password": "taken over 1"})) == "bad_token"
        assert Device(c).login(new).status_code == 200
        # a link asked for at the new address works
        Device(c).post("/api/account/forgot", {"email": new})
        inbox.wait(5)
        r = Device(c).post("/api/account/reset", {"token": _mailed(inbox, new, "reset"), "password": "fresh secret 1"})
        assert r.status_code == 200


def test_mailed_links_never_take_their_host_from_a_request(db_url: str, tmp_path) -> None:
    """A reset asked for with a forged Host header must not mail the victim a link to the
    forger's site (whose page would then read the token): email needs ``public_url``, or a
    fixed list of host names the server answers to."""
    import dataclasses

    import pytest

    from canasta.server import create_app, run

    from .support import ACCOUNT_CONFIG

    open_hosts = dataclasses.replace(ACCOUNT_CONFIG, smtp_url="smtp://127.0.0.1:1", allowed_hosts=())
    with pytest.raises(ValueError, match="public-url"):
        create_app(db_url, config=open_hosts)
    # ``canasta serve`` on a public interface says so and does not start
    with pytest.raises(SystemExit) as exit_:
        run("0.0.0.0", 0, f"sqlite+aiosqlite:///{tmp_path / 'x.db'}", access_log=False, smtp_url="smtp://127.0.0.1:1")
    assert exit_.value.code == 2

    email = new_email()
    with smtp_server() as (url, inbox), app_client(db_url, smtp_url=url) as c:
        Device(c).register_confirmed(email, inbox)
        sent = len(inbox.messages)
        forged = c.post("/api/account/forgot", json={"email": email}, headers={"Host": "evil.example"})
        assert forged.status_code == 400 and code(forged) == "bad_host"
        assert Device(c).post("/api/account/forgot", {"email": email}).status_code == 202
        mail = inbox.wait(sent + 1)[-1]
        body = Inbox.text(mail)
        assert "evil.example" not in body and f"http://testserver/#reset={inbox.token(mail)}" in body
        assert len(inbox.messages) == sent + 1
