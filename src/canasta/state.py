"""The state of one hand within a match: :class:`State` joins the hand's data to the rules.

The pieces live along their seams: the data in :mod:`canasta.hand`, dealing in
:mod:`canasta.deal`, checking in :mod:`canasta.checks`, applying in :mod:`canasta.moves`,
legal actions in :mod:`canasta.legal`, the solvers in :mod:`canasta.going_out` and
:mod:`canasta.pickup`, views in :mod:`canasta.view`.  Each imports only modules below it.
"""

from __future__ import annotations

from . import checks, going_out, moves, pickup
from .deal import deal_into
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

    # ------------------------------------------------------------------ checking
    check = checks.check
    verify = checks.verify
    can = checks.can
    opening_count = checks.opening_count
    take_is_compulsory = checks.take_is_compulsory

    # ------------------------------------------------------------------ applying
    apply = moves.apply

    # ------------------------------------------------------------------ legal actions and solvers
    legal_actions = legal_actions
    can_go_out = going_out.can_go_out
    plan_pile_pickup = pickup.plan_pile_pickup

    @property
    def legal(self) -> LegalActions:
        """The legal actions, lazily: ``len()``, ``in`` and iteration (see :class:`LegalActions`)."""
        return LegalActions(self)

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may know (``None``: a spectator, no hand at all)."""
        return make_view(self, seat)
