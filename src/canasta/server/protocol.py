"""The browser protocol's message shapes (``docs/protocol.md``): errors, limits, parsing."""

from __future__ import annotations

import json
from typing import Any

from ..actions import Action, action_from_json
from ..errors import CanastaError, IllegalAction
from .encoding import loads

#: the largest client message accepted (bytes of UTF-8 text); the largest legal one, an action
#: naming every card of a long hand, is a few KiB
MAX_MESSAGE_BYTES = 16 * 1024
MAX_DELAY_MS = 10_000
#: the deepest a client's JSON may nest (the protocol's own messages nest five levels at most):
#: deeper values would reach error messages that print them, which Python's repr cannot do
#: past about a thousand levels
MAX_NESTING = 32


def nested_too_deep(value: Any, text: str | bytes | None = None) -> bool:
    """Whether ``value`` (parsed JSON; the top level is depth 1) nests past
    :data:`MAX_NESTING`. With its ``text``, a value that cannot (it has no more brackets than
    that) is answered without walking it."""
    if text is not None:
        if isinstance(text, bytes):
            brackets = text.count(b"[") + text.count(b"{")
        else:
            brackets = text.count("[") + text.count("{")
        if brackets <= MAX_NESTING:
            return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth >= MAX_NESTING:
                    return True
                stack.append((child, depth + 1))
    return False


class TableError(Exception):
    """A rejected message: answered with ``{"type": "error", "code", "message"}``."""

    def __init__(
        self, code: str, message: str, section: str | None = None, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.section = section
        self.details: dict[str, Any] = details or {}

    @classmethod
    def illegal(cls, error: IllegalAction) -> TableError:
        """The rejection of an illegal action, with the core's code, section and details."""
        return cls(error.code, error.message, error.section, error.details)


def minimum_numbers(error: IllegalAction | TableError) -> tuple[int | None, int | None]:
    """(count, minimum) of the core's opening-minimum error, for clients that word it themselves."""
    if error.code == "opening_minimum_not_met":
        return error.details.get("count"), error.details.get("minimum")
    return None, None


def error_message(
    code: str,
    message: str,
    *,
    version: int | None = None,
    section: str | None = None,
    details: dict[str, Any] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if section is not None:
        out["section"] = section
    if details:
        out["details"] = dict(details)
        if code == "opening_minimum_not_met":
            out["count"], out["minimum"] = details["count"], details["minimum"]
    if version is not None:
        out["version"] = version
    return out


def parse_message(raw: str | bytes) -> dict[str, Any]:
    """A client's message: a JSON object, or ``bad_message``. Parsed by orjson, which refuses
    what no reply could echo faithfully: an unpaired surrogate (``"\\ud800"``), NaN and the
    infinities; nesting past :data:`MAX_NESTING` levels is refused here."""
    try:
        if isinstance(raw, bytes) and (encoding := json.detect_encoding(raw)) != "utf-8":
            raw = raw.decode(encoding)  # a binary frame in UTF-16 or 32, or with a BOM
        msg = loads(raw)
    except (ValueError, RecursionError) as e:
        raise TableError("bad_message", "a message must be a JSON object") from e
    if not isinstance(msg, dict):
        raise TableError("bad_message", "a message must be a JSON object")
    if nested_too_deep(msg, raw):
        raise TableError("bad_message", f"a message may nest at most {MAX_NESTING} levels")
    return msg


def request_of(msg: dict[str, Any]) -> int | str | None:
    """A message's optional request id, which the replies to it echo."""
    r = msg.get("request")
    if r is None:
        return None
    if (type(r) is int and 0 <= r < 2**53) or (type(r) is str and 0 < len(r) <= 64):
        return r
    raise TableError("bad_message", "request is an id: an integer or a string of up to 64 characters")


def version_of(msg: dict[str, Any]) -> int:
    v = msg.get("version")
    if type(v) is not int:
        raise TableError(
            "bad_message",
            "this message needs the integer 'version' of the state it was made against",
        )
    return v


def action_of(msg: dict[str, Any]) -> Action:
    if "action" not in msg:
        raise TableError("bad_message", "this message needs an 'action'")
    try:
        return action_from_json(msg["action"])
    except CanastaError as e:
        raise TableError(e.code, e.message) from e
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        raise TableError("bad_action", f"not an action: {e}") from e
