"""The browser protocol's message shapes (``docs/protocol.md``): errors, limits, parsing."""

from __future__ import annotations

import re
from typing import Any

from ..actions import Action, action_from_json
from ..errors import CanastaError

#: the largest client message accepted (bytes of UTF-8 text); the largest legal one, an action
#: naming every card of a long hand, is a few KiB
MAX_MESSAGE_BYTES = 16 * 1024
MAX_DELAY_MS = 10_000


class TableError(Exception):
    """A rejected message: answered with ``{"type": "error", "code", "message"}``."""

    def __init__(self, code: str, message: str, section: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.section = section


_MINIMUM_RE = re.compile(r"count (\d+); your side needs (\d+)")


def minimum_numbers(code: str | None, message: str) -> tuple[int | None, int | None]:
    """(count, minimum) of the core's opening-minimum error, for clients that word it themselves."""
    if code == "opening_minimum_not_met":
        m = _MINIMUM_RE.search(message)
        if m:
            return int(m.group(1)), int(m.group(2))
    return None, None


def error_message(
    code: str, message: str, *, version: int | None = None, section: str | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if section is not None:
        out["section"] = section
    count, minimum = minimum_numbers(code, message)
    if count is not None:
        out["count"], out["minimum"] = count, minimum
    if version is not None:
        out["version"] = version
    return out


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
