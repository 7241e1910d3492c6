"""The environment's fixed, factored action space and its legal-action mask.

One ``Discrete(ACTION_COUNT)`` space for every preset.  A meld or a pile pickup with several
groups is *staged* group by group (like a plan in the table's interface, R15) and then
committed; drawing, discarding, asking and answering are single actions.  The mask is asked of
the core (``State.check``), so the environment holds no rules of its own:

====================  =========================================================================
index                 meaning
====================  =========================================================================
0  ``DRAW``           draw from the stock (R4.1)
1  ``TAKE``           commit the staged plan as taking the pile (R8); the pile's top card joins
                      the group of its rank (an empty plan adds it to the side's meld)
2  ``MELD``           commit the staged plan as one meld action (R4)
3  ``CLEAR``          drop the staged plan
4  ``ASK``            "May I go out?" (R11)
5  ``YES`` 6 ``NO``   answer the partner
7  ``DECLINE``        decline the pile with an empty stock (R12.2)
8..60 ``DISCARD``     discard card code ``i - 8``; with a staged plan: go out with the plan
                      and that last card as one action (R10.5)
61.. ``GROUP``        stage a group: rank × naturals (0..8) × wilds (deuces, jokers) with at
                      most 3 wilds; index ``61 + (rank_index * 9 + naturals) * 10 + wild_index``
====================  =========================================================================

Suits never matter to the rules inside a group, so a group names counts; the cards are the
first ones of each kind in the seat's sorted hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .. import SeatView, State
from ..actions import ASK, DECLINE, DRAW, NO, YES, Action, Discard, Group, Meld, TakePile
from ..cards import (
    F_BLACK3,
    F_DEUCE,
    F_JOKER,
    FACE,
    FACE_TOKEN,
    MELD_FACES,
    NUM_CODES,
    card_str,
    sort_key,
)

DRAW_I, TAKE_I, MELD_I, CLEAR_I, ASK_I, YES_I, NO_I, DECLINE_I = range(8)
DISCARD_BASE = 8
GROUP_BASE = DISCARD_BASE + NUM_CODES
#: meld ranks in index order: A, 3 (black threes, going out only), 4 .. K
GROUP_RANKS: tuple[int, ...] = (MELD_FACES[0], F_BLACK3, *MELD_FACES[1:])
MAX_NATURALS = 8
#: (deuces, jokers) of a group, at most three wilds (R5.2)
WILD_COMBOS: tuple[tuple[int, int], ...] = tuple(
    (d, j) for total in range(4) for d in range(total, -1, -1) for j in (total - d,)
)
GROUP_COUNT = len(GROUP_RANKS) * (MAX_NATURALS + 1) * len(WILD_COMBOS)
ACTION_COUNT = GROUP_BASE + GROUP_COUNT

#: check failures that further groups of the same plan can cure
CURABLE = frozenset(
    {
        "opening_minimum_not_met",
        "would_leave_one_card_without_canasta",
        "black_threes_only_when_going_out",
        "must_go_out_after_yes",
    }
)

Mask = npt.NDArray[np.int8]
Plan = tuple[Group, ...]


def group_index(rank: int, naturals: int, deuces: int, jokers: int) -> int:
    """The index of staging a group."""
    return GROUP_BASE + (GROUP_RANKS.index(rank) * (MAX_NATURALS + 1) + naturals) * len(WILD_COMBOS) + WILD_COMBOS.index(
        (deuces, jokers)
    )


def group_of(index: int) -> tuple[int, int, int, int]:
    """(rank, naturals, deuces, jokers) of a staging index."""
    i = index - GROUP_BASE
    rest, w = divmod(i, len(WILD_COMBOS))
    r, n = divmod(rest, MAX_NATURALS + 1)
    d, j = WILD_COMBOS[w]
    return GROUP_RANKS[r], n, d, j


def describe(index: int) -> str:
    """A readable name of an action index (``'group K n=2 deuces=1 jokers=0'``)."""
    names = ("draw", "take", "meld", "clear", "ask", "yes", "no", "decline")
    if index < DISCARD_BASE:
        return names[index]
    if index < GROUP_BASE:
        return "discard " + card_str(index - DISCARD_BASE)
    r, n, d, j = group_of(index)
    return f"group {FACE_TOKEN[r]} n={n} deuces={d} jokers={j}"


def signature(action: Action) -> tuple[object, ...]:
    """An action up to the suits of interchangeable cards (what the index space can tell apart)."""
    if isinstance(action, (Meld, TakePile)):
        groups = []
        for g in action.groups:
            nat = sum(1 for c in g.cards if FACE[c] == g.rank)
            d = sum(1 for c in g.cards if FACE[c] == F_DEUCE)
            j = sum(1 for c in g.cards if FACE[c] == F_JOKER)
            if nat or d or j:
                groups.append((g.rank, nat, d, j))
        discard = action.discard if isinstance(action, Meld) else None
        return (action.kind, tuple(sorted(groups)), discard)
    return (action.kind, tuple(action))


def _free_cards(view: SeatView, plan: Plan) -> list[int]:
    assert view.hand is not None
    hand = sorted(view.hand, key=sort_key)
    for g in plan:
        for c in g.cards:
            hand.remove(c)
    return hand


def _build_group(free: Sequence[int], rank: int, n: int, d: int, j: int) -> Group | None:
    nat = [c for c in free if FACE[c] == rank][:n]
    deuces = [c for c in free if FACE[c] == F_DEUCE][:d]
    jokers = [c for c in free if FACE[c] == F_JOKER][:j]
    if len(nat) < n or len(deuces) < d or len(jokers) < j:
        return None
    return Group(rank, tuple(nat + deuces + jokers))


def _commit(state: State, plan: Plan, index: int) -> Action | None:
    """The core action an index commits (None for staging and clearing)."""
    if index == DRAW_I:
        return DRAW
    if index == TAKE_I:
        return TakePile(plan)
    if index == MELD_I:
        return Meld(plan)
    if index == ASK_I:
        return ASK
    if index == YES_I:
        return YES
    if index == NO_I:
        return NO
    if index == DECLINE_I:
        return DECLINE
    if DISCARD_BASE <= index < GROUP_BASE:
        card = index - DISCARD_BASE
        return Meld(plan, card) if plan else Discard(card)
    return None


def _ok(state: State, action: Action, *, staging: bool) -> bool:
    err = state.check(action)
    return err is None or (staging and err.code in CURABLE)


def legal_mask(state: State, plan: Plan = (), view: SeatView | None = None) -> Mask:
    """The legal-action mask for the seat to act, given its staged plan.

    Reads the hand and the pile from the seat's ``view`` (built when not given); the state
    only answers ``check``.
    """
    mask = np.zeros(ACTION_COUNT, dtype=np.int8)
    phase = state.phase
    if phase == "over":
        return mask
    if phase == "ask":
        mask[YES_I] = mask[NO_I] = 1
        return mask
    if plan:
        mask[CLEAR_I] = 1
    if view is None:
        view = state.view(state.turn)
    free = _free_cards(view, plan)
    if phase == "draw":
        if not plan:
            for i in (DRAW_I, DECLINE_I):
                mask[i] = state.check(_commit(state, plan, i)) is None  # type: ignore[arg-type]
        if view.pile:
            mask[TAKE_I] = state.check(TakePile(plan)) is None
            top_rank = FACE[view.pile[-1]]
            if top_rank in GROUP_RANKS:
                ranks = [top_rank] if not plan else [r for r in GROUP_RANKS if r != top_rank]
                _stage_mask(state, plan, free, ranks, mask, take=True)
        return mask
    # play phase
    if not plan:
        mask[ASK_I] = state.check(ASK) is None
    else:
        mask[MELD_I] = state.check(Meld(plan)) is None
    for c in set(free):
        mask[DISCARD_BASE + c] = state.check(Meld(plan, c) if plan else Discard(c)) is None
    _stage_mask(state, plan, free, GROUP_RANKS, mask, take=False)
    return mask


def _stage_mask(state: State, plan: Plan, free: list[int], ranks: Sequence[int], mask: Mask, *, take: bool) -> None:
    staged = {g.rank for g in plan}
    by_face: list[list[int]] = [[] for _ in range(15)]
    for c in free:  # sorted, so the first cards of a face are the ones _build_group takes
        by_face[FACE[c]].append(c)
    deuces, jokers = by_face[F_DEUCE], by_face[F_JOKER]
    wilds = [(d, j, tuple(deuces[:d] + jokers[:j])) for d, j in WILD_COMBOS if d <= len(deuces) and j <= len(jokers)]
    for r in ranks:
        if r in staged:
            continue
        naturals = by_face[r]
        for n in range(len(naturals) + 1):
            nat = tuple(naturals[:n])
            for d, j, w in wilds:
                if not (n or d or j or take):
                    continue
                groups = plan + (Group(r, nat + w),)
                action: Action = TakePile(groups) if take else Meld(groups)
                if _ok(state, action, staging=True):
                    mask[group_index(r, n, d, j)] = 1


def step_plan(state: State, plan: Plan, index: int, view: SeatView | None = None) -> tuple[Plan, Action | None]:
    """Apply an index to the plan: (new plan, the core action to commit or None).

    Raises ``ValueError`` for an index outside the space; legality is the mask's business.
    """
    if not 0 <= index < ACTION_COUNT:
        raise ValueError(f"action index {index} is outside 0..{ACTION_COUNT - 1}")
    if index == CLEAR_I:
        return (), None
    if index >= GROUP_BASE:
        r, n, d, j = group_of(index)
        g = _build_group(_free_cards(view or state.view(state.turn), plan), r, n, d, j)
        if g is None or any(x.rank == r for x in plan):
            raise ValueError(f"cannot stage {describe(index)} with this hand and plan")
        return plan + (g,), None
    return (), _commit(state, plan, index)


def indexes_for(state: State, action: Action) -> list[int]:
    """The indexes that stage and commit ``action`` (equal up to suits) from an empty plan."""
    if isinstance(action, Discard):
        return [DISCARD_BASE + action.card]
    if isinstance(action, (Meld, TakePile)):
        groups = list(action.groups)
        pile = state.view(None).pile
        if isinstance(action, TakePile) and pile:
            top = FACE[pile[-1]]
            if all(g.rank != top for g in groups):
                groups.append(Group(top, ()))  # the top card's implicit group, made explicit
            groups.sort(key=lambda g: g.rank != top)  # the top card's group first
        out = []
        for g in groups:
            nat = sum(1 for c in g.cards if FACE[c] == g.rank)
            d = sum(1 for c in g.cards if FACE[c] == F_DEUCE)
            j = sum(1 for c in g.cards if FACE[c] == F_JOKER)
            out.append(group_index(g.rank, nat, d, j))
        if isinstance(action, TakePile):
            return [*out, TAKE_I]
        return [*out, MELD_I if action.discard is None else DISCARD_BASE + action.discard]
    simple = {"draw": DRAW_I, "ask": ASK_I, "decline": DECLINE_I}
    if action.kind in simple:
        return [simple[action.kind]]
    assert action.kind == "answer"
    return [YES_I if action.yes else NO_I]  # type: ignore[union-attr]
