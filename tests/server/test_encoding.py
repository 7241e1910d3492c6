"""``server/encoding.py``: the same JSON as the standard library writes (compact, UTF-8), from
orjson whenever it can encode the value."""

from __future__ import annotations

import json
from typing import Any

import pytest

from canasta.server.encoding import Raw, dumps, dumps_bytes, loads


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
    assert loads(dumps(obj)) == json.loads(_stdlib(obj))


def test_raw_text_is_placed_as_it_is() -> None:
    assert dumps({"history": Raw(b'[{"seat":1}]'), 2: "x"}) == '{"history":[{"seat":1}],"2":"x"}'


def test_what_json_cannot_write_is_refused() -> None:
    with pytest.raises(TypeError):
        dumps({"x": object()})
