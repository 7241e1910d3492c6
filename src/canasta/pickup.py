"""The pile-pickup planner (R8, R6.3): each distinct way to take the pile now, and one to suggest.

For an opened side the ways are few (the top card onto the meld, a natural pair, a natural and
a wild); for an unopened side the planner builds takes that meet the opening minimum, holding
back cards when the largest plan would leave too few (R10.2).
"""

from __future__ import annotations

from bisect import insort
from typing import cast

from .actions import SUIT_WEIGHT, WILD_SLOT, Group, TakePile, one_group
from .cards import (
    F_DEUCE,
    F_JOKER,
    F_RED3,
    FACE,
    IS_WILD,
    JOKER,
    MELD_FACES,
    NUM_FACES,
    VALUE,
    value_of,
)
from .checks import check, pile_group_refusal
from .errors import IllegalAction
from .going_out import meld_all, wilds_of
from .hand import HandState
from .rules import TOP_BLOCKS, Settings


def _pile_takeable(state: HandState) -> bool:
    pile = state.pile
    if not pile or TOP_BLOCKS[pile[-1]] is not None:  # Settings.pile_blocked, inline
        return False
    return not (len(state.hands[state.turn]) == 1 and len(pile) == 1)


def _take_candidates(state: HandState) -> list[TakePile]:
    """Each distinct way to take the pile for an opened side (not checked)."""
    hand = state.hands[state.turn]
    side = state.side_of[state.turn]
    r = FACE[state.pile[-1]]
    frozen = state.is_frozen_for(side)
    # the naturals of the top's rank (R8) as one-group keys: the first one, two, and all
    n = 0
    first = -1
    two = 0
    every = 0
    for c in hand:
        if FACE[c] == r:
            weight = SUIT_WEIGHT[c & 3]
            if n == 0:
                first = c
            if n < 2:
                two += weight
            every += weight
            n += 1
    base = r * 81 * 6
    out: list[TakePile] = []
    if not frozen and state.melds[side][r] is not None:
        out.append(_take_at(base))
        if n == 1:
            out.append(_take_at(base + every * 6))
    if n >= 2:
        out.append(_take_at(base + two * 6))
        if n > 2:
            out.append(_take_at(base + every * 6))
    if not frozen and n:
        one = base + SUIT_WEIGHT[first & 3] * 6
        deuce = state.fc[state.turn][F_DEUCE]
        if deuce:
            for c in hand:  # the lowest deuce: the hand is sorted by code
                if FACE[c] == F_DEUCE:
                    out.append(_take_at(one + WILD_SLOT[c]))
                    break
        if state.fc[state.turn][F_JOKER]:
            out.append(_take_at(one + WILD_SLOT[JOKER]))
    return out


def _take_at(key: int) -> TakePile:
    return cast(TakePile, one_group(key, True))


def opening_groups(
    hand: list[int], fc: list[int], settings: Settings, forced: int, forced_extra: int
) -> list[list[int]]:
    """The highest-value set of new melds from a hand (for an unopened side).

    ``forced`` is a rank that must be melded (the pile's top rank, -1 for none) with
    ``forced_extra`` naturals not from the hand (the top card).  Returns a list of card lists,
    one per group, the forced group first; wilds are placed jokers first.
    """
    # The hand is sorted by code, and with no red three in it (R9 exposes them) the faces come
    # in code order too: each face's cards are one slice, from the counts of the faces below.
    if fc[F_RED3]:
        hand = [c for c in hand if FACE[c] != F_RED3]
    start = [0] * NUM_FACES
    at = 0
    for f in range(F_JOKER + 1):
        start[f] = at
        at += fc[f]
    groups: list[list[int]] = []
    pairs: list[list[int]] = []
    for r in MELD_FACES:
        n = fc[r]
        if r == forced:
            groups.insert(0, hand[start[r] : start[r] + n])
        elif n >= 3:
            groups.append(hand[start[r] : start[r] + n])
        elif n == 2:
            pairs.append(hand[start[r] : start[r] + n])
    wilds = hand[start[F_JOKER] : start[F_JOKER] + fc[F_JOKER]] + hand[start[F_DEUCE] : start[F_DEUCE] + fc[F_DEUCE]]
    pairs.sort(key=lambda p: -VALUE[p[0]])
    for p in pairs:
        if not wilds:
            break
        p.append(wilds.pop(0))
        groups.append(p)
    for g in groups:
        if not wilds:
            break
        extra = forced_extra if forced >= 0 and g is groups[0] else 0
        nat = extra
        for c in g:
            if not IS_WILD[c]:
                nat += 1
        w = len(g) - (nat - extra)
        cap = settings.wild_capacity(nat, w)
        while cap > 0 and wilds:
            g.append(wilds.pop(0))
            cap -= 1
    return groups


def rank_of(cards: list[int]) -> int:
    for c in cards:
        if not IS_WILD[c]:
            return FACE[c]
    raise AssertionError("a group without naturals")


def _opening_take(state: HandState) -> list[TakePile]:
    """Takes for an unopened side: a small plan meeting the minimum, and the largest plan."""
    seat = state.turn
    hand = state.hands[seat]
    fc = state.fc[seat]
    top = state.pile[-1]
    r = FACE[top]
    if fc[r] < 2:
        return []
    full = opening_groups(hand, fc, state.settings, r, 1)
    minimum = state.opening_minimum(seat)
    # Small plan: the natural pair with the top, then whole groups by value until the minimum.
    value = VALUE[top] + value_of(full[0])
    plans: list[list[list[int]]] = [full]
    small = [list(full[0])]
    if value < minimum:
        # highest value first, ties in the order of ``full`` (a stable sort on the value)
        rest = sorted([(-value_of(g), i) for i, g in enumerate(full) if i])
        for v, i in rest:
            small.append(full[i])
            value -= v
            if value >= minimum:
                break
    plans.insert(0, small)
    out: list[TakePile] = []
    for plan in plans:
        groups = tuple(Group(r if i == 0 else rank_of(g), tuple(g)) for i, g in enumerate(plan))
        action = TakePile(groups)
        if action not in out and check(state, action) is None:
            out.append(action)
    if not out:
        out.extend(_trimmed_takes(state, full))
    return out


def _trimmed_takes(state: HandState, full: list[list[int]]) -> list[TakePile]:
    """When the largest plan leaves too few cards (R10.2), hold back the cheapest cards."""
    r = FACE[state.pile[-1]]
    s = state.settings
    plan = [list(g) for g in full]
    while True:
        action = TakePile(tuple(Group(r if i == 0 else rank_of(g), tuple(g)) for i, g in enumerate(plan)))
        if check(state, action) is None:
            return [action]
        best: tuple[int, int, int] | None = None  # (value, group, card) of the cheapest removable card
        for i, g in enumerate(plan):
            extra = 1 if i == 0 else 0
            if len(g) + extra <= 3:
                continue
            nat = [c for c in g if not IS_WILD[c]]
            wild = [c for c in g if IS_WILD[c]]
            options = []
            if wild:
                options.append(min(wild, key=lambda c: VALUE[c]))
            if len(nat) > 2 and s.wild_limit_error(len(nat) - 1 + extra, len(wild)) is None:
                options.append(min(nat, key=lambda c: VALUE[c]))
            for c in options:
                if best is None or VALUE[c] < best[0]:
                    best = (VALUE[c], i, c)
        if best is not None:
            plan[best[1]].remove(best[2])
        elif len(plan) > 1:
            plan.pop(min(range(1, len(plan)), key=lambda i: sum(VALUE[c] for c in plan[i])))
        else:
            return []


def plan_pile_pickup(state: HandState) -> TakePile | None:
    """A legal way for the player to act to take the pile now, or None (R8, R6.3).

    For an unopened side the plan meets the opening minimum with as few extra groups as it can;
    None means no legal pickup exists.
    """
    if state.phase != "draw" or not _pile_takeable(state):
        return None
    takes = take_options(state)
    return takes[0] if takes else None


def take_refusal(state: HandState) -> IllegalAction | None:
    """Why the player to act cannot take the pile now (R8, R6.3, R10.2), or None if they can.

    The answer is the checker's own refusal of the most promising take, so it carries the
    checker's code and numbers: the top card when it blocks the pile, the naturals of its rank
    from the hand against the two a frozen pile needs, or, for an unopened side, the count of
    the largest take the hand allows against the opening minimum.
    """
    if state.phase != "draw" or not _pile_takeable(state):
        # the checker names what stops any take: the phase, the top card, one card on one
        return check(state, TakePile(()))
    if take_options(state):
        return None
    seat = state.turn
    hand = state.hands[seat]
    side = state.side_of[seat]
    r = FACE[state.pile[-1]]
    nat = tuple(c for c in hand if FACE[c] == r)
    wilds = wilds_of(hand)
    # R8 first: a take the hand cannot back with the top card's rank fails for that reason,
    # whatever else it would break
    unbacked = pile_group_refusal(state, len(nat), min(len(wilds), 1))
    if unbacked is not None:
        return unbacked
    if not state.nmelds[side] and len(nat) >= 2:
        plan = opening_groups(hand, list(state.fc[seat]), state.settings, r, 1)
        groups = tuple(Group(r if i == 0 else rank_of(g), tuple(g)) for i, g in enumerate(plan))
        attempt = TakePile(groups)
    elif len(nat) == 1 and not state.is_frozen_for(side) and wilds:
        attempt = TakePile((Group(r, (nat[0], wilds[0])),))
    else:
        attempt = TakePile((Group(r, nat),))
    return check(state, attempt)


def take_options(state: HandState) -> list[TakePile]:
    if not _pile_takeable(state):
        return []
    side = state.side_of[state.turn]
    if not state.nmelds[side]:
        return _opening_take(state)
    candidates = _take_candidates(state)
    # A candidate is built to meet R8 (the top's rank, cards from the hand, the frozen rule);
    # the checker is needed only where more could fail: a wild joining a meld on the table
    # (R5.2 limits) or a take leaving fewer than two cards (R10.2), or outside the draw phase.
    pile_left = len(state.pile) - 1 - state.pile_red3
    h = len(state.hands[state.turn])
    fast = state.phase == "draw" and state.turn_state.ask is None
    melds = state.melds[side]
    legal = []
    for a in candidates:
        g = a.groups[0]
        if fast and h - len(g.cards) + pile_left >= 2 and (melds[g.rank] is None or not _has_wild(g.cards)):
            legal.append(a)
        elif check(state, a) is None:
            legal.append(a)
    if candidates and not legal:
        # Every simple way leaves too few cards (R10.2): taking is still legal if the take can
        # meld the whole hand with enough canastas, going out.
        out = _take_going_out(state)
        if out is not None:
            legal.append(out)
    return legal


def _has_wild(cards: tuple[int, ...]) -> bool:
    for c in cards:
        if IS_WILD[c]:
            return True
    return False


def _take_going_out(state: HandState) -> TakePile | None:
    """A take that melds the top card and the whole hand (possible only with a one-card pile)."""
    if len(state.pile) != 1:
        return None
    top = state.pile[-1]
    probe = state.copy(history=False)
    seat = probe.turn
    insort(probe.hands[seat], top)
    probe.fc[seat][FACE[top]] += 1
    groups = meld_all(probe, seat, None)
    if groups is None:
        return None
    r = FACE[top]
    fixed = []
    for g in groups:
        if g.rank == r:
            cards = list(g.cards)
            cards.remove(top)
            g = Group(r, tuple(cards))
        fixed.append(g)
    action = TakePile(tuple(fixed))
    return action if check(state, action) is None else None
