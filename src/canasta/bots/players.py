"""Players: objects with ``choose(view) -> Action`` that see only a seat's view."""

from __future__ import annotations

from typing import Any

from ..actions import Action
from ..hand import Event
from ..view import SeatView
from .common import Player, decision_rng, own_state, safe
from .evaluate import Memory
from .policy import BEGINNER, NORMAL, Policy, Style
from .search import ExpertPlayer

__all__ = [
    "DIFFICULTIES", "LEVELS", "PARTNER_LEVEL", "ExpertPlayer", "HeuristicPlayer", "Player", "RandomPlayer", "computer_seats",
    "decision_rng", "seat_levels", "make_player", "own_state", "safe",
]


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
        #: the last decision's memory and the history it read (read on while the hand goes on)
        self._memory: tuple[Memory, tuple[Event, ...]] | None = None

    def choose(self, view: SeatView) -> Action:
        if len(view.legal) == 1:
            return view.legal[0]
        # the generator only draws the discard noise: a level without noise (Normal) needs none
        rng = decision_rng(self.seed, view) if self.policy.style.noise else None
        state = own_state(view)
        memory = self._remember(view) if self.memory else None
        return safe(view, state, self.policy.choose(state, rng, memory))

    def _remember(self, view: SeatView) -> Memory:
        """The memory of ``view``'s history: the last one read on when this history extends
        the one it read (the same seat's view later in the same hand), else a fresh scan.
        A memory is a function of the events' values alone, so a prefix equal in value is
        as good as the very events."""
        history = view.history
        kept = self._memory
        if kept is not None:
            memory, read = kept
            n = len(read)
            if n <= len(history) and len(memory.drawn) == view.players and history[:n] == read:
                memory.scan(history, n)
                self._memory = (memory, history)
                return memory
        memory = Memory.from_history(history, view.players)
        self._memory = (memory, history)
        return memory


def make_player(level: str, seed: int | None = None, **options: Any) -> Player:
    """A computer player: ``random``, ``beginner``, ``normal`` or ``expert``.

    Expert accepts ``time_budget`` (seconds per decision) and ``iterations`` (search
    iterations, one sampled world each, per decision); either ends the search.  The search's
    other settings are those of :class:`canasta.bots.search.ExpertPlayer`.
    """
    level = level.lower()
    if level == "random":
        return RandomPlayer(seed)
    if level == "beginner":
        return HeuristicPlayer("beginner", BEGINNER, seed, memory=False)
    if level == "normal":
        return HeuristicPlayer("normal", NORMAL, seed)
    if level == "expert":
        return ExpertPlayer(seed, **options)
    raise ValueError(f"unknown level {level!r}; choose random, beginner, normal or expert")


LEVELS = ("random", "beginner", "normal", "expert")

#: the levels a person chooses to play against (random is for measuring the others)
DIFFICULTIES = ("beginner", "normal", "expert")


#: the human's partner in the mode against the computer plays this level at every difficulty
PARTNER_LEVEL = "normal"


def computer_seats(players: int, human_seat: int, difficulty: str, seed: int | None = None) -> dict[int, Player]:
    """Players for every computer seat of a table with one human.

    The opponents play ``difficulty``; in the four-player game the human's partner is always
    :data:`PARTNER_LEVEL`, so the partner's support stays the same at every difficulty.
    """
    return {
        seat: make_player(level, None if seed is None else seed * 8 + seat)
        for seat, level in seat_levels(players, human_seat, difficulty).items()
    }


def seat_levels(players: int, human_seat: int, difficulty: str) -> dict[int, str]:
    """The level of every computer seat of a table with one human (see :func:`computer_seats`).

    >>> seat_levels(4, 0, "expert")
    {1: 'expert', 2: 'normal', 3: 'expert'}
    """
    return {
        seat: PARTNER_LEVEL if players == 4 and seat == (human_seat + 2) % 4 else difficulty
        for seat in range(players)
        if seat != human_seat
    }
