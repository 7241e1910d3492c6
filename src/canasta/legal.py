"""Legal actions for the player to act: a lazy :class:`LegalActions` and the list behind it.

``legal_actions`` lists a useful, bounded set: every draw/decline/answer/ask option, each
distinct way to take the pile, every discard, single-group melds and wild additions, opening
combinations that meet the minimum, and a going-out action when one exists.  Any other legal
action (say, melding three of four kings) can still be applied; this set never explodes.
The solvers it uses live in :mod:`canasta.going_out` and :mod:`canasta.pickup`.
"""

from __future__ import annotations

from collections.abc import Iterator

from .actions import (
    ASK,
    DECLINE,
    DISCARDS,
    DRAW,
    NO,
    SUIT_WEIGHT,
    WILD_SLOT,
    YES,
    Action,
    Discard,
    Group,
    Meld,
    one_group,
)
from .cards import F_DEUCE, F_JOKER, FACE, JOKER, MELD_FACES, NUM_FACES, value_of
from .checks import check, take_is_compulsory
from .going_out import can_go_out
from .hand import HandState
from .pickup import opening_groups, rank_of, take_options
from .rules import CANASTA_SIZE


class LegalActions:
    """The legal actions of a state, computed only when asked (like python-chess's ``legal_moves``).

    ``len()`` counts and iteration yields the useful bounded set of :func:`legal_actions`;
    ``action in legal`` asks the rules (any legal action, listed or not).  It is a live view:
    after the state changes, the next question is answered for the new state.

    >>> from canasta import Game, Settings
    >>> legal = Game(Settings.preset("classic"), seed=1).state.legal
    >>> len(legal), DRAW in legal, DECLINE in legal, next(iter(legal))
    (1, True, False, Draw(kind='draw'))
    """

    __slots__ = ("_state",)

    def __init__(self, state: HandState) -> None:
        self._state = state

    def __iter__(self) -> Iterator[Action]:
        return iter(legal_actions(self._state))

    def __len__(self) -> int:
        return len(legal_actions(self._state))

    def __bool__(self) -> bool:
        return bool(legal_actions(self._state))

    def __contains__(self, action: object) -> bool:
        return isinstance(action, Action) and check(self._state, action) is None

    def __repr__(self) -> str:
        return f"<LegalActions ({', '.join(map(repr, legal_actions(self._state)))})>"


def legal_actions(state: HandState) -> list[Action]:
    """A useful, bounded list of legal actions for the player to act."""
    phase = state.phase
    if phase == "over":
        return []
    if phase == "ask":
        return [YES, NO]
    if phase == "draw":
        takes = take_options(state)
        if state.stock:
            return [DRAW, *takes]
        if take_is_compulsory(state):
            return list(takes)
        return [*takes, DECLINE] if takes else []
    return _play_actions(state, can_go_out(state))


def legal_actions_and_going_out(state: HandState) -> tuple[list[Action], Meld | Discard | None]:
    """:func:`legal_actions` and :func:`canasta.going_out.can_go_out` at once (solved once)."""
    if state.phase != "play":
        return legal_actions(state), None
    go = can_go_out(state)
    return _play_actions(state, go), go


def _play_actions(state: HandState, go: Meld | Discard | None) -> list[Action]:
    s = state.settings
    seat = state.turn
    hand = state.hands[seat]
    h = len(hand)
    side = state.side_of[seat]
    need = s.canastas_to_go_out
    have = state.canastas[side]
    ask = state.turn_state.ask
    out: list[Action] = []
    if ask == "yes":
        return [go] if go is not None else []
    if h > 1:
        prev = -1
        for c in hand:  # the hand is kept sorted: each distinct card once
            if c != prev:
                out.append(DISCARDS[c])
                prev = c
    elif have >= need and ask != "no":
        out.append(DISCARDS[hand[0]])
    if s.ask_partner and ask is None and not state.turn_state.melded and go is not None:
        out.append(ASK)
    if state.nmelds[side]:
        _single_groups(state, out)
    else:
        _opening_melds(state, out)
    if go is not None and ask != "no" and go not in out:
        out.append(go)
    return out


def _single_groups(state: HandState, out: list[Action]) -> None:
    s = state.settings
    seat = state.turn
    hand = state.hands[seat]
    h = len(hand)
    side = state.side_of[seat]
    melds = state.melds[side]
    need = s.canastas_to_go_out
    have = state.canastas[side]
    keep_two = state.turn_state.ask == "no"
    fc = state.fc[seat]
    # One pass over the hand: each rank's naturals as a key (their suits' counts in base 3;
    # the hand is sorted, so a rank's cards are listed in code order), and the lowest deuce.
    keys = [0] * NUM_FACES
    first_deuce = -1
    for c in hand:
        f = FACE[c]
        if f == F_DEUCE:
            if first_deuce < 0:
                first_deuce = c
        else:
            keys[f] += SUIT_WEIGHT[c & 3]
    wild_codes: list[int] = []
    if first_deuce >= 0:
        wild_codes.append(first_deuce)
    if fc[F_JOKER]:
        wild_codes.append(JOKER)
    # R10.2: a meld leaving fewer than two cards is legal only with the canastas to go out,
    # counting a canasta it completes itself (and never after a "no", R11)
    completing_ok = not keep_two and have + 1 >= need
    as_is_ok = not keep_two and have >= need
    for r in MELD_FACES:
        m = melds[r]
        n = fc[r]
        base = (r * 81 + keys[r]) * 6
        if n:
            after = h - n
            if m is not None:
                before = len(m.cards)
                if after >= 2 or (completing_ok if before < CANASTA_SIZE <= before + n else as_is_ok):
                    out.append(one_group(base, False))
            else:
                if n >= 3 and (after >= 2 or (completing_ok if n >= CANASTA_SIZE else as_is_ok)):
                    out.append(one_group(base, False))
                if n >= 2 and wild_codes and (after >= 3 or (completing_ok if n + 1 >= CANASTA_SIZE else as_is_ok)):
                    for w in wild_codes:
                        out.append(one_group(base + WILD_SLOT[w], False))
        if m is not None and wild_codes:
            before = len(m.cards)
            if s.wild_capacity(m.naturals, m.wilds, before) >= 1:
                if h >= 3 or (completing_ok if before + 1 == CANASTA_SIZE else as_is_ok):
                    base = r * 81 * 6
                    for w in wild_codes:
                        out.append(one_group(base + WILD_SLOT[w], False))


def _opening_melds(state: HandState, out: list[Action]) -> None:
    """Opening meld actions meeting the minimum: single groups, a greedy combination, the largest."""
    seat = state.turn
    hand = state.hands[seat]
    fc = state.fc[seat]
    minimum = state.opening_minimum(seat)
    full = opening_groups(hand, fc, state.settings, -1, 0)
    if not full:
        return
    values = [value_of(g) for g in full]
    total = 0
    for v in values:
        total += v
    if total < minimum:
        return
    candidates: list[list[list[int]]] = []
    # highest value first, ties in the order of ``full`` (a stable sort on the value)
    ranked = sorted([(-v, i) for i, v in enumerate(values)])
    for v, i in ranked:
        if -v >= minimum:
            candidates.append([full[i]])
    acc: list[list[int]] = []
    value = 0
    for v, i in ranked:
        acc.append(full[i])
        value -= v
        if value >= minimum:
            break
    candidates.append(acc)
    candidates.append(full)
    for plan in candidates:
        action = Meld(tuple(Group(rank_of(g), tuple(g)) for g in plan))
        if action not in out and check(state, action) is None:
            out.append(action)
