"""The data of one hand in play: table melds, the history, the turn sub-state and :class:`HandState`.

This module holds data and the questions the data answers directly; it imports no other part
of the engine above the rules.  Checking actions lives in :mod:`canasta.checks`, applying
them in :mod:`canasta.moves`, dealing in :mod:`canasta.deal`, and :class:`canasta.State`
(in :mod:`canasta.state`) puts the pieces together.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, Final, Generic, NamedTuple, TypeVar, cast, overload

from .actions import Action
from .cards import F_BLACK3, F_RED3, FACE, IS_WILD, NUM_FACES
from .results import HandResult
from .rules import CANASTA_SIZE, Settings, opening_minimum

_H = TypeVar("_H", bound="HandState")
_T = TypeVar("_T")


class TableMeld(NamedTuple):
    """A meld on the table: its rank (face), cards, and natural/wild counts."""

    rank: int
    cards: tuple[int, ...]
    naturals: int
    wilds: int

    @property
    def is_canasta(self) -> bool:
        """R5.4: seven cards or more."""
        return len(self.cards) >= CANASTA_SIZE

    @property
    def is_natural(self) -> bool:
        """No wild card (a natural canasta, R13.1)."""
        return self.wilds == 0


class Event(NamedTuple):
    """One entry of the hand's history.  ``action`` is None for the deal's red-three exposure.

    ``drawn`` holds the cards that reached the hand from the stock (private to ``seat``);
    ``ndrawn`` their number (public); ``red_threes`` the red threes exposed (public); ``taken``
    the pile cards that went into the hand (public: everyone saw them discarded); ``top`` the
    pile's top card a take laid in a meld (None for every other action).
    """

    seat: int
    action: Action | None
    drawn: tuple[int, ...]
    ndrawn: int
    red_threes: tuple[int, ...]
    taken: tuple[int, ...]
    top: int | None = None


class TurnState(NamedTuple):
    """What the player to act has done this turn: one immutable value, replaced on each change.

    >>> TurnState().drew is None, TurnState(drew="stock").melded
    (True, False)
    """

    #: None in the draw phase, then "stock" or "pile"
    drew: str | None = None
    #: melded anything this turn
    melded: bool = False
    #: the player had melded in this hand before this turn (R10.3)
    start_melded: bool = False
    #: bit per rank: melds the player started this turn (R10.3)
    new_melds: int = 0
    #: added cards this turn to a meld that existed before the turn (R10.3)
    added: bool = False
    #: "May I go out?" (R11): None, "pending", "yes" or "no"
    ask: str | None = None
    asker: int | None = None


#: the turn sub-state at the start of a turn (before/after the player's first meld in the hand)
FRESH_TURN: Final = TurnState()
FRESH_TURN_MELDED: Final = TurnState(start_melded=True)


class _TurnField(Generic[_T]):
    """A read-only attribute naming one field of the owner's ``turn_state``."""

    def __init__(self, field: str, doc: str) -> None:
        self._get = attrgetter("turn_state." + field)
        self.__doc__ = doc

    @overload
    def __get__(self, obj: None, owner: type) -> _TurnField[_T]: ...
    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _T: ...
    def __get__(self, obj: object, owner: type | None = None) -> _T | _TurnField[_T]:
        return self if obj is None else cast(_T, self._get(obj))


class TurnFacts:
    """Read-only names for the fields of ``turn_state`` (shared by :class:`HandState` and the view)."""

    __slots__ = ()
    turn_state: TurnState

    drew: _TurnField[str | None] = _TurnField("drew", 'None in the draw phase, then "stock" or "pile"')
    turn_melded: _TurnField[bool] = _TurnField("melded", "melded anything this turn")
    turn_start_melded: _TurnField[bool] = _TurnField("start_melded", "had melded before this turn (R10.3)")
    turn_new: _TurnField[int] = _TurnField("new_melds", "bit per rank: melds started this turn")
    # R11: None, "pending", "yes" or "no", and who asked
    ask: _TurnField[str | None] = _TurnField("ask", "R11: None, 'pending', 'yes' or 'no'")
    asker: _TurnField[int | None] = _TurnField("asker", "the seat that asked 'May I go out?'")
    turn_added: _TurnField[bool] = _TurnField("added", "added to a meld older than the turn")


class HandState(TurnFacts):
    """The data of a hand in progress (or finished), with the match context the rules need."""

    __slots__ = (
        "settings", "players", "hand_number", "dealer", "scores", "team_of",
        "hands", "fc", "stock", "pile", "pile_wild", "pile_red3", "pile_black3",
        "side_of", "melds", "canastas", "nmelds", "red3", "melded",
        "turn", "phase", "turn_state", "known", "history", "result", "merged", "seen_history",
        "views",
    )

    settings: Settings  # the rules (R2)
    players: int  # = settings.players
    hand_number: int  # 1 for the first hand of the match
    dealer: int  # the seat that dealt (R3.1)
    scores: tuple[int, ...]  # per team, before this hand
    team_of: tuple[int, ...]  # per seat: the team keeping its cumulative score
    hands: list[list[int]]  # each kept sorted by card code
    fc: list[list[int]]  # per seat: cards held per face
    stock: list[int]  # the top card is the last
    pile: list[int]  # the top card is the last
    pile_wild: int  # wilds, red threes and black threes in the pile (R7)
    pile_red3: int
    pile_black3: int
    side_of: list[int]
    melds: list[list[TableMeld | None]]  # per side, per face
    canastas: list[int]
    nmelds: list[int]
    red3: list[list[int]]
    melded: list[bool]  # per seat: has melded in this hand
    turn: int
    phase: str
    turn_state: TurnState
    known: list[list[int]]  # per seat: cards publicly known to be held (taken with the pile)
    history: list[Event]
    result: HandResult | None
    merged: bool  # R14: the three-player partnership has formed
    #: per seat (None: a spectator), the history as that seat sees it, for the views: the last
    #: event it covers and the shown events (see ``view.seen_history``)
    seen_history: dict[int | None, tuple[Event | None, tuple[Event, ...]]] | None
    #: per seat (None: a spectator), the last view built of this very state (a
    #: ``canasta.view.SeatView``): the one a later view may be built on (``view.make_view``)
    views: dict[int | None, Any] | None

    @classmethod
    def empty(
        cls: type[_H],
        settings: Settings,
        *,
        hand_number: int = 1,
        dealer: int = 0,
        scores: tuple[int, ...] | None = None,
    ) -> _H:
        """A state with no cards anywhere (used by dealing, position loading and resampling)."""
        self = cls.__new__(cls)
        n = settings.players
        self.settings = settings
        self.players = n
        self.hand_number = hand_number
        self.dealer = dealer
        self.team_of = tuple(settings.team_of(s) for s in range(n))
        teams = settings.team_count
        self.scores = tuple(scores) if scores is not None else (0,) * teams
        self.hands = [[] for _ in range(n)]
        self.fc = [[0] * NUM_FACES for _ in range(n)]
        self.stock = []
        self.pile = []
        self.pile_wild = self.pile_red3 = self.pile_black3 = 0
        self.side_of = list(self.team_of)
        self.melds = [[None] * NUM_FACES for _ in range(teams)]
        self.canastas = [0] * teams
        self.nmelds = [0] * teams
        self.red3 = [[] for _ in range(n)]
        self.melded = [False] * n
        self.turn = (dealer + 1) % n
        self.phase = "draw"
        self.turn_state = FRESH_TURN
        self.known = [[] for _ in range(n)]
        self.history = []
        self.result = None
        self.merged = False
        self.seen_history = None
        self.views = None
        return self

    def copy(self: _H, *, history: bool = True) -> _H:
        """An independent copy (``history=False`` shares nothing and drops the history: faster)."""
        cls = type(self)
        new = cls.__new__(cls)
        new.settings = self.settings
        new.players = self.players
        new.hand_number = self.hand_number
        new.dealer = self.dealer
        new.scores = self.scores
        new.team_of = self.team_of
        new.hands = [h[:] for h in self.hands]
        new.fc = [f[:] for f in self.fc]
        new.stock = self.stock[:]
        new.pile = self.pile[:]
        new.pile_wild = self.pile_wild
        new.pile_red3 = self.pile_red3
        new.pile_black3 = self.pile_black3
        new.side_of = self.side_of[:]
        new.melds = [m[:] for m in self.melds]
        new.canastas = self.canastas[:]
        new.nmelds = self.nmelds[:]
        new.red3 = [r[:] for r in self.red3]
        new.melded = self.melded[:]
        new.turn = self.turn
        new.phase = self.phase
        new.turn_state = self.turn_state
        new.known = [k[:] for k in self.known]
        new.history = self.history[:] if history else []
        new.result = self.result
        new.merged = self.merged
        new.seen_history = None
        new.views = None
        return new

    # ------------------------------------------------------------------ questions

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    def last_view(self, seat: int | None) -> Any:
        """The last view of ``seat`` built of this very state (a ``canasta.view.SeatView``),
        or None: the one a later view may be built on (``state.view(seat, since=...)``)."""
        return None if self.views is None else self.views.get(seat)

    def partner(self, seat: int) -> int:
        """The partner's seat in the four-player game."""
        return (seat + 2) % 4

    def opened(self, side: int) -> bool:
        """R0: the side has a meld on the table this hand."""
        return self.nmelds[side] > 0

    def opening_minimum(self, seat: int) -> int:
        """R6.1 minimum for the seat's team (R14: the player's own score in three-player)."""
        return opening_minimum(self.scores[self.team_of[seat]])

    def frozen_causes(self, side: int) -> list[str]:
        """R7: why the pile is frozen for ``side`` (empty list: not frozen)."""
        return self.settings.frozen_causes(
            wild=self.pile_wild > 0,
            red_three=self.pile_red3 > 0,
            black_three=self.pile_black3 > 0,
            opened=self.nmelds[side] > 0,
        )

    def is_frozen_for(self, side: int) -> bool:
        """R7: is the pile frozen for ``side``?"""
        # positional counts: this question is asked on every pile decision
        return self.settings.is_frozen(self.pile_wild, self.pile_red3, self.pile_black3, self.nmelds[side])

    def total_cards(self) -> int:
        """Cards accounted for (always 108)."""
        return (
            sum(len(h) for h in self.hands)
            + len(self.stock)
            + len(self.pile)
            + sum(len(m.cards) for ms in self.melds for m in ms if m is not None)
            + sum(len(r) for r in self.red3)
        )

    # ------------------------------------------------------------------ keeping the data consistent

    def push_pile(self, c: int) -> None:
        """Put a card on the pile, keeping its freezing counts (R7) up to date."""
        self.pile.append(c)
        if IS_WILD[c]:
            self.pile_wild += 1
        else:
            f = FACE[c]
            if f == F_RED3:
                self.pile_red3 += 1
            elif f == F_BLACK3:
                self.pile_black3 += 1

    def __repr__(self) -> str:
        return (
            f"<State hand {self.hand_number} turn={self.turn} phase={self.phase} "
            f"stock={len(self.stock)} pile={len(self.pile)}>"
        )
