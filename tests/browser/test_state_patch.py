"""The page keeps the last state and is sent patches (``?state=patch``, docs/protocol.md): a
patch of a state it does not hold makes it ask once for the whole state, and play goes on."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .helpers import play_simple_turn, start_match, version, wait_my_turn

pytestmark = pytest.mark.browser


def test_a_patch_of_a_state_the_page_does_not_hold_brings_the_whole_state(page, server):
    asked: list[dict[str, Any]] = []  # what the page sent
    spoiled: list[dict[str, Any]] = []  # the patch whose base was changed on its way

    urls: list[str] = []

    def route(ws: Any) -> None:
        urls.append(ws.url)
        to_server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            msg = json.loads(message)
            if msg.get("type") == "state" and "base" in msg and not spoiled:
                msg["base"] = -1  # a state this page never held
                spoiled.append(msg)
                message = json.dumps(msg)
            ws.send(message)

        def from_page(message: str | bytes) -> None:
            asked.append(json.loads(message))
            to_server.send(message)

        to_server.on_message(from_server)
        ws.on_message(from_page)

    page.route_web_socket(re.compile(r".*/ws/tables/.*"), route)
    start_match(page, server.url)
    # the first patch came spoiled (a computer's move, or the player's own): the page asked for
    # the whole state once, and drew it
    for _ in range(3):
        phase = wait_my_turn(page)
        if spoiled or phase == "over":
            break
        play_simple_turn(page)
    assert spoiled, "no patch was sent"
    assert urls and all("state=patch" in u for u in urls)
    page.wait_for_timeout(300)  # patches already under way when the page asked are dropped
    assert len([m for m in asked if m.get("type") == "sync"]) == 1
    # play goes on from the whole state: the page's actions carry the version the server has
    phase = wait_my_turn(page)
    if phase != "over":
        before = version(page)
        play_simple_turn(page)
        assert version(page) != before
    assert page.locator(".toast.bad").count() == 0
