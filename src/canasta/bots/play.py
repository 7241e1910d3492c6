"""Running bot-only hands and matches (for the arena, the soak script and the tests)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..game import Game
from ..state import State
from .players import Player

#: no hand of Canasta needs this many actions; reaching it means something stalled
MAX_ACTIONS = 5000


class Stalled(RuntimeError):
    """A hand did not end within :data:`MAX_ACTIONS` actions."""


@dataclass
class HandStats:
    """What happened in one bot-only hand."""

    actions: int = 0
    decisions: dict[str, int] = field(default_factory=dict)
    reason: str = ""


def play_hand(game: Game | State, seats: list[Player], stats: HandStats | None = None) -> HandStats:
    """Play the current hand to its end, each seat's player choosing from its view.

    Given a :class:`Game`, actions go through ``game.apply`` so the match scores follow.
    """
    stats = stats or HandStats()
    state = game.state if isinstance(game, Game) else game
    apply = game.apply
    while not state.is_over:
        seat = state.turn
        view = state.view(seat)
        action = seats[seat].choose(view)
        apply(action)  # validates: an illegal action raises IllegalAction
        stats.actions += 1
        kind = action.kind
        stats.decisions[kind] = stats.decisions.get(kind, 0) + 1
        if stats.actions > MAX_ACTIONS:
            raise Stalled(f"hand {state.hand_number} did not end after {MAX_ACTIONS} actions")
    assert state.result is not None
    stats.reason = state.result.reason
    return stats


def play_match(game: Game, seats: list[Player], max_hands: int = 200) -> Game:
    """Play a match to its end (or ``max_hands`` hands)."""
    for _ in range(max_hands):
        play_hand(game, seats)
        if game.is_over:
            break
        game.next_hand()
    return game
