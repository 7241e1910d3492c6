"""Who plays each seat: seat descriptions and the computer players (from ``canasta.bots``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from ..actions import Action
from ..bots import DIFFICULTIES, make_player, seat_levels
from ..errors import CanastaError
from ..rules import Settings
from ..view import SeatView

#: the difficulties a person may choose: the bots' own list
LEVELS = DIFFICULTIES
#: the seat a table's owner plays against the computer (the computer plays the others)
OWNER_SEAT = 0


def owner_seat(mode: str) -> int | None:
    """The one seat a table's owner plays offline: :data:`OWNER_SEAT` against the computer;
    None in pass-and-play, where the owner plays every seat."""
    return OWNER_SEAT if mode == "computer" else None


def own_team(settings: Any, seat: int | None) -> int | None:
    """The index in a match's scores of the total that is the player's, who played ``seat``
    under these settings (their JSON), by the core's teams (:meth:`Settings.team_of`); None
    for no one seat (pass-and-play) or for settings or a seat that do not read."""
    if seat is None:
        return None
    try:
        rules = Settings.from_json(settings)
    except (CanastaError, TypeError, ValueError):
        return None
    return rules.team_of(seat) if 0 <= seat < rules.players else None


class ComputerPlayer(Protocol):
    def choose(self, view: SeatView) -> Action: ...


def make_computer(level: str, seed: int) -> ComputerPlayer:
    """A computer player of ``level`` seeded with ``seed``."""
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
    """Seat 0 is the human; the bots say which level every other seat plays (in the
    four-player game the human's partner plays the same level at every difficulty)."""
    names = {
        2: ["You", "Computer"],
        3: ["You", "Left", "Right"],
        4: ["You", "Left", "Partner", "Right"],
    }[players]
    levels = seat_levels(players, 0, difficulty)
    seats = [SeatInfo(names[0], "human", None, "you")]
    for s in range(1, players):
        partner = players == 4 and s == 2
        role = "partner" if partner else "opponent"
        seats.append(SeatInfo(names[s], "computer", levels[s], role))
    return seats


def local_seats(players: int) -> list[SeatInfo]:
    return [SeatInfo(f"Player {s + 1}", "human", None, "player") for s in range(players)]
