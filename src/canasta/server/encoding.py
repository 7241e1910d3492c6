"""JSON text for the wire, the database and Redis: orjson when it can, the standard library
when orjson refuses a value (an integer past 64 bits).

Every state change is encoded for each audience, saved and sometimes published, so this is on
the server's hot path; orjson is several times faster than ``json`` and its output is the same
JSON (UTF-8 instead of ``\\u`` escapes, no spaces). :class:`Raw` wraps text already encoded
(the history events a table encoded once), to be placed as it is inside a larger document.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

#: for a mapping with keys other than strings (written as strings, as ``json`` does): orjson is
#: slower with this option on, so it is tried only when a plain encoding refuses the value
_NON_STR_KEYS = orjson.OPT_NON_STR_KEYS

#: JSON text placed verbatim in a document :func:`dumps` encodes
Raw = orjson.Fragment


def _fallback(obj: Any) -> Any:
    if isinstance(obj, Raw):  # pragma: no cover - only reached through the stdlib fallback
        return json.loads(obj.contents)
    raise TypeError(f"{type(obj).__name__} is not JSON serialisable")


def dumps_bytes(obj: Any) -> bytes:
    """``obj`` as compact UTF-8 JSON."""
    try:
        return orjson.dumps(obj)
    except orjson.JSONEncodeError:
        pass
    try:
        return orjson.dumps(obj, option=_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        # ASCII: a string with an unpaired surrogate (no UTF-8 for it) is written escaped
        return json.dumps(obj, separators=(",", ":"), default=_fallback).encode()


def dumps_kept(obj: Any) -> bytes:
    """``obj`` as :func:`dumps_bytes` writes it, for a cache that keeps it: a copy of exactly
    its length. orjson's output reserves at least 4 KB whatever its length and never gives the
    rest back (``sys.getsizeof`` shows only the length), so a table that kept each event of a
    hand as orjson wrote it held about 4 KB per event and seat (of which ~100 bytes were JSON);
    the copy costs a fraction of a microsecond."""
    return bytes(memoryview(dumps_bytes(obj)))


def dumps(obj: Any) -> str:
    """``obj`` as compact JSON text."""
    return dumps_bytes(obj).decode()


def with_request(text: str, request: int | str) -> str:
    """The JSON object ``text`` with ``"request"`` first in it: the same message as the object
    with that entry added, without encoding the rest again (a state encoded once for several
    sockets, and the copy for the socket whose request it answers)."""
    assert text.startswith("{") and text != "{}", text
    return '{"request":' + dumps(request) + "," + text[1:]


def loads(text: str | bytes) -> Any:
    """The value of a JSON text (raises ``ValueError`` when it is not one)."""
    return orjson.loads(text)
