"""Players: objects with ``choose(view) -> Action`` that see only a seat's view."""

from __future__ import annotations

import random
from typing import Protocol

from ..actions import Action
from ..resample import Resampler
from ..state import State
from ..view import SeatView
from .evaluate import Memory
from .policy import BEGINNER, NORMAL, Policy, Style


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
    """A full state consistent with the view; policies read only the seat's hand and public facts."""
    return Resampler(view).sample(rng or random.Random(0))


def safe(view: SeatView, state: State, action: Action) -> Action:
    """The action if legal, else the first legal one (a player must never act illegally)."""
    if state.check(action) is None:
        return action
    return view.legal[0]


class RandomPlayer:
    """Uniformly random among the engine's listed legal actions."""

    level = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    def choose(self, view: SeatView) -> Action:
        return decision_rng(self.seed, view).choice(view.legal)


class HeuristicPlayer:
    """Beginner and Normal: the shared rule-of-thumb policy with a level's style."""

    def __init__(self, level: str, style: Style, seed: int | None = None, memory: bool = True) -> None:
        self.level = level
        self.seed = seed
        self.policy = Policy(style)
        self.memory = memory

    def choose(self, view: SeatView) -> Action:
        if len(view.legal) == 1:
            return view.legal[0]
        rng = decision_rng(self.seed, view)
        state = own_state(view)
        memory = Memory.from_history(view.history, view.players) if self.memory else None
        return safe(view, state, self.policy.choose(state, rng, memory))


def make_player(level: str, seed: int | None = None, **options: object) -> Player:
    """A computer player: ``random``, ``beginner``, ``normal`` or ``expert``.

    Expert accepts ``time_budget`` (seconds per decision) and ``iterations`` (rollouts per
    decision); either ends the search.
    """
    level = level.lower()
    if level == "random":
        return RandomPlayer(seed)
    if level == "beginner":
        return HeuristicPlayer("beginner", BEGINNER, seed, memory=False)
    if level == "normal":
        return HeuristicPlayer("normal", NORMAL, seed)
    if level == "expert":
        from .search import ExpertPlayer

        return ExpertPlayer(seed, **options)  # type: ignore[arg-type]
    raise ValueError(f"unknown level {level!r}; choose random, beginner, normal or expert")


LEVELS = ("random", "beginner", "normal", "expert")


#: the human's partner in the mode against the computer plays this level at every difficulty
PARTNER_LEVEL = "normal"


def computer_seats(players: int, human_seat: int, difficulty: str, seed: int | None = None) -> dict[int, Player]:
    """Players for every computer seat of a table with one human.

    The opponents play ``difficulty``; in the four-player game the human's partner is always
    :data:`PARTNER_LEVEL`, so the partner's support stays the same at every difficulty.
    """
    out: dict[int, Player] = {}
    for seat in range(players):
        if seat == human_seat:
            continue
        partner = players == 4 and seat == (human_seat + 2) % 4
        level = PARTNER_LEVEL if partner else difficulty
        out[seat] = make_player(level, None if seed is None else seed * 8 + seat)
    return out
