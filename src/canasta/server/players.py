"""Computer seats: the bots' players, or a stand-in while ``canasta.bots`` is unavailable."""

from __future__ import annotations

from typing import Protocol

from ..actions import Action
from ..view import SeatView

LEVELS = ("beginner", "normal", "expert")


class ComputerPlayer(Protocol):
    def choose(self, view: SeatView) -> Action: ...


class _FallbackPlayer:
    """Stand-in used only when ``canasta.bots`` cannot be imported: draws and discards."""

    level = "fallback"

    def __init__(self, level: str, seed: int) -> None:
        self.level = level
        self.seed = seed

    def choose(self, view: SeatView) -> Action:
        for action in view.legal:
            if action.kind in ("draw", "discard"):
                return action
        return view.legal[0]


def make_computer(level: str, seed: int) -> ComputerPlayer:
    """A computer player of ``level`` seeded with ``seed``."""
    try:
        from ..bots import make_player
    except ImportError:  # the bots layer is optional for the server
        return _FallbackPlayer(level, seed)
    return make_player(level, seed=seed)
