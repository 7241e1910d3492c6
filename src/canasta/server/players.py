"""Who plays each seat: seat descriptions, and the computer players (or a stand-in)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

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


@dataclass(frozen=True)
class SeatInfo:
    """Who plays a seat: a human, or the computer at a level."""

    name: str
    kind: str  # "human" | "computer"
    level: str | None
    role: str  # "you" | "partner" | "opponent" | "player"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "level": self.level, "role": self.role}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SeatInfo:
        return cls(
            name=str(d["name"]),
            kind=str(d["kind"]),
            level=d.get("level"),
            role=str(d.get("role", "player")),
        )


def computer_seats(players: int, difficulty: str) -> list[SeatInfo]:
    """Seat 0 is the human; in four-player games seat 2 is the computer partner at Normal."""
    names = {
        2: ["You", "Computer"],
        3: ["You", "Left", "Right"],
        4: ["You", "Left", "Partner", "Right"],
    }[players]
    seats = [SeatInfo(names[0], "human", None, "you")]
    for s in range(1, players):
        if players == 4 and s == 2:
            seats.append(SeatInfo(names[s], "computer", "normal", "partner"))
        else:
            seats.append(SeatInfo(names[s], "computer", difficulty, "opponent"))
    return seats


def local_seats(players: int) -> list[SeatInfo]:
    return [SeatInfo(f"Player {s + 1}", "human", None, "player") for s in range(players)]
