"""A socket acts for the session it was opened with only while that session lives: a logout,
logging out everywhere, a changed or reset password and a login that replaces the browser's
session close the sockets of the sessions that ended (4401), and the page's reconnect is then
whoever its cookie says now."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Any

from starlette.testclient import WebSocketTestSession

from tests.server.support import close_code, receive

from .support import PASSWORD, Device, app_client, code, new_email


def _opener(c: Any, devices: contextlib.ExitStack) -> Callable[[], Device]:
    """New devices whose sockets close before the app stops."""

    def new() -> Device:
        d = Device(c)
        devices.callback(d.close)
        return d

    return new


def _state(ws: WebSocketTestSession) -> dict[str, Any]:
    for _ in range(500):
        msg = receive(ws)
        if msg["type"] == "state":
            return msg
    raise AssertionError("no state")


def _two_devices(dev: Callable[[], Device], email: str) -> tuple[Device, Device]:
    """A new account registered on one device and logged in on another."""
    first = dev()
    first.register(email)
    second = dev()
    assert second.login(email).status_code == 200
    return first, second


def test_logging_out_everywhere_closes_the_other_devices_sockets(db_url: str) -> None:
    email = new_email()
    with app_client(db_url) as c, contextlib.ExitStack() as devices:
        dev = _opener(c, devices)
        home, phone = _two_devices(dev, email)
        r = phone.post("/api/tables", {"mode": "computer", "players": 2})
        table = r.json()["table"]
        at_table = phone.socket(f"/ws/tables/{table}")
        assert _state(at_table)["table"]["seat"] is not None
        lobby = phone.socket("/ws/lobby")
        assert receive(lobby)["type"] == "lobby"

        # a changed password keeps this device's own session, and ends the phone's
        own = home.socket("/ws/lobby")
        assert receive(own)["type"] == "lobby"
        r = home.post("/api/account/password", {"current": PASSWORD, "password": "another secret"})
        assert r.status_code == 200 and r.json()["revoked"] == 1
        assert close_code(at_table) == 4401 and close_code(lobby) == 4401
        own.send_text('{"type": "sync", "request": 1}')
        # still open, still the account's (a lobby broadcast may come before the answer)
        assert next(m for m in iter(lambda: receive(own), None) if "request" in m)["request"] == 1

        # the page reconnects with the cookie it holds: a dead session only watches
        again = phone.socket(f"/ws/tables/{table}")
        state = _state(again)
        assert state["table"]["seat"] is None and state["view"]["hand"] is None
        again.send_text(json.dumps({"type": "action", "version": state["version"], "action": {"type": "draw"}}))
        assert receive(again)["code"] == "not_your_table"

        # logging out everywhere ends this device's sockets too
        assert phone.login(email, "another secret").status_code == 200
        back = phone.socket(f"/ws/tables/{table}")
        assert _state(back)["table"]["seat"] is not None
        assert home.post("/api/account/logout-all").status_code == 200
        assert close_code(back) == 4401 and close_code(own) == 4401


def test_a_logout_closes_only_that_browsers_sockets(db_url: str) -> None:
    email = new_email()
    with app_client(db_url) as c, contextlib.ExitStack() as devices:
        one, two = _two_devices(_opener(c, devices), email)
        mine, theirs = one.socket("/ws/lobby"), two.socket("/ws/lobby")
        assert receive(mine)["type"] == receive(theirs)["type"] == "lobby"
        assert one.post("/api/account/logout").status_code == 200
        assert close_code(mine) == 4401
        theirs.send_text('{"type": "sync", "request": 7}')
        assert receive(theirs)["request"] == 7


def test_logging_in_replaces_the_guest_session_of_the_browsers_open_sockets(db_url: str) -> None:
    """A guest with the lobby open logs in from the account panel: the guest's lobby socket
    closes, and the page's reconnect is the account (it queues as the account, not as the
    guest it was)."""
    email = new_email()
    with app_client(db_url) as c, contextlib.ExitStack() as devices:
        dev = _opener(c, devices)
        dev().register(email)
        browser = dev()
        guest = browser.get("/api/account").json()["account"]
        lobby = browser.socket("/ws/lobby")
        assert receive(lobby)["type"] == "lobby"
        r = browser.login(email)
        assert r.status_code == 200 and r.json()["account"]["id"] != guest["id"]
        assert close_code(lobby) == 4401
        again = browser.socket("/ws/lobby")
        assert receive(again)["type"] == "lobby"
        again.send_text('{"type": "room_create", "preset": "two-player", "target": 5000}')
        room = next(m for m in iter(lambda: receive(again), None) if m["type"] == "room")["room"]
        assert room["seats"][0]["name"] == r.json()["account"]["name"] != guest["name"]
        assert code(dev().login(email, "wrong password")) == "bad_credentials"
