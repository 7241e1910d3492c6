"""Helpers for account tests: browsers ("devices") with cookie jars of their own, a local SMTP
server (aiosmtpd) that keeps what it receives, and an online match played to its end."""

from __future__ import annotations

import dataclasses
import random
import re
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from email import message_from_bytes
from email.message import Message
from typing import Any

from aiosmtpd.controller import Controller
from starlette.testclient import TestClient

from canasta.server import ServerConfig, create_app
from tests.online.support import ONLINE_CONFIG, Browser, quick_match

#: the account limits loose, like every other limit in the shared test config
ACCOUNT_CONFIG = dataclasses.replace(
    ONLINE_CONFIG,
    auth_per_minute_per_address=10**6,
    login_failures_per_hour_per_email_and_address=10**6,
    login_failures_per_hour_per_email=10**6,
    registrations_per_hour_per_address=10**6,
    recoveries_per_hour_per_address=10**6,
    recoveries_per_hour_per_email=10**6,
    emails_per_hour_per_email=10**6,
    reports_per_hour=10**6,
    # the test client's host name: mailed links may then use it (create_app refuses email
    # that could take its links' host from any request)
    allowed_hosts=("testserver",),
)

PASSWORD = "correct horse battery"


def app_client(db_url: str, config: ServerConfig = ACCOUNT_CONFIG, **changes: Any) -> TestClient:
    if changes:
        config = dataclasses.replace(config, **changes)
    return TestClient(create_app(db_url, bot_delay_ms=0, config=config))


def new_email() -> str:
    return f"p-{uuid.uuid4().hex[:12]}@example.test"


class Device(Browser):
    """A browser whose session can change (login, reset): it keeps the cookie it is sent."""

    def request(self, method: str, path: str, **kw: Any) -> Any:
        r = super().request(method, path, **kw)
        token = r.cookies.get("canasta_session")
        if token:
            self.token = str(token)
        elif "canasta_session=" in r.headers.get("set-cookie", ""):
            self.token = ""  # cleared (logout)
        return r

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        return self.request("POST", path, json=body or {})

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def register(self, email: str, password: str = PASSWORD) -> dict[str, Any]:
        r = self.post("/api/account/register", {"email": email, "password": password})
        assert r.status_code == 200, r.text
        return r.json()["account"]  # type: ignore[no-any-return]

    def register_confirmed(
        self, email: str, inbox: Inbox, password: str = PASSWORD
    ) -> dict[str, Any]:
        """Register through the mailed link (a server with SMTP): the registered account."""
        before = len(inbox.messages)
        r = self.post("/api/account/register", {"email": email, "password": password})
        assert r.status_code == 202, r.text
        mail = inbox.wait(before + 1)[before]
        assert mail["To"] == email.strip().lower()
        r = self.post("/api/account/confirm", {"token": Inbox.token(mail, "confirm")})
        assert r.status_code == 200, r.text
        return r.json()["account"]  # type: ignore[no-any-return]

    def login(self, email: str, password: str = PASSWORD) -> Any:
        return self.post("/api/account/login", {"email": email, "password": password})


def code(r: Any) -> str:
    return str(r.json()["error"]["code"])


class Inbox:
    """What the local SMTP server received."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"

    def wait(self, count: int = 1, timeout: float = 10.0) -> list[Message]:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.messages) >= count, f"{len(self.messages)} messages, expected {count}"
        return self.messages

    @staticmethod
    def text(message: Message) -> str:
        body = message.get_payload(decode=True)
        assert isinstance(body, bytes)
        return body.decode()

    @staticmethod
    def token(message: Message, link: str = "reset") -> str:
        """The token of the message's ``#reset=`` (or ``#confirm=``) link."""
        body = Inbox.text(message)
        found = re.search(rf"#{link}=([A-Za-z0-9_-]+)", body)
        assert found, body
        return found.group(1)

    def to(self, address: str) -> list[Message]:
        return [m for m in self.messages if m["To"] == address]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def smtp_server(inbox: Inbox | None = None) -> Iterator[tuple[str, Inbox]]:
    """A real SMTP server on 127.0.0.1 (aiosmtpd): its URL and its inbox (a new one unless
    given)."""
    inbox = inbox if inbox is not None else Inbox()
    port = _free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield f"smtp://127.0.0.1:{port}", inbox
    finally:
        controller.stop()


def wait_for(pred: Callable[[], Any], timeout: float = 120.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = pred()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def finish_quick_match(c: TestClient, players: list[Browser], preset: str = "two-player") -> str:
    """A quick match of these browsers played to its end: every player but the last leaves
    (a leaver's seat is played by a Normal computer), and the last plays its seat by script
    (a match every player has left is abandoned, not played on): the table id."""
    from tests.server.support import play_to_the_end

    table_id = quick_match(players, preset=preset, target=2500)
    for i, b in enumerate(players):
        ws = b.socket(f"/ws/tables/{table_id}")
        state = b.until(ws, lambda m: m["type"] == "state")
        if i < len(players) - 1:
            b.send(ws, type="leave")
        else:
            play_to_the_end(ws, random.Random(table_id), held=state)
    tables = c.app.state.tables  # type: ignore[attr-defined]

    def over() -> bool:
        t = tables.peek(table_id)
        return t is not None and t.game.is_over and t.match_counted

    wait_for(over, what="the match to end")
    return table_id
