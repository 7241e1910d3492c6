"""A plain-text summary of a hand's state, for the command line and text renderings."""

from __future__ import annotations

from .cards import card_str, sort_key
from .state import State


def _hand_text(cards: list[int]) -> str:
    return " ".join(card_str(c) for c in sorted(cards, key=sort_key)) or "-"


def describe_state(state: State) -> str:
    """A readable summary of a hand's state and, when over, its scores."""
    lines = [f"Hand {state.hand_number}, dealer seat {state.dealer}, phase {state.phase}, seat {state.turn} to act"]
    for seat, hand in enumerate(state.hands):
        lines.append(f"  seat {seat} ({len(hand):2} cards): {_hand_text(hand)}")
    for side in sorted(set(state.side_of)):
        melds = [m for m in state.melds[side] if m is not None]
        text = ", ".join(
            f"{len(m.cards)}×{card_str(m.cards[0])[0] if m.rank != 13 else '?'}"
            f"{' (canasta ' + ('natural' if not m.wilds else 'mixed') + ')' if m.is_canasta else ''}"
            for m in melds
        )
        lines.append(f"  side {side} melds: {text or '-'}")
    top = card_str(state.pile[-1]) if state.pile else "-"
    lines.append(f"  stock {len(state.stock)}, pile {len(state.pile)} (top {top})")
    if state.result is not None:
        r = state.result
        lines.append(f"  hand over: {r.reason}" + (f" (seat {r.went_out}{' concealed' if r.concealed else ''})" if r.went_out is not None else ""))
        for s in r.sides:
            lines.append(
                f"  side {s.side} seats {list(s.seats)}: melds {s.melds}, canastas {s.canasta_bonus}, "
                f"red threes {s.red_three_bonus}, going out {s.going_out}, in hand -{s.hand_penalty} = {s.total}"
            )
    return "\n".join(lines)
