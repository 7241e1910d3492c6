"""The record of a finished hand: how it ended and what each side scored (R13)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True, kw_only=True)
class SideScore:
    """One side's hand score and where it came from."""

    side: int
    seats: tuple[int, ...]
    melds: int
    natural_canastas: int
    mixed_canastas: int
    canasta_bonus: int
    red_threes: int
    red_three_bonus: int
    going_out: int
    hand_penalty: int
    total: int

    def to_json(self) -> dict[str, Any]:
        return {
            "side": self.side,
            "seats": list(self.seats),
            "melds": self.melds,
            "natural_canastas": self.natural_canastas,
            "mixed_canastas": self.mixed_canastas,
            "canasta_bonus": self.canasta_bonus,
            "red_threes": self.red_threes,
            "red_three_bonus": self.red_three_bonus,
            "going_out": self.going_out,
            "hand_penalty": self.hand_penalty,
            "total": self.total,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class HandResult:
    """How a hand ended and what each side and team scored."""

    reason: str
    went_out: int | None
    concealed: bool
    sides: tuple[SideScore, ...]
    team_deltas: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "went_out": self.went_out,
            "concealed": self.concealed,
            "sides": [s.to_json() for s in self.sides],
            "team_deltas": list(self.team_deltas),
        }
