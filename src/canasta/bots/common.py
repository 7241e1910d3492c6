"""What every computer player shares: the player protocol, its decision seed, its own state."""

from __future__ import annotations

import random
from typing import Protocol

from ..actions import Action
from ..resample import Resampler, fixed_state
from ..state import State
from ..view import SeatView


class Player(Protocol):
    """A computer player: decides from a seat's view only."""

    level: str

    def choose(self, view: SeatView) -> Action:
        """The action for the seat to act (``view.seat == view.turn``)."""
        ...


def decision_rng(seed: int | None, view: SeatView) -> random.Random:
    """A generator fixed by the player's seed and the public decision point (not hidden cards)."""
    if seed is None:
        return random.Random()
    key = ((seed * 1_000_003 + view.hand_number) * 1_009 + len(view.history)) * 16 + (view.seat or 0)
    key = key * 4 + ("draw", "play", "ask", "over").index(view.phase)
    return random.Random(key)


def own_state(view: SeatView, rng: random.Random | None = None) -> State:
    """A full state consistent with the view; policies read only the seat's hand and public
    facts, so the unseen cards stay in order unless ``rng`` shuffles them."""
    return fixed_state(view) if rng is None else Resampler(view).sample(rng)


def safe(view: SeatView, state: State, action: Action) -> Action:
    """The action if legal, else the first legal one (a player must never act illegally)."""
    if state.check(action) is None:
        return action
    return view.legal[0]
