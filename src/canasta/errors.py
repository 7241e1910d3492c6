"""The exception types of the engine: every error has a stable machine code and a human message."""

from __future__ import annotations

from typing import Any


class CanastaError(Exception):
    """Base class: ``code`` is stable and machine-readable, ``message`` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class IllegalAction(CanastaError):
    """An action the rules forbid; ``section`` names the rule (e.g. ``"R8"``).

    ``details`` holds the numbers and names the message is built from (JSON values only:
    ints, bools, rank tokens like ``"K"``, card strings like ``"KH"``), so that a client can
    word the reason itself; the keys per code are listed in ``docs/core-api.md``.

    >>> e = IllegalAction("opening_minimum_not_met", "R6", "...", details={"count": 35, "minimum": 50})
    >>> e.details["minimum"], e.to_json()["details"]
    (50, {'count': 35, 'minimum': 50})
    """

    def __init__(self, code: str, section: str, message: str, *, details: dict[str, Any] | None = None) -> None:
        super().__init__(code, message)
        self.section = section
        self.details: dict[str, Any] = details if details is not None else {}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code, "section": self.section, "message": self.message}
        if self.details:
            out["details"] = dict(self.details)
        return out

    def __repr__(self) -> str:
        return f"IllegalAction({self.code!r}, {self.section!r}, {self.message!r})"


class SettingsError(CanastaError, ValueError):
    """Invalid rule settings."""


class FormatError(CanastaError, ValueError):
    """Malformed notation, JSON, position or record."""
