"""An answer's timing says nothing about whether an email has an account: the server does the
same password-hashing work before answering, and gives the same answer, for a known and an
unknown address; mail leaves after the answer, so a slow mail server cannot tell either.

Checked by counting the Argon2 operations each request runs (the work that dominates these
answers) and by holding the SMTP server while requests are answered, not by timing them.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from typing import Any

import pytest

import canasta.server.accounts as accounts

from .support import PASSWORD, Device, Inbox, app_client, new_email, smtp_server


class CountingHasher:
    """The server's Argon2 hasher, counting what it is asked to do."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: Counter[str] = Counter()

    def hash(self, password: str) -> str:
        self.calls["hash"] += 1
        return str(self.inner.hash(password))

    def verify(self, stored: str, password: str) -> bool:
        self.calls["verify"] += 1
        return bool(self.inner.verify(stored, password))

    def check_needs_rehash(self, stored: str) -> bool:
        return bool(self.inner.check_needs_rehash(stored))

    def work(self, fn: Any) -> tuple[Any, Counter[str]]:
        """``fn()``'s result and the operations it ran."""
        before = Counter(self.calls)
        result = fn()
        return result, self.calls - before


@pytest.fixture
def hasher(monkeypatch: pytest.MonkeyPatch) -> CountingHasher:
    counting = CountingHasher(accounts.hasher)
    monkeypatch.setattr(accounts, "hasher", counting)
    return counting


def test_login_does_the_same_work_for_an_unknown_email_and_a_wrong_password(
    db_url: str, hasher: CountingHasher
) -> None:
    email = new_email()
    with app_client(db_url) as c:
        Device(c).register(email)
        known, known_work = hasher.work(lambda: Device(c).login(email, "not the password"))
        unknown, unknown_work = hasher.work(lambda: Device(c).login(new_email(), "not the password"))
        assert known.status_code == unknown.status_code == 401
        assert known.json() == unknown.json()
        assert known_work == unknown_work == Counter(verify=1)
        # the right password costs the same single verification
        good, good_work = hasher.work(lambda: Device(c).login(email, PASSWORD))
        assert good.status_code == 200 and good_work == Counter(verify=1)


class HeldInbox(Inbox):
    """An inbox whose server accepts nothing until released (or, so that a server that waits
    for its mail fails the test instead of hanging it, for 20 s at most)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        for _ in range(1000):
            if self.release.is_set():
                break
            await asyncio.sleep(0.02)
        return await super().handle_DATA(server, session, envelope)


def test_registration_and_recovery_answer_alike_for_free_and_taken_addresses_before_any_mail(
    db_url: str, hasher: CountingHasher
) -> None:
    taken = new_email()
    free = new_email()
    inbox = HeldInbox()
    with smtp_server(inbox) as (url, _), app_client(db_url, smtp_url=url) as c:
        owner = Device(c)
        inbox.release.set()
        owner.register_confirmed(taken, inbox)
        inbox.release.clear()
        before = len(inbox.messages)
        # with the mail server holding every message, each request is still answered
        answers: dict[str, Any] = {}
        work: dict[str, Counter[str]] = {}
        for name, email in (("taken", taken), ("free", free)):
            r, w = hasher.work(lambda e=email: Device(c).post("/api/account/register", {"email": e, "password": PASSWORD}))
            answers[f"register {name}"], work[f"register {name}"] = r, w
            r, w = hasher.work(lambda e=email: Device(c).post("/api/account/forgot", {"email": e}))
            answers[f"forgot {name}"], work[f"forgot {name}"] = r, w
        assert len(inbox.messages) == before  # nothing delivered yet: no answer waited for mail
        for kind in ("register", "forgot"):
            a, b = answers[f"{kind} taken"], answers[f"{kind} free"]
            assert a.status_code == b.status_code == 202, (kind, a.text, b.text)
            assert a.json() == b.json() or kind == "register" and _same_but_account(a.json(), b.json())
            assert work[f"{kind} taken"] == work[f"{kind} free"], kind
        assert work["register free"] == Counter(hash=1)
        assert work["forgot free"] == Counter()
        inbox.release.set()
        # then the mails leave: a note to the owner of the taken address, a link to the free
        # one, and a recovery link for the taken address only
        mails = inbox.wait(before + 3)[before:]
        assert sorted(m["To"] for m in mails) == sorted([taken, taken, free])


def _same_but_account(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two registration answers alike but for the (new guest) account each describes."""
    return {**a, "account": None} == {**b, "account": None} and a["account"].keys() == b["account"].keys()
