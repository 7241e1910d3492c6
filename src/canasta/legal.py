"""Legal actions for the player to act, the going-out solver and the pile-pickup planner.

``legal_actions`` lists a useful, bounded set: every draw/decline/answer/ask option, each
distinct way to take the pile, every discard, single-group melds and wild additions, opening
combinations that meet the minimum, and a going-out action when one exists.  Any other legal
action (say, melding three of four kings) can still be applied; this set never explodes.
"""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING

from .actions import ASK, DECLINE, DISCARDS, DRAW, NO, YES, Action, Discard, Group, Meld, TakePile
from .cards import F_BLACK3, F_DEUCE, F_JOKER, F_RED3, FACE, IS_WILD, MELD_FACES, VALUE
from .rules import CANASTA_SIZE

if TYPE_CHECKING:
    from .rules import Settings
    from .state import State


def _wilds_of(hand: list[int]) -> list[int]:
    """Wild cards of a hand, deuces first (cheaper to spend), then jokers."""
    deuces = [c for c in hand if FACE[c] == F_DEUCE]
    jokers = [c for c in hand if FACE[c] == F_JOKER]
    return deuces + jokers


# ---------------------------------------------------------------------------- going out


def can_go_out(state: State) -> Meld | Discard | None:
    """A complete going-out action for the player to act now (R10), or None.

    Exact: if any single action goes out, one is returned (melding everything is preferred to
    discarding; otherwise the cheapest card is discarded).
    """
    if state.phase != "play" or state.ask in ("pending", "no"):
        return None
    seat = state.turn
    hand = state.hands[seat]
    side = state.side_of[seat]
    need = state.settings.canastas_to_go_out
    if len(hand) == 1:
        return Discard(hand[0]) if state.canastas[side] >= need else None
    fc = state.fc[seat]
    melds = state.melds[side]
    s = state.settings
    # Cards that cannot be melded at all must be the discard: at most one of them.
    orphans: list[int] = []
    for r in MELD_FACES:
        if fc[r] == 1 and melds[r] is None:
            orphans.extend(c for c in hand if FACE[c] == r)
            if len(orphans) > 1:
                return None
    b3 = fc[F_BLACK3]
    if b3 and (b3 not in (3, 4) or not s.black_three_meld_on_going_out):
        if b3 != 4 or not s.black_three_meld_on_going_out:
            orphans.extend(c for c in hand if FACE[c] == F_BLACK3)
            if b3 == 4:
                orphans = orphans[:-3]
    if len(orphans) > 1:
        return None
    have = state.canastas[side]
    if have < need:
        # Enough melds must be able to reach seven cards with the wilds held.
        wilds = fc[F_DEUCE] + fc[F_JOKER]
        deficits = []
        for r in MELD_FACES:
            m = melds[r]
            size = fc[r] + (len(m.cards) if m is not None else 0)
            if size and (m is None or not m.is_canasta):
                deficits.append(max(0, CANASTA_SIZE - size))
        deficits.sort()
        missing = need - have
        if len(deficits) < missing or sum(deficits[:missing]) > wilds:
            return None
    options: list[int | None]
    if orphans:  # the one unmeldable card must be the discard
        options = [orphans[0]]
    else:
        codes: list[int] = sorted(set(hand), key=lambda c: (VALUE[c], c))
        options = [None, *codes]
    for d in options:
        groups = _meld_all(state, seat, d)
        if groups is not None:
            return Meld(groups, d)
    return None


def _meld_all(state: State, seat: int, discard: int | None) -> tuple[Group, ...] | None:
    """Groups melding the whole hand except ``discard``, with enough canastas, or None."""
    s = state.settings
    hand = list(state.hands[seat])
    if discard is not None:
        hand.remove(discard)
    if not hand:
        return None
    side = state.side_of[seat]
    melds = state.melds[side]
    counts = [0] * 15
    for c in hand:
        counts[FACE[c]] += 1
    if counts[F_RED3]:
        return None
    b3 = counts[F_BLACK3]
    if b3 and (b3 not in (3, 4) or not s.black_three_meld_on_going_out):
        return None
    wilds = _wilds_of(hand)
    w_total = len(wilds)
    # entries: [rank, size_after_naturals, cap, mandatory, size_before (-1 new)]
    entries: list[list[int]] = []
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
            entries.append([r, n, cap, mand, -1])
            mandatory += mand
        else:
            cap = s.wild_capacity(m.naturals + n, m.wilds, size=len(m.cards))
            if n == 0 and cap == 0:
                continue
            entries.append([r, len(m.cards) + n, cap, 0, len(m.cards)])
    if w_total < mandatory or w_total > sum(e[2] for e in entries):
        return None
    alloc = {e[0]: e[3] for e in entries}
    spare = w_total - mandatory
    have = state.canastas[side]
    open_targets = []
    for e in entries:
        r, size, cap, mand, before = e
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
        if have >= s.canastas_to_go_out or deficit > spare:
            break
        alloc[r] += deficit
        spare -= deficit
        have += 1
    if have < s.canastas_to_go_out:
        return None
    for e in entries:
        if not spare:
            break
        add = min(spare, e[2] - alloc[e[0]])
        alloc[e[0]] += add
        spare -= add
    if spare:
        return None
    groups: list[Group] = []
    wi = 0
    for e in entries:
        r = e[0]
        nat = tuple(c for c in hand if FACE[c] == r)
        k = alloc[r]
        if not nat and not k:
            continue
        groups.append(Group(r, nat + tuple(wilds[wi : wi + k])))
        wi += k
    if b3:
        groups.append(Group(F_BLACK3, tuple(c for c in hand if FACE[c] == F_BLACK3)))
    return tuple(groups)


# ---------------------------------------------------------------------------- the pile


def _pile_takeable(state: State) -> bool:
    pile = state.pile
    if state.settings.pile_blocked(pile[-1] if pile else None) is not None:
        return False
    return not (len(state.hands[state.turn]) == 1 and len(pile) == 1)


def _take_candidates(state: State) -> list[TakePile]:
    """Each distinct way to take the pile for an opened side (not checked)."""
    seat = state.turn
    hand = state.hands[seat]
    side = state.side_of[seat]
    top = state.pile[-1]
    r = FACE[top]
    frozen = state.is_frozen_for(side)
    nat = [c for c in hand if FACE[c] == r]
    out: list[TakePile] = []
    if not frozen and state.melds[side][r] is not None:
        out.append(TakePile((Group(r, ()),)))
        if nat and len(nat) < 2:
            out.append(TakePile((Group(r, tuple(nat)),)))
    if len(nat) >= 2:
        out.append(TakePile((Group(r, tuple(nat[:2])),)))
        if len(nat) > 2:
            out.append(TakePile((Group(r, tuple(nat)),)))
    if not frozen and nat:
        seen: set[int] = set()
        for w in _wilds_of(hand):
            if FACE[w] not in seen:
                seen.add(FACE[w])
                out.append(TakePile((Group(r, (nat[0], w)),)))
    return out


def _opening_groups(
    hand: list[int], fc: list[int], settings: Settings, forced: int, forced_extra: int
) -> list[list[int]]:
    """The highest-value set of new melds from a hand (for an unopened side).

    ``forced`` is a rank that must be melded (the pile's top rank, -1 for none) with
    ``forced_extra`` naturals not from the hand (the top card).  Returns a list of card lists,
    one per group, the forced group first; wilds are placed jokers first.
    """
    groups: list[list[int]] = []
    pairs: list[list[int]] = []
    for r in MELD_FACES:
        n = fc[r]
        if r == forced:
            groups.insert(0, [c for c in hand if FACE[c] == r])
        elif n >= 3:
            groups.append([c for c in hand if FACE[c] == r])
        elif n == 2:
            pairs.append([c for c in hand if FACE[c] == r])
    jokers = [c for c in hand if FACE[c] == F_JOKER]
    deuces = [c for c in hand if FACE[c] == F_DEUCE]
    wilds = jokers + deuces
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
        nat = sum(1 for c in g if not IS_WILD[c]) + extra
        w = len(g) - (nat - extra)
        cap = settings.wild_capacity(nat, w)
        while cap > 0 and wilds:
            g.append(wilds.pop(0))
            cap -= 1
    return groups


def _rank_of(cards: list[int]) -> int:
    for c in cards:
        if not IS_WILD[c]:
            return FACE[c]
    raise AssertionError("a group without naturals")


def _opening_take(state: State) -> list[TakePile]:
    """Takes for an unopened side: a small plan meeting the minimum, and the largest plan."""
    seat = state.turn
    hand = state.hands[seat]
    fc = state.fc[seat]
    top = state.pile[-1]
    r = FACE[top]
    if fc[r] < 2:
        return []
    full = _opening_groups(hand, fc, state.settings, r, 1)
    minimum = state.opening_minimum(seat)
    # Small plan: the natural pair with the top, then whole groups by value until the minimum.
    value = VALUE[top] + sum(VALUE[c] for c in full[0])
    plans: list[list[list[int]]] = [full]
    small = [list(full[0])]
    if value < minimum:
        rest = sorted(full[1:], key=lambda g: -sum(VALUE[c] for c in g))
        for g in rest:
            small.append(g)
            value += sum(VALUE[c] for c in g)
            if value >= minimum:
                break
    plans.insert(0, small)
    out: list[TakePile] = []
    for plan in plans:
        groups = tuple(Group(r if i == 0 else _rank_of(g), tuple(g)) for i, g in enumerate(plan))
        action = TakePile(groups)
        if action not in out and state.check(action) is None:
            out.append(action)
    if not out:
        out.extend(_trimmed_takes(state, full))
    return out


def _trimmed_takes(state: State, full: list[list[int]]) -> list[TakePile]:
    """When the largest plan leaves too few cards (R10.2), hold back the cheapest cards."""
    r = FACE[state.pile[-1]]
    s = state.settings
    plan = [list(g) for g in full]
    while True:
        action = TakePile(tuple(Group(r if i == 0 else _rank_of(g), tuple(g)) for i, g in enumerate(plan)))
        if state.check(action) is None:
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


def plan_pile_pickup(state: State) -> TakePile | None:
    """A legal way for the player to act to take the pile now, or None (R8, R6.3).

    For an unopened side the plan meets the opening minimum with as few extra groups as it can;
    None means no legal pickup exists.
    """
    if state.phase != "draw" or not _pile_takeable(state):
        return None
    takes = _take_options(state)
    return takes[0] if takes else None


def _take_options(state: State) -> list[TakePile]:
    if not _pile_takeable(state):
        return []
    side = state.side_of[state.turn]
    if not state.nmelds[side]:
        return _opening_take(state)
    candidates = _take_candidates(state)
    legal = [a for a in candidates if state.check(a) is None]
    if candidates and not legal:
        # Every simple way leaves too few cards (R10.2): taking is still legal if the take can
        # meld the whole hand with enough canastas, going out.
        out = _take_going_out(state)
        if out is not None:
            legal.append(out)
    return legal


def _take_going_out(state: State) -> TakePile | None:
    """A take that melds the top card and the whole hand (possible only with a one-card pile)."""
    if len(state.pile) != 1:
        return None
    top = state.pile[-1]
    probe = state.copy(history=False)
    seat = probe.turn
    insort(probe.hands[seat], top)
    probe.fc[seat][FACE[top]] += 1
    groups = _meld_all(probe, seat, None)
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
    return action if state.check(action) is None else None


# ---------------------------------------------------------------------------- legal actions


def legal_actions(state: State) -> list[Action]:
    """A useful, bounded list of legal actions for the player to act."""
    phase = state.phase
    if phase == "over":
        return []
    if phase == "ask":
        return [YES, NO]
    if phase == "draw":
        takes = _take_options(state)
        if state.stock:
            return [DRAW, *takes]
        if state.take_is_compulsory():
            return list(takes)
        return [*takes, DECLINE] if takes else []
    return _play_actions(state)


def _play_actions(state: State) -> list[Action]:
    s = state.settings
    seat = state.turn
    hand = state.hands[seat]
    h = len(hand)
    side = state.side_of[seat]
    need = s.canastas_to_go_out
    have = state.canastas[side]
    ask = state.ask
    out: list[Action] = []
    go = can_go_out(state)
    if ask == "yes":
        return [go] if go is not None else []
    if h > 1:
        out.extend([DISCARDS[c] for c in sorted(set(hand))])
    elif have >= need and ask != "no":
        out.append(DISCARDS[hand[0]])
    if s.ask_partner and ask is None and not state.turn_melded and go is not None:
        out.append(ASK)
    if state.nmelds[side]:
        _single_groups(state, out)
    else:
        _opening_melds(state, out)
    if go is not None and ask != "no" and go not in out:
        out.append(go)
    return out


def _single_groups(state: State, out: list[Action]) -> None:
    s = state.settings
    seat = state.turn
    hand = state.hands[seat]
    h = len(hand)
    side = state.side_of[seat]
    melds = state.melds[side]
    need = s.canastas_to_go_out
    have = state.canastas[side]
    keep_two = state.ask == "no"
    by_face: list[list[int]] = [[] for _ in range(15)]
    for c in hand:
        by_face[FACE[c]].append(c)
    wild_codes = [by_face[F_DEUCE][0]] if by_face[F_DEUCE] else []
    if by_face[F_JOKER]:
        wild_codes.append(by_face[F_JOKER][0])

    for r in MELD_FACES:
        m = melds[r]
        cards = by_face[r]
        n = len(cards)
        if n:
            nat = tuple(cards)
            if m is not None:
                before = len(m.cards)
                after = h - n
                if after >= 2 or (not keep_two and have + (before < CANASTA_SIZE <= before + n) >= need):
                    out.append(Meld((Group(r, nat),)))
            else:
                if n >= 3:
                    after = h - n
                    if after >= 2 or (not keep_two and have + (n >= CANASTA_SIZE) >= need):
                        out.append(Meld((Group(r, nat),)))
                if n >= 2 and wild_codes:
                    after = h - n - 1
                    if after >= 2 or (not keep_two and have + (n + 1 >= CANASTA_SIZE) >= need):
                        for w in wild_codes:
                            out.append(Meld((Group(r, nat + (w,)),)))
        if m is not None and wild_codes:
            before = len(m.cards)
            if s.wild_capacity(m.naturals, m.wilds, size=before) >= 1:
                after = h - 1
                if after >= 2 or (not keep_two and have + (before + 1 == CANASTA_SIZE) >= need):
                    for w in wild_codes:
                        out.append(Meld((Group(r, (w,)),)))


def _opening_melds(state: State, out: list[Action]) -> None:
    """Opening meld actions meeting the minimum: single groups, a greedy combination, the largest."""
    seat = state.turn
    hand = state.hands[seat]
    fc = state.fc[seat]
    minimum = state.opening_minimum(seat)
    full = _opening_groups(hand, fc, state.settings, -1, 0)
    if not full:
        return
    total = sum(VALUE[c] for g in full for c in g)
    if total < minimum:
        return
    candidates: list[list[list[int]]] = []
    ranked = sorted(full, key=lambda g: -sum(VALUE[c] for c in g))
    for g in ranked:
        if sum(VALUE[c] for c in g) >= minimum:
            candidates.append([g])
    acc: list[list[int]] = []
    value = 0
    for g in ranked:
        acc.append(g)
        value += sum(VALUE[c] for c in g)
        if value >= minimum:
            break
    candidates.append(acc)
    candidates.append(full)
    for plan in candidates:
        action = Meld(tuple(Group(_rank_of(g), tuple(g)) for g in plan))
        if action not in out and state.check(action) is None:
            out.append(action)
