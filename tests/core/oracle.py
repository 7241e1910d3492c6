"""An independent, deliberately plain reading of RULES.md R4-R12 for one action: legal or not.

Written from the rule text (not from the engine) to cross-check ``State.check``.  It answers only
"legal?"; error codes are checked by the scenario tests.
"""

from __future__ import annotations

import random
from collections import Counter

from canasta.actions import Discard, Group, Meld, TakePile
from canasta.cards import F_BLACK3, F_DEUCE, F_JOKER, F_RED3, FACE, IS_WILD, MELD_FACES, VALUE
from canasta.rules import opening_minimum


def _frozen(st, side) -> bool:
    pile = st.pile
    if any(IS_WILD[c] for c in pile):
        return True
    if any(FACE[c] == F_RED3 for c in pile):
        return True
    if st.settings.black_three == "freeze" and any(FACE[c] == F_BLACK3 for c in pile):
        return True
    return not any(m is not None for m in st.melds[side])


def _takeable_top(st) -> bool:
    if not st.pile:
        return False
    top = st.pile[-1]
    return not (IS_WILD[top] or FACE[top] in (F_BLACK3, F_RED3))


def oracle_legal(st, action) -> bool:
    kind = action.kind
    if st.phase == "over":
        return False
    if st.phase == "ask":
        return kind == "answer"
    if kind == "answer":
        return False
    if st.phase == "draw":
        if kind == "draw":
            return bool(st.stock)
        if kind == "decline":
            return not st.stock and not _compulsory(st)
        if kind == "take":
            return _groups_legal(st, action.groups, take=True, discard=None)
        return False
    # play phase
    if kind == "discard":
        return _discard_legal(st, action.card)
    if kind == "meld":
        return _groups_legal(st, action.groups, take=False, discard=action.discard)
    return None  # ask and anything else: not judged here


def _compulsory(st) -> bool:
    seat = st.turn
    side = st.side_of[seat]
    if not _takeable_top(st) or _frozen(st, side):
        return False
    top = st.pile[-1]
    if st.melds[side][FACE[top]] is None:
        return False
    return _groups_legal(st, (Group(FACE[top], ()),), take=True, discard=None)


def _discard_legal(st, card) -> bool:
    hand = st.hands[st.turn]
    if card not in hand or st.ask == "yes":
        return False
    if len(hand) == 1:
        if st.ask == "no":
            return False
        return st.canastas[st.side_of[st.turn]] >= st.settings.canastas_to_go_out
    return True


def _groups_legal(st, groups, *, take: bool, discard) -> bool:
    s = st.settings
    seat = st.turn
    side = st.side_of[seat]
    hand = st.hands[seat]
    melds = st.melds[side]
    top = None
    if take:
        if not _takeable_top(st):
            return False
        top = st.pile[-1]
        if len(hand) == 1 and len(st.pile) == 1:
            return False
        if not any(g.rank == FACE[top] for g in groups):
            groups = (Group(FACE[top], ()),) + tuple(groups)
    if not groups:
        return False
    ranks = [g.rank for g in groups]
    if len(set(ranks)) != len(ranks):
        return False
    used = Counter(c for g in groups for c in g.cards)
    if discard is not None:
        used[discard] += 1
    if used - Counter(hand):
        return False
    value = 0
    new_canastas = 0
    black_threes = False
    for g in groups:
        is_top = top is not None and g.rank == FACE[top]
        if not g.cards and not is_top:
            return False
        nat = sum(1 for c in g.cards if FACE[c] == g.rank)
        wild = sum(1 for c in g.cards if FACE[c] in (F_DEUCE, F_JOKER))
        if nat + wild != len(g.cards):
            return False  # a card of another rank, a red three, a black three elsewhere
        value += sum(VALUE[c] for c in g.cards)
        hand_nat = nat
        if is_top:
            nat += 1
            value += VALUE[top]
        if g.rank == F_BLACK3:
            if not s.black_three_meld_on_going_out or wild or nat not in (3, 4):
                return False
            black_threes = True
            continue
        if g.rank not in MELD_FACES:
            return False
        m = melds[g.rank]
        if m is None:
            size = nat + wild
            if size < 3 or wild > 3:
                return False
            if s.wild_limit == "classic" and nat < 2:
                return False
            if s.wild_limit == "outnumber" and nat <= wild:
                return False
            if size >= 7:
                new_canastas += 1
        else:
            before = len(m.cards)
            if wild:
                if not s.wilds_on_canasta and before >= 7:
                    return False
                total_nat, total_wild = m.naturals + nat, m.wilds + wild
                if total_wild > 3:
                    return False
                if s.wild_limit == "classic" and total_nat < 2:
                    return False
                if s.wild_limit == "outnumber" and total_nat <= total_wild:
                    return False
            if before < 7 <= before + nat + wild:
                new_canastas += 1
        if is_top:
            if _frozen(st, side):
                if hand_nat < 2:
                    return False
            elif not (hand_nat >= 2 or (hand_nat >= 1 and wild >= 1) or m is not None):
                return False
    after = len(hand) - sum(len(g.cards) for g in groups)
    if take:
        after += sum(1 for c in st.pile[:-1] if FACE[c] != F_RED3)
    if discard is not None:
        if after != 1:
            return False
        after = 0
    goes_out = after == 0
    if not any(m is not None for m in melds):
        waived = not take and goes_out and st.drew == "stock" and not st.turn_melded
        if not waived and value < opening_minimum(st.scores[st.team_of[seat]]):
            return False
    have = st.canastas[side] + new_canastas
    need = s.canastas_to_go_out
    if goes_out and have < need:
        return False
    if not goes_out and after < 2 and have < need:
        return False
    if black_threes and not goes_out:
        return False
    if st.ask == "yes" and not goes_out:
        return False
    if st.ask == "no" and (goes_out or after < 2):
        return False
    return True


def near_legal_action(st, rng: random.Random):
    """A random action likely to be close to legal (or just over a limit)."""
    seat = st.turn
    hand = list(st.hands[seat])
    side = st.side_of[seat]
    wilds = [c for c in hand if IS_WILD[c]]
    by_rank: dict[int, list[int]] = {}
    for c in hand:
        if not IS_WILD[c]:
            by_rank.setdefault(FACE[c], []).append(c)
    ranks = sorted(set(by_rank) | {r for r in MELD_FACES if st.melds[side][r] is not None})
    if st.phase == "draw":
        if not st.pile:
            return None
        tr = FACE[st.pile[-1]]
        ranks = sorted(set(ranks) | {tr} if tr in MELD_FACES else set(ranks))
    if not ranks:
        return Discard(rng.choice(hand)) if hand else None
    chosen = rng.sample(ranks, k=min(len(ranks), rng.choice([1, 1, 2, 3])))
    if st.phase == "draw" and st.pile and FACE[st.pile[-1]] in MELD_FACES and FACE[st.pile[-1]] not in chosen:
        chosen.append(FACE[st.pile[-1]])
    rng.shuffle(wilds)
    groups = []
    for r in chosen:
        nats = by_rank.get(r, [])
        k = rng.randint(0, len(nats))
        w = rng.choice([0, 0, 1, 1, 2, 3, 4])
        cards = tuple(nats[:k]) + tuple(wilds[:w])
        wilds = wilds[w:]
        groups.append(Group(r, cards))
    if st.phase == "draw":
        return TakePile(tuple(groups))
    groups = [g for g in groups if g.cards]
    if not groups:
        return Discard(rng.choice(hand))
    left = Counter(hand)
    left.subtract(Counter(c for g in groups for c in g.cards))
    rest = list(left.elements())
    discard = rng.choice(rest) if rest and rng.random() < 0.3 else None
    return Meld(tuple(groups), discard)
