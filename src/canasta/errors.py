"""The exception types of the engine: every error has a stable machine code and a human message."""

from __future__ import annotations


class CanastaError(Exception):
    """Base class: ``code`` is stable and machine-readable, ``message`` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class IllegalAction(CanastaError):
    """An action the rules forbid; ``section`` names the rule (e.g. ``"R8"``)."""

    def __init__(self, code: str, section: str, message: str) -> None:
        super().__init__(code, message)
        self.section = section

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "section": self.section, "message": self.message}

    def __repr__(self) -> str:
        return f"IllegalAction({self.code!r}, {self.section!r}, {self.message!r})"


class SettingsError(CanastaError, ValueError):
    """Invalid rule settings."""


class FormatError(CanastaError, ValueError):
    """Malformed notation, JSON, position or record."""
