"""The going-out solver (R10): can the player to act meld the whole hand now, and how.

It builds the action from the hand and the side's melds alone (no trial and error through
the checker), so checking "May I go out?" (R11) can ask it without a circle of imports.
"""

from __future__ import annotations

from typing import Final

from .actions import Discard, Group, Meld
from .cards import F_BLACK3, F_DEUCE, F_JOKER, F_RED3, FACE, MELD_FACES, NUM_FACES, VALUE
from .hand import HandState, TableMeld
from .rules import CANASTA_SIZE, Settings

#: one rank's place in a going-out plan: (rank, size after its naturals, wild capacity,
#: wilds it must take, size on the table before the action or -1 for a new meld)
_Entry = tuple[int, int, int, int, int]


def wilds_of(hand: list[int]) -> list[int]:
    """Wild cards of a hand, deuces first (cheaper to spend), then jokers."""
    deuces: list[int] = []
    jokers: list[int] = []
    for c in hand:
        f = FACE[c]
        if f == F_DEUCE:
            deuces.append(c)
        elif f == F_JOKER:
            jokers.append(c)
    return deuces + jokers


def can_go_out(state: HandState) -> Meld | Discard | None:
    """A complete going-out action for the player to act now (R10), or None.

    Exact: if any single action goes out, one is returned (melding everything is preferred to
    discarding; otherwise the cheapest card is discarded).
    """
    ask = state.turn_state.ask
    if state.phase != "play" or ask == "pending" or ask == "no":
        return None
    seat = state.turn
    hand = state.hands[seat]
    side = state.side_of[seat]
    s = state.settings
    need = s.canastas_to_go_out
    if len(hand) == 1:
        return Discard(hand[0]) if state.canastas[side] >= need else None
    fc = state.fc[seat]
    melds = state.melds[side]
    # Cards that cannot be melded at all must be the discard: at most one of them (most hands
    # stop here, so this first test stays inline).
    orphan = -1
    for r in MELD_FACES:
        if fc[r] == 1 and melds[r] is None:
            if orphan >= 0:
                return None
            orphan = r
    orphans: list[int] = []
    if orphan >= 0:
        for c in hand:
            if FACE[c] == orphan:
                orphans.append(c)
    orphans = _black_three_orphans(hand, fc, s, orphans)
    if len(orphans) > 1 or not _canastas_reachable(fc, melds, need - state.canastas[side]):
        return None
    options: list[int | None]
    if orphans:  # the one unmeldable card must be the discard
        options = [orphans[0]]
    else:
        options = [None, *sorted(set(hand), key=_DISCARD_ORDER.__getitem__)]
    # Whether a plan exists depends only on the face counts, so each face is tried once and
    # without building groups; meld_all builds the one plan that is returned.
    counts = fc[:]
    have, need_c = state.canastas[side], s.canastas_to_go_out
    tried = 0
    for d in options:
        if d is None:
            ok = _plan(s, melds, counts, have, need_c) is not None
        else:
            f = FACE[d]
            if (tried >> f) & 1:
                continue
            tried |= 1 << f
            counts[f] -= 1
            ok = len(hand) > 1 and _plan(s, melds, counts, have, need_c) is not None
            counts[f] += 1
        if ok:
            groups = meld_all(state, seat, d)
            assert groups is not None
            return Meld(groups, d)
    return None


#: the order in which discards are tried when going out: cheapest card first, then by code
_DISCARD_ORDER: Final[tuple[tuple[int, int], ...]] = tuple((VALUE[c], c) for c in range(len(VALUE)))


def _black_three_orphans(hand: list[int], fc: list[int], s: Settings, orphans: list[int]) -> list[int]:
    """Add the black threes that cannot form a going-out meld of their own (R10.4)."""
    b3 = fc[F_BLACK3]
    if b3 and (b3 not in (3, 4) or not s.black_three_meld_on_going_out):
        if b3 != 4 or not s.black_three_meld_on_going_out:
            orphans = orphans + [c for c in hand if FACE[c] == F_BLACK3]
            if b3 == 4:
                orphans = orphans[:-3]
    return orphans


def _canastas_reachable(fc: list[int], melds: list[TableMeld | None], missing: int) -> bool:
    """Can ``missing`` more melds reach a canasta with the naturals and wilds held?"""
    if missing <= 0:
        return True
    wilds = fc[F_DEUCE] + fc[F_JOKER]
    deficits = []
    for r in MELD_FACES:
        m = melds[r]
        size = fc[r] + (len(m.cards) if m is not None else 0)
        if size and (m is None or not m.is_canasta):
            deficits.append(max(0, CANASTA_SIZE - size))
    deficits.sort()
    return len(deficits) >= missing and sum(deficits[:missing]) <= wilds


def meld_all(state: HandState, seat: int, discard: int | None) -> tuple[Group, ...] | None:
    """Groups melding the whole hand except ``discard``, with enough canastas, or None."""
    s = state.settings
    hand = list(state.hands[seat])
    if discard is not None:
        hand.remove(discard)
    if not hand:
        return None
    side = state.side_of[seat]
    counts = [0] * NUM_FACES
    for c in hand:
        counts[FACE[c]] += 1
    planned = _plan(s, state.melds[side], counts, state.canastas[side], s.canastas_to_go_out)
    if planned is None:
        return None
    entries, alloc = planned
    b3 = counts[F_BLACK3]
    wilds = wilds_of(hand)
    by_face: list[list[int]] = [[] for _ in range(NUM_FACES)]
    for c in hand:
        by_face[FACE[c]].append(c)
    groups: list[Group] = []
    wi = 0
    for e in entries:
        r = e[0]
        nat = tuple(by_face[r])
        k = alloc[r]
        if not nat and not k:
            continue
        groups.append(Group(r, nat + tuple(wilds[wi : wi + k])))
        wi += k
    if b3:
        groups.append(Group(F_BLACK3, tuple(by_face[F_BLACK3])))
    return tuple(groups)


def _plan(
    s: Settings, melds: list[TableMeld | None], counts: list[int], have: int, need: int
) -> tuple[list[_Entry], dict[int, int]] | None:
    """The ranks and the wilds per rank of a plan melding cards of these face counts, or None."""
    b3 = counts[F_BLACK3]
    if counts[F_RED3] or (b3 and (b3 not in (3, 4) or not s.black_three_meld_on_going_out)):
        return None
    planned = _entries(s, melds, counts)
    if planned is None:
        return None
    entries, mandatory = planned
    alloc = _allocate_wilds(entries, counts[F_DEUCE] + counts[F_JOKER], mandatory, have, need)
    return None if alloc is None else (entries, alloc)


def _entries(s: Settings, melds: list[TableMeld | None], counts: list[int]) -> tuple[list[_Entry], int] | None:
    """Each rank the plan touches, and the wilds new pairs must take; None if a rank cannot meld."""
    entries: list[_Entry] = []
    mandatory = 0
    for r in MELD_FACES:
        n = counts[r]
        m = melds[r]
        if m is None:
            if n == 0:
                continue
            if n < 2:
                return None
            cap = s.wild_capacity(n)
            mand = 1 if n == 2 else 0
            if mand > cap:
                return None
            entries.append((r, n, cap, mand, -1))
            mandatory += mand
        else:
            cap = s.wild_capacity(m.naturals + n, m.wilds, len(m.cards))
            if n == 0 and cap == 0:
                continue
            entries.append((r, len(m.cards) + n, cap, 0, len(m.cards)))
    return entries, mandatory


def _allocate_wilds(
    entries: list[_Entry], w_total: int, mandatory: int, have: int, need: int
) -> dict[int, int] | None:
    """Wilds per rank: the mandatory ones, then the cheapest canastas, then anywhere they fit."""
    room = 0
    for e in entries:
        room += e[2]
    if w_total < mandatory or w_total > room:
        return None
    alloc = {e[0]: e[3] for e in entries}
    spare = w_total - mandatory
    open_targets = []
    for r, size, cap, mand, before in entries:
        if before >= CANASTA_SIZE:
            continue
        if size + mand >= CANASTA_SIZE:
            have += 1
        else:
            deficit = CANASTA_SIZE - size - mand
            if deficit <= cap - mand:
                open_targets.append((deficit, r))
    open_targets.sort()
    for deficit, r in open_targets:
        if have >= need or deficit > spare:
            break
        alloc[r] += deficit
        spare -= deficit
        have += 1
    if have < need:
        return None
    for e in entries:
        if not spare:
            break
        add = min(spare, e[2] - alloc[e[0]])
        alloc[e[0]] += add
        spare -= add
    return None if spare else alloc
