"""Sample full states consistent with one seat's view (for search players).

The sampled state agrees with everything the seat knows: its own hand, every public card
(melds, red threes, the pile), each player's card count, and the cards each player is publicly
known to hold (taken with the pile and not yet melded or discarded).  Red threes never go to a
hand (they would have been exposed); the rest of the unseen cards are dealt at random, and what
is left forms the stock in random order.  :func:`fixed_state` deals them in order instead, for
a player whose choice depends on nothing hidden.
"""

from __future__ import annotations

import random

from .cards import COPIES, F_RED3, FACE, NUM_FACES
from .deal import shuffle
from .errors import CanastaError
from .state import State
from .view import SeatView


def unseen_cards(view: SeatView) -> list[int]:
    """Cards the seat cannot place: other hands (beyond known cards) and the stock."""
    if view.hand is None:
        raise CanastaError("spectator_view", "a spectator view has no hand to resample from")
    counts = list(COPIES)
    # once the hand is over every hand is shown: nothing is left to place but the stock
    for hand in view.hands_left if view.hands_left is not None else [view.hand]:
        for c in hand:
            counts[c] -= 1
    for ms in view.melds:
        for m in ms:
            for c in m.cards:
                counts[c] -= 1
    for r in view.red_threes:
        for c in r:
            counts[c] -= 1
    for c in view.pile:
        counts[c] -= 1
    for seat, known in enumerate(view.known):
        if seat != view.seat and view.hands_left is None:
            for c in known:
                counts[c] -= 1
    out: list[int] = []
    for c, left in enumerate(counts):
        if left < 0:
            raise CanastaError("inconsistent_view", "the view accounts for more copies of a card than exist")
        out.extend([c] * left)
    return out


class Resampler:
    """Fast repeated sampling from one view: the fixed parts are prepared once."""

    def __init__(self, view: SeatView) -> None:
        if view.seat is None or view.hand is None:
            raise CanastaError("spectator_view", "a spectator view has no hand to resample from")
        self.view = view
        pool = unseen_cards(view)
        self.reds = [c for c in pool if FACE[c] == F_RED3]
        self.pool = [c for c in pool if FACE[c] != F_RED3]
        seat = view.seat
        self.need = [
            0 if s == seat or view.hands_left is not None else view.hand_counts[s] - len(view.known[s])
            for s in range(view.players)
        ]
        if sum(self.need) > len(self.pool):
            raise CanastaError("inconsistent_view", "not enough unseen cards for the other hands")
        base = State.empty(view.settings, hand_number=view.hand_number, dealer=view.dealer, scores=view.scores)
        base.side_of = list(view.side_of)
        for side, ms in enumerate(view.melds):
            for m in ms:
                base.melds[side][m.rank] = m
            base.nmelds[side] = len(ms)
        base.canastas = list(view.canastas)
        base.red3 = [list(r) for r in view.red_threes]
        for c in view.pile:
            base.push_pile(c)
        base.melded = list(view.melded)
        base.turn = view.turn
        base.phase = view.phase
        base.turn_state = view.turn_state
        base.merged = view.merged
        base.known = [list(k) for k in view.known]
        base.history = list(view.history)
        base.result = view.result
        base.hands = [list(view.known[s]) if s != seat else sorted(view.hand) for s in range(view.players)]
        if view.hands_left is not None:
            base.hands = [sorted(h) for h in view.hands_left]
        self.base = base

    def sample(self, rng: random.Random, *, history: bool = True) -> State:
        """One state consistent with the view."""
        pool = self.pool[:]
        shuffle(rng, pool)
        return self._deal(self.base.copy(history=history), pool, rng)

    def _deal(self, state: State, pool: list[int], rng: random.Random | None) -> State:
        """``state`` completed from ``pool``: the other hands' missing cards from its front,
        the rest the stock (with the red threes, shuffled in when ``rng`` is given)."""
        i = 0
        for s, k in enumerate(self.need):
            if k:
                state.hands[s].extend(pool[i : i + k])
                i += k
        stock = pool[i:]
        if self.reds:
            stock.extend(self.reds)
            if rng is not None:
                shuffle(rng, stock)
        state.stock = stock
        fc = state.fc
        for s, hand in enumerate(state.hands):
            hand.sort()
            f = [0] * NUM_FACES
            for c in hand:
                f[FACE[c]] += 1
            fc[s] = f
        return state


def fixed_state(view: SeatView) -> State:
    """The state consistent with ``view`` whose unseen cards lie in order (the other hands'
    missing cards first, then the stock): no randomness and no copy, for a player that reads
    only its own hand and the public facts."""
    sampler = Resampler(view)
    return sampler._deal(sampler.base, sampler.pool, None)


def resample(view: SeatView, rng: random.Random | int | None = None) -> State:
    """A full state consistent with ``view`` (seeded by ``rng``)."""
    if not isinstance(rng, random.Random):
        rng = random.Random(rng)
    return Resampler(view).sample(rng)
