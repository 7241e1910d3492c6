"""Random hostile messages (hypothesis): the table always answers and never breaks."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .support import client, create_table, my_turn, receive, receive_until

TYPES = [
    "action",
    "validate",
    "suggest",
    "undo",
    "pause",
    "resume",
    "reveal",
    "next_hand",
    "new_match",
    "settings",
    "sync",
    "dance",
    "",
]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 40)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=12,
)
actions = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["draw", "take", "meld", "discard", "ask", "answer", "decline", "fly"]
        )
    },
    optional={
        "card": st.sampled_from(["KH", "JK", "3S", "ZZ", "", "2C"]) | json_values,
        "groups": st.lists(
            st.fixed_dictionaries(
                {
                    "rank": st.sampled_from(["K", "3", "2", "A", "X"]) | json_values,
                    "cards": st.lists(st.sampled_from(["KH", "KS", "JK", "2D", "9C"]), max_size=4),
                }
            ),
            max_size=3,
        )
        | json_values,
        "discard": json_values,
        "yes": json_values,
    },
)
messages = st.one_of(
    json_values.map(json.dumps),
    st.fixed_dictionaries(
        {"type": st.sampled_from(TYPES)},
        optional={
            "version": st.integers(-1, 30) | json_values,
            "action": actions | json_values,
            "seat": st.integers(-1, 4) | json_values,
            "delay_ms": st.integers(-5, 20_000) | json_values,
        },
    ).map(json.dumps),
    st.text(max_size=40),
    st.binary(max_size=40),
)


def test_random_messages_never_break_a_table(
    sqlite_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="canasta.server")
    with client(sqlite_url) as c:
        tid = create_table(c, mode="computer", preset="two-player", seed=13)
        with c.websocket_connect(f"/ws/tables/{tid}") as ws:
            last = receive_until(ws, my_turn)

            @settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
            @given(messages)
            def one(raw: str | bytes) -> None:
                nonlocal last
                if isinstance(raw, bytes):
                    ws.send_bytes(raw)
                else:
                    ws.send_text(raw)
                ws.send_text('{"type": "sync"}')
                while True:
                    msg: dict[str, Any] = receive(ws)
                    assert msg["type"] in ("state", "error", "validation", "suggestion"), msg
                    if msg["type"] == "error":
                        assert isinstance(msg["code"], str) and msg["code"] and msg["message"]
                    if msg["type"] == "state":
                        assert msg["version"] >= last["version"]
                        last = msg
                        if msg["change"] == "sync":
                            break

            one()
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
