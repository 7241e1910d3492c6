"""End-of-hand scoring (R13, R9.3, R14) with a full breakdown per side."""

from __future__ import annotations

from .cards import VALUE
from .hand import HandState
from .results import HandResult, SideScore
from .rules import Settings

__all__ = ["HandResult", "SideScore", "red_three_bonus", "score_hand"]


def red_three_bonus(count: int, opened: bool) -> int:
    """R9.3 (kept for callers of 0.1): see :meth:`canasta.rules.Settings.red_three_bonus`."""
    return _CLASSIC.red_three_bonus(count, opened)


_CLASSIC = Settings()


def score_hand(state: HandState, reason: str, went_out: int | None, concealed: bool) -> HandResult:
    """Score the finished hand in ``state``."""
    rules = state.settings
    sides: list[SideScore] = []
    side_total: dict[int, int] = {}
    for side in sorted(set(state.side_of)):
        seats = tuple(s for s in range(state.players) if state.side_of[s] == side)
        melds = [m for m in state.melds[side] if m is not None]
        meld_points = sum(VALUE[c] for m in melds for c in m.cards)
        canastas = [m for m in melds if m.is_canasta]
        natural = sum(1 for m in canastas if m.is_natural)
        mixed = len(canastas) - natural
        reds = sum(len(state.red3[s]) for s in seats)
        opened = bool(melds)
        red_bonus = rules.red_three_bonus(reds, opened)
        going = 0
        if went_out is not None and state.side_of[went_out] == side:
            going = rules.going_out_bonus(concealed)
        penalty = sum(VALUE[c] for s in seats for c in state.hands[s])
        canasta_bonus = sum(rules.canasta_bonus(m.wilds) for m in canastas)
        total = meld_points + canasta_bonus + red_bonus + going - penalty
        side_total[side] = total
        sides.append(
            SideScore(
                side=side,
                seats=seats,
                melds=meld_points,
                natural_canastas=natural,
                mixed_canastas=mixed,
                canasta_bonus=canasta_bonus,
                red_threes=reds,
                red_three_bonus=red_bonus,
                going_out=going,
                hand_penalty=penalty,
                total=total,
            )
        )
    deltas = []
    for team in range(len(state.scores)):
        seat = state.team_of.index(team)
        deltas.append(side_total[state.side_of[seat]])
    return HandResult(
        reason=reason, went_out=went_out, concealed=concealed, sides=tuple(sides), team_deltas=tuple(deltas)
    )
