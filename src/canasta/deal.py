"""Dealing (R3): deck orders from a seed or given explicitly, and the deal of a hand."""

from __future__ import annotations

import random
from typing import Any

from .cards import COPIES, DECK_SIZE, F_RED3, FACE, IS_WILD, card_str, full_deck, parse_card
from .errors import FormatError
from .hand import Event, HandState


def deck_for(seed: int | str, hand_number: int) -> list[int]:
    """The shuffled deck of hand ``hand_number`` of a match seeded with ``seed``."""
    deck = full_deck()
    shuffle(random.Random(f"canasta:{seed}:hand:{hand_number}"), deck)
    return deck


def shuffle(rng: random.Random, cards: list[int]) -> None:
    """Shuffle ``cards`` in place exactly as ``rng.shuffle(cards)`` does.

    For a plain :class:`random.Random` this is CPython's own algorithm (Fisher–Yates, each index
    drawn with ``getrandbits`` and rejection), written out so that a compiled core runs it
    natively: the same permutation and the same generator state after it.  Other generators
    use their own ``shuffle``.

    >>> a, b = list(range(10)), list(range(10))
    >>> r, q = random.Random(5), random.Random(5)
    >>> r.shuffle(a); shuffle(q, b); a == b, r.getstate() == q.getstate()
    (True, True)
    """
    if type(rng) is not random.Random:
        rng.shuffle(cards)
        return
    getrandbits = rng.getrandbits
    i = len(cards) - 1
    while i > 0:
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
        i -= 1


def first_dealer_for(seed: int | str, players: int) -> int:
    """R3.1: the first dealer, chosen at random from the match seed."""
    return random.Random(f"canasta:{seed}:dealer").randrange(players)


def check_deck(deck: Any) -> list[int]:
    """Validate an explicit deck order (108 card strings or codes) and return codes."""
    if not isinstance(deck, (list, tuple)) or len(deck) != DECK_SIZE:
        raise FormatError("bad_deck", f"a deck must list exactly {DECK_SIZE} cards")
    codes = [parse_card(c) if isinstance(c, str) else c for c in deck]
    counts = [0] * len(COPIES)
    for c in codes:
        if type(c) is not int or not 0 <= c < len(COPIES):
            raise FormatError("bad_deck", f"not a card: {c!r}")
        counts[c] += 1
    for c, k in enumerate(counts):
        if k != COPIES[c]:
            raise FormatError("bad_deck", f"the deck holds {k} × {card_str(c)}; it must hold {COPIES[c]}")
    return codes


def deal_into(st: HandState, deck: list[int]) -> None:
    """Deal an empty state's hand from an explicit deck order (index 0 is the top card), R3."""
    n = st.players
    dealer = st.dealer
    stock = list(reversed(deck))
    st.stock = stock
    for _ in range(st.settings.hand_size):
        for k in range(1, n + 1):
            seat = (dealer + k) % n
            c = stock.pop()
            st.hands[seat].append(c)
            st.fc[seat][FACE[c]] += 1
    # R3.3: turn up the pile until its top is neither wild nor a red three.
    while True:
        c = stock.pop()
        st.push_pile(c)
        if not IS_WILD[c] and FACE[c] != F_RED3:
            break
    # R3.4: expose and replace dealt red threes in turn order.
    for k in range(1, n + 1):
        seat = (dealer + k) % n
        if st.fc[seat][F_RED3]:
            _replace_red_threes(st, seat)
    for hand in st.hands:
        hand.sort()


def _replace_red_threes(st: HandState, seat: int) -> None:
    hand = st.hands[seat]
    stock = st.stock
    exposed = [c for c in hand if FACE[c] == F_RED3]
    for c in exposed:
        hand.remove(c)
    st.fc[seat][F_RED3] = 0
    drawn: list[int] = []
    need = len(exposed)
    while need:
        c = stock.pop()
        if FACE[c] == F_RED3:
            exposed.append(c)
            continue
        hand.append(c)
        st.fc[seat][FACE[c]] += 1
        drawn.append(c)
        need -= 1
    st.red3[seat].extend(exposed)
    st.history.append(Event(seat, None, tuple(drawn), len(drawn), tuple(exposed), ()))
