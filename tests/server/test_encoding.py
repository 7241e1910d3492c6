"""``server/encoding.py``: the same JSON as the standard library writes (compact, UTF-8), from
orjson whenever it can encode the value; what a table keeps takes only its own length."""

from __future__ import annotations

import json
import random
import tracemalloc
from typing import Any

import pytest

from canasta.server.encoding import Raw, dumps, dumps_bytes, dumps_kept, loads, with_request

from .support import client, create_table, my_turn, pick, receive, send


def _stdlib(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "state", "view": {"hand": ["7H", "JK"], "turn": 2, "legal": []}, "base": None},
        {1: "one", 2: [True, None]},  # keys other than strings are written as strings, as json does
        {"nested": {3: {"x": 1.5}}, "name": "Gäst 名前"},
        [1, "two", {"three": 3}],
        {"big": 2**70, "small": -(2**70)},  # past 64 bits: the standard library writes it
    ],
)
def test_the_text_is_the_standard_librarys(obj: Any) -> None:
    assert dumps(obj) == _stdlib(obj)
    assert dumps_bytes(obj) == _stdlib(obj).encode()
    assert dumps_kept(obj) == _stdlib(obj).encode()
    assert loads(dumps(obj)) == json.loads(_stdlib(obj))


def test_raw_text_is_placed_as_it_is() -> None:
    assert dumps({"history": Raw(b'[{"seat":1}]'), 2: "x"}) == '{"history":[{"seat":1}],"2":"x"}'


def test_what_json_cannot_write_is_refused() -> None:
    with pytest.raises(TypeError):
        dumps({"x": object()})


def _allocated_per_object(objects: list[Any]) -> float:
    """The mean size of the allocations made where ``objects`` were made, while tracemalloc
    traces (``sys.getsizeof`` gives only a bytes object's length, not what was reserved)."""
    where = {tracemalloc.get_object_traceback(o) for o in objects}
    assert len(where) == 1 and None not in where
    snapshot = tracemalloc.take_snapshot()
    (stat,) = [s for s in snapshot.statistics("traceback") if s.traceback in where]
    return float(stat.size / stat.count)


_TRACING = pytest.mark.skipif(tracemalloc.is_tracing(), reason="tracemalloc is already tracing")


@_TRACING
def test_kept_json_takes_its_own_length() -> None:
    event = {"seat": 2, "action": "discard 7H", "drawn": [], "ndrawn": 0, "red_threes": []}
    tracemalloc.start(1)
    try:
        kept = [dumps_kept(event) for _ in range(300)]
        allocated = _allocated_per_object(kept)
    finally:
        tracemalloc.stop()
    assert allocated < 4 * len(kept[0])


@_TRACING
def test_a_tables_history_keeps_each_event_at_its_own_length(sqlite_url: str) -> None:
    """The table keeps each event of the hand as JSON for each recipient seat (encoded once):
    each kept text takes about its length, not the 4 KB orjson reserves for any output (at
    1,000 tables that was about 0.3 MB each)."""
    tracemalloc.start(1)
    try:
        with client(sqlite_url) as c:
            tid = create_table(c, mode="computer", preset="two-player", seed=5)
            rng = random.Random(3)
            with c.websocket_connect(f"/ws/tables/{tid}?history=delta") as ws:
                seen = 0
                while seen < 30:
                    msg = receive(ws)
                    if msg["type"] != "state":
                        continue
                    seen += len(msg["view"]["history"])
                    if msg["view"]["phase"] == "over":
                        send(ws, type="next_hand")
                    elif my_turn(msg):
                        send(ws, type="action", version=msg["version"], action=pick(msg["view"]["legal"], rng))
                table = c.app.state.tables._live[tid]  # type: ignore[attr-defined]
                texts = [t for _, kept, _ in table._history_cache.values() for t in kept]
                allocated = _allocated_per_object(texts)
    finally:
        tracemalloc.stop()
    assert len(texts) >= 30
    assert allocated < 2 * max(map(len, texts))


@pytest.mark.parametrize("request_id", [0, 7, 2**53 - 1, "a", 'q"uote\\', "名前"])
def test_a_request_id_added_to_encoded_text_is_the_object_with_it(request_id: Any) -> None:
    """The copy of a shared state for the socket whose request it answers: the id spliced into
    the encoded text reads as the object with ``request`` added."""
    message = {"type": "state", "version": 3, "view": {"hand": ["7H"]}, "request": None}
    del message["request"]
    text = with_request(dumps(message), request_id)
    assert loads(text) == {**message, "request": request_id}
