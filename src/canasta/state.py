"""The state of one hand within a match: :class:`State` joins the hand's data to the rules.

The pieces live along their seams: the data in :mod:`canasta.hand`, dealing in
:mod:`canasta.deal`, checking in :mod:`canasta.checks`, applying in :mod:`canasta.moves`,
legal actions in :mod:`canasta.legal`, the solvers in :mod:`canasta.going_out` and
:mod:`canasta.pickup`, views in :mod:`canasta.view`.  Each imports only modules below it.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import checks, going_out, moves, pickup
from .actions import Action, Discard, Meld, TakePile
from .deal import deal_into
from .errors import IllegalAction
from .hand import Event, HandState, TableMeld, TurnState
from .legal import LegalActions, legal_actions
from .rules import Settings
from .view import SeatView, make_view

__all__ = ["Event", "State", "TableMeld", "TurnState"]


class State(HandState):
    """A hand in progress (or finished), with the match context the rules need.

    Build one with :meth:`State.deal` or :func:`canasta.position.state_from_position`; a
    :class:`canasta.game.Game` holds the current one.

    >>> from canasta import Game, Settings, action_from_text
    >>> st = Game(Settings.preset("classic"), seed=1).state
    >>> st.can(action_from_text("draw")), st.check(action_from_text("discard 5C")).code
    (True, 'must_draw_first')
    """

    __slots__ = ()

    @classmethod
    def deal(
        cls,
        settings: Settings,
        deck: list[int],
        *,
        dealer: int = 0,
        hand_number: int = 1,
        scores: tuple[int, ...] | None = None,
    ) -> State:
        """Deal a hand from an explicit deck order (index 0 is the top card), R3."""
        st = cls.empty(settings, hand_number=hand_number, dealer=dealer, scores=scores)
        deal_into(st, deck)
        return st

    # Methods that hand over to the modules.  They are written out (not ``check = checks.check``)
    # so that they bind as methods whether those modules are plain Python or compiled (mypyc).

    # ------------------------------------------------------------------ checking
    def check(self, action: Action) -> IllegalAction | None:
        """The reason ``action`` is illegal for the player to act, or None if it is legal."""
        return checks.check(self, action)

    def verify(self, action: Action) -> None:
        """Raise :class:`IllegalAction` unless ``action`` is legal for the player to act."""
        checks.verify(self, action)

    def can(self, action: Action) -> bool:
        """Is ``action`` legal for the player to act?"""
        return checks.check(self, action) is None

    def opening_count(self, action: Action) -> int:
        """R6.2/R6.3: what a meld or take action counts toward the opening minimum."""
        return checks.opening_count(self, action)

    def take_is_compulsory(self) -> bool:
        """R12.1: empty stock, pile not frozen for the side and its top matches a side meld."""
        return checks.take_is_compulsory(self)

    # ------------------------------------------------------------------ applying
    def apply(self, action: Action, *, validate: bool = True) -> None:
        """Apply ``action`` for the player to act; raises :class:`IllegalAction` if illegal.

        ``validate=False`` skips the check: only for actions known to be legal (search).
        """
        moves.apply(self, action, validate=validate)

    # ------------------------------------------------------------------ legal actions and solvers
    def legal_actions(self) -> list[Action]:
        """A useful, bounded list of legal actions for the player to act."""
        return legal_actions(self)

    def finishing_discard(self, action: Meld) -> int | None:
        """R10.1: the card whose discard, sent with ``action``, goes out, or None.

        That is the one card ``action``'s melds would leave in the hand, when melding and
        discarding it is legal as one going-out action (R10.5).
        """
        left = list(self.hands[self.turn])
        for g in action.groups:
            for c in g.cards:
                if c not in left:
                    return None
                left.remove(c)
        if len(left) != 1:
            return None
        return left[0] if self.can(action._replace(discard=left[0])) else None

    def can_go_out(self) -> Meld | Discard | None:
        """A complete going-out action for the player to act now (R10), or None."""
        return going_out.can_go_out(self)

    def plan_pile_pickup(self) -> TakePile | None:
        """A legal way for the player to act to take the pile now, or None (R8, R6.3)."""
        return pickup.plan_pile_pickup(self)

    def take_refusal(self) -> IllegalAction | None:
        """Why the player to act cannot take the pile now, with its numbers, or None (R8)."""
        return pickup.take_refusal(self)

    @property
    def legal(self) -> LegalActions:
        """The legal actions, lazily: ``len()``, ``in`` and iteration (see :class:`LegalActions`)."""
        return LegalActions(self)

    def view(
        self, seat: int | None, legal: Sequence[Action] | None = None, since: SeatView | None = None
    ) -> SeatView:
        """What ``seat`` may know (``None``: a spectator, no hand at all); ``legal``: this
        state's :meth:`legal_actions` when the caller has them already; ``since``: this seat's
        view of this hand built earlier, whose parts no action since could change are reused
        (see :func:`canasta.view.make_view`)."""
        return make_view(self, seat, legal, since)
