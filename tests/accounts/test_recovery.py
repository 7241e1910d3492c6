"""Password recovery by email through a real local SMTP server (aiosmtpd)."""

from __future__ import annotations

from .support import PASSWORD, Device, app_client, code, new_email, smtp_server


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
