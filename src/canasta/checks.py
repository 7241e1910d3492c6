"""Checking actions against the rules (R4-R12): the reason an action is illegal, or none.

Every rejection is an :class:`IllegalAction` with a stable code, the rule section, a message and
its ``details`` (``docs/core-api.md`` lists the keys).
"""

from __future__ import annotations

from typing import Any, Final

from .actions import Action, Discard, Group, Meld, TakePile
from .cards import F_BLACK3, F_DEUCE, F_JOKER, F_RED3, FACE, FACE_TOKEN, MELD_FACES, VALUE, card_str
from .errors import IllegalAction
from .going_out import can_go_out
from .hand import HandState, TableMeld
from .rules import CANASTA_SIZE, TOP_BLOCKS

_GROUP_RANKS: Final = frozenset((*MELD_FACES, F_BLACK3))
_NAMES: Final = {f: FACE_TOKEN[f] + "s" for f in range(13)}
_NAMES[F_BLACK3] = "black threes"
_BLOCKED: Final = {
    "pile_empty": "the pile is empty",
    "pile_top_wild": "the pile cannot be taken while a wild card is on top",
    "pile_top_three": "the pile cannot be taken while a three is on top",
}
_LIMIT: Final = {
    "too_many_wilds": "a meld holds at most 3 wild cards; your {name} would have {wilds}",
    "wilds_outnumber_naturals": "naturals must outnumber wilds; your {name} would have {naturals} naturals and {wilds} wilds",
    "meld_needs_two_naturals": "a meld needs at least 2 natural cards; your {name} have {naturals}",
}


def check(st: HandState, action: Action) -> IllegalAction | None:
    """The reason ``action`` is illegal for the player to act, or None if it is legal."""
    try:
        verify(st, action)
    except IllegalAction as e:
        return e
    return None


def can(st: HandState, action: Action) -> bool:
    """Is ``action`` legal for the player to act?"""
    return check(st, action) is None


def verify(st: HandState, action: Action) -> None:
    """Raise :class:`IllegalAction` unless ``action`` is legal for the player to act."""
    phase = st.phase
    kind = getattr(action, "kind", None)
    if phase == "over":
        raise IllegalAction("hand_over", "R10", "the hand is over")
    if phase == "ask":
        if kind != "answer":
            raise IllegalAction("awaiting_answer", "R11", "your partner must first answer 'May I go out?'")
        return
    if kind == "answer":
        raise IllegalAction("no_question", "R11", "nobody asked 'May I go out?'")
    if phase == "draw":
        if kind == "draw":  # the most common action: answered here
            if not st.stock:
                raise IllegalAction("stock_empty", "R12", "the stock is empty: take the pile or decline it")
        elif kind == "take":
            assert isinstance(action, TakePile)
            _check_take(st, action)
        else:
            _verify_draw_phase(st, action, kind)
        return
    if kind == "meld":
        assert isinstance(action, Meld)
        _check_groups(st, action.groups, None, action.discard)
    elif kind == "discard":
        assert isinstance(action, Discard)
        _check_discard(st, action.card)
    elif kind == "ask":
        _check_ask(st)
    elif kind in ("draw", "take", "decline"):
        raise IllegalAction("already_drew", "R4", "you have already drawn this turn: meld or discard")
    else:
        raise IllegalAction("bad_action", "R4", f"not an action: {action!r}")


def _verify_draw_phase(st: HandState, action: Action, kind: str | None) -> None:
    """Declining the pile (R12), or an action that needs a draw first."""
    if kind == "decline":
        if st.stock:
            raise IllegalAction("cannot_decline", "R12", "you may only decline the pile when the stock is empty")
        if take_is_compulsory(st):
            raise IllegalAction(
                "pile_take_compulsory",
                "R12",
                "the stock is empty and the pile's top card fits your side's meld: you must take it",
                details=_rank(FACE[st.pile[-1]]),
            )
    elif kind in ("meld", "discard", "ask"):
        raise IllegalAction("must_draw_first", "R4", "draw from the stock or take the pile first")
    else:
        raise IllegalAction("bad_action", "R4", f"not an action: {action!r}")


def opening_count(st: HandState, action: Action) -> int:
    """R6.2/R6.3: what a meld or take action counts toward the opening minimum.

    (Well-formed actions only; malformed cards count nothing.)
    """
    total = 0
    if action.kind in ("meld", "take"):
        assert isinstance(action, (Meld, TakePile))
        for g in action.groups:
            total += sum(VALUE[c] for c in g.cards if type(c) is int and 0 <= c <= 52)
        if action.kind == "take" and st.pile:
            total += VALUE[st.pile[-1]]
    return total


def take_is_compulsory(st: HandState) -> bool:
    """R12.1: empty stock, pile not frozen for the side and its top matches a side meld."""
    if st.stock or not st.pile:
        return False
    side = st.side_of[st.turn]
    top = st.pile[-1]
    if st.is_frozen_for(side) or st.settings.pile_blocked(top) is not None:
        return False
    if st.melds[side][FACE[top]] is None:
        return False
    return check(st, TakePile((Group(FACE[top], ()),))) is None


def take_groups(st: HandState, action: TakePile) -> tuple[Group, ...]:
    """The take's groups with the top card's group present (possibly with no hand cards)."""
    face = FACE[st.pile[-1]]
    for g in action.groups:
        if g.rank == face:
            return action.groups
    return (Group(face, ()),) + tuple(action.groups)


# ---------------------------------------------------------------------------- discard, ask, take


def _check_ask(st: HandState) -> None:
    if not st.settings.ask_partner:
        raise IllegalAction("ask_disabled", "R11", "'May I go out?' is not played in these rules")
    if st.turn_state.ask is not None:
        raise IllegalAction("already_asked", "R11", "you have already asked this turn")
    if st.turn_state.melded:
        raise IllegalAction("ask_before_melding", "R11", "ask before melding anything this turn")
    if can_go_out(st) is None:
        raise IllegalAction("cannot_go_out_now", "R11", "you may only ask when you could go out now")


def _check_discard(st: HandState, card: int) -> None:
    seat = st.turn
    hand = st.hands[seat]
    if card not in hand:
        raise _not_in_hand(card)
    ask = st.turn_state.ask
    if ask == "yes":
        raise IllegalAction("must_go_out_after_yes", "R11", "your partner said yes: you must go out this turn")
    if len(hand) == 1:
        if ask == "no":
            raise IllegalAction("partner_said_no", "R11", "your partner said no: you may not go out this turn")
        have = st.canastas[st.side_of[seat]]
        need = st.settings.canastas_to_go_out
        if have < need:
            raise IllegalAction(
                "cannot_go_out_without_canasta",
                "R10",
                f"your side has {have} canasta(s); going out needs {need}",
                details={"canastas": have, "needed": need},
            )


def _check_take(st: HandState, action: TakePile) -> None:
    pile = st.pile
    blocked = TOP_BLOCKS[pile[-1]] if pile else "pile_empty"  # Settings.pile_blocked, inline
    if blocked is not None:
        raise IllegalAction(blocked, "R8", _BLOCKED[blocked], details={"card": card_str(pile[-1])} if pile else None)
    top = pile[-1]
    if len(st.hands[st.turn]) == 1 and len(pile) == 1:
        raise IllegalAction(
            "one_card_cannot_take_one_card_pile",
            "R8",
            "with one card in hand you may not take a pile of one card",
            details={"cards_held": 1, "pile_size": 1},
        )
    _check_groups(st, take_groups(st, action), top, None)


# ---------------------------------------------------------------------------- meld actions


def _check_groups(st: HandState, groups: tuple[Group, ...], top: int | None, discard: int | None) -> None:
    """Check a meld action (``top`` is the pile's top card when taking the pile)."""
    seat = st.turn
    hand = st.hands[seat]
    side = st.side_of[seat]
    melds = st.melds[side]
    if st.turn_state.ask == "pending":
        raise IllegalAction("awaiting_answer", "R11", "wait for your partner's answer")
    if not groups:
        raise IllegalAction("empty_meld", "R4", "a meld action needs at least one group")
    if len(groups) > 15:
        raise IllegalAction("duplicate_rank", "R4", "too many groups")
    used: dict[int, int] = {}
    nused = seen = value = new_canastas = 0
    black3_group = False
    top_face = FACE[top] if top is not None else -1
    for g in groups:
        r = g.rank
        if type(r) is not int or r not in _GROUP_RANKS or (seen >> r) & 1:
            raise _bad_group_rank(r)
        seen |= 1 << r
        m = melds[r]
        is_top = r == top_face
        hand_nat, wild, group_value, completes = _check_group(st, m, r, g.cards, top if is_top else None, used)
        nused += len(g.cards)
        value += group_value
        new_canastas += completes
        if r == F_BLACK3:
            black3_group = True
        elif is_top:
            _check_pile_group(st, side, m, r, hand_nat, wild)
    if discard is not None:
        if type(discard) is not int or not 0 <= discard <= 52:
            raise IllegalAction("bad_card", "R1", f"not a card: {discard!r}")
        used[discard] = used.get(discard, 0) + 1
    _check_held(used, hand)
    after = len(hand) - nused
    if top is not None:
        after += len(st.pile) - 1 - st.pile_red3
    if discard is not None and after != 1:
        raise IllegalAction(
            "discard_only_with_last_card",
            "R10",
            "a discard may join a meld action only to go out with your last card",
            details={"cards_left": after},
        )
    goes_out = discard is not None or after == 0
    if goes_out or after < 2 or black3_group or not st.nmelds[side] or st.turn_state.ask is not None:
        _check_outcome(st, value, after, goes_out, st.canastas[side] + new_canastas, top is not None, black3_group)


def _rank(r: int) -> dict[str, Any]:
    return {"rank": FACE_TOKEN[r]}


def _not_in_hand(c: int) -> IllegalAction:
    return IllegalAction("card_not_in_hand", "R4", f"{card_str(c)} is not in your hand", details={"card": card_str(c)})


def _bad_group_rank(r: object) -> IllegalAction:
    """A group of a rank that is no meld rank (R5.1), or of a rank already in the action (R4)."""
    if type(r) is not int or r not in _GROUP_RANKS:
        return IllegalAction("bad_rank", "R5", "melds are of ranks A, 4-K (black threes only when going out)")
    return IllegalAction(
        "duplicate_rank", "R4", f"two groups of {_NAMES[r]} in one action: merge them into one", details=_rank(r)
    )


def _check_group(
    st: HandState, m: TableMeld | None, r: int, cards: tuple[int, ...], top: int | None, used: dict[int, int]
) -> tuple[int, int, int, int]:
    """R5, R10.4: one group, joining meld ``m`` or starting one (with the pile's ``top`` card).

    Counts the hand cards it uses into ``used``; returns (naturals from the hand, wilds, value
    with the top card, 1 if it completes a canasta else 0).
    """
    nat = wild = value = 0
    for c in cards:
        if type(c) is not int or not 0 <= c <= 52:
            raise IllegalAction("bad_card", "R1", f"not a card: {c!r}")
        f = FACE[c]
        if f == r:
            nat += 1
        elif f == F_DEUCE or f == F_JOKER:
            wild += 1
        else:
            raise _card_cannot_meld(c, r)
        used[c] = used.get(c, 0) + 1
        value += VALUE[c]
    hand_nat = nat
    if top is not None:
        nat += 1
        value += VALUE[top]
    elif not cards:
        raise IllegalAction("empty_group", "R4", f"the group of {_NAMES[r]} has no cards", details=_rank(r))
    if r == F_BLACK3:
        _check_black_three_group(st, nat, wild)
        return hand_nat, wild, value, 0
    s = st.settings
    if m is not None:
        before = len(m.cards)
        if wild:
            if not s.wilds_on_canasta and before >= CANASTA_SIZE:
                raise IllegalAction(
                    "no_wilds_on_canasta",
                    "R5",
                    f"wild cards may not be added to the completed canasta of {_NAMES[r]}",
                    details=_rank(r),
                )
            code = s.wild_limit_error(m.naturals + nat, m.wilds + wild)
            if code is not None:
                raise _limit_error(code, r, m.naturals + nat, m.wilds + wild)
        return hand_nat, wild, value, 1 if before < CANASTA_SIZE <= before + nat + wild else 0
    size = nat + wild
    if size < 3:
        raise IllegalAction(
            "meld_too_small",
            "R5",
            f"a meld needs at least 3 cards; your {_NAMES[r]} have {size}",
            details={"rank": FACE_TOKEN[r], "size": size, "minimum": 3},
        )
    code = s.wild_limit_error(nat, wild)
    if code is not None:
        raise _limit_error(code, r, nat, wild)
    return hand_nat, wild, value, 1 if size >= CANASTA_SIZE else 0


def _card_cannot_meld(c: int, r: int) -> IllegalAction:
    f = FACE[c]
    if f == F_RED3:
        return IllegalAction("red_three_cannot_meld", "R5", "red threes never go in a meld", details={"card": card_str(c)})
    if f == F_BLACK3:
        return IllegalAction(
            "black_three_cannot_meld",
            "R10",
            "black threes meld only as a meld of their own (3 or 4) when going out",
            details={"card": card_str(c)},
        )
    return IllegalAction(
        "card_does_not_match_rank",
        "R5",
        f"{card_str(c)} cannot go in a meld of {_NAMES[r]}",
        details={"card": card_str(c), "rank": FACE_TOKEN[r]},
    )


def _limit_error(code: str, r: int, nat: int, wild: int) -> IllegalAction:
    """R5.2: the wild-card limit ``code`` broken by a meld of ``nat`` naturals and ``wild`` wilds."""
    message = _LIMIT[code].format(name=_NAMES[r], naturals=nat, wilds=wild)
    return IllegalAction(code, "R5", message, details={"rank": FACE_TOKEN[r], "naturals": nat, "wilds": wild})


def _check_black_three_group(st: HandState, nat: int, wild: int) -> None:
    """R10.4: 3 or 4 black threes, no wilds, and only where the settings allow it."""
    if not st.settings.black_three_meld_on_going_out:
        raise IllegalAction("black_three_meld_not_allowed", "R10", "black threes never meld in these rules")
    if wild:
        raise IllegalAction("black_three_meld_with_wild", "R10", "a black-three meld may not contain wild cards")
    if nat not in (3, 4):
        raise IllegalAction(
            "black_three_meld_size",
            "R10",
            f"a black-three meld has 3 or 4 black threes, not {nat}",
            details={"count": nat},
        )


def _check_pile_group(st: HandState, side: int, m: TableMeld | None, r: int, hand_nat: int, wild: int) -> None:
    """R8.2: the group holding the pile's top card has what a frozen or unfrozen pile needs."""
    if st.is_frozen_for(side):
        if hand_nat < 2:
            raise IllegalAction(
                "pile_frozen_needs_natural_pair",
                "R8",
                f"the pile is frozen for your side: you need two natural {_NAMES[r]} from your hand",
                details={"rank": FACE_TOKEN[r], "naturals": hand_nat, "needed": 2, "causes": st.frozen_causes(side)},
            )
    elif hand_nat < 2 and not (hand_nat >= 1 and wild >= 1) and m is None:
        raise IllegalAction(
            "pile_needs_matching_cards",
            "R8",
            f"to take the pile, meld its top card with two natural {_NAMES[r]}, "
            "a natural and a wild, or add it to your side's meld",
            details={"rank": FACE_TOKEN[r], "naturals": hand_nat, "wilds": wild},
        )


def pile_group_refusal(st: HandState, naturals: int, wilds: int) -> IllegalAction | None:
    """R8.2 alone: why a take whose top-card group holds ``naturals`` and ``wilds`` from the
    hand cannot take the pile, or None (the group's own R5 checks are not made here)."""
    side = st.side_of[st.turn]
    r = FACE[st.pile[-1]]
    try:
        _check_pile_group(st, side, st.melds[side][r], r, naturals, wilds)
    except IllegalAction as e:
        return e
    return None


def _check_held(used: dict[int, int], hand: list[int]) -> None:
    """R4: every card the action uses is in the hand, as many times as it is used."""
    for c, k in used.items():
        if k > 1:
            have = hand.count(c)
            if have < k:
                raise IllegalAction(
                    "card_not_in_hand",
                    "R4",
                    f"you hold {have} {card_str(c)}, not {k}",
                    details={"card": card_str(c), "held": have, "needed": k},
                )
        elif c not in hand:
            raise _not_in_hand(c)


def _check_outcome(
    st: HandState, value: int, after: int, goes_out: bool, canastas: int, taking: bool, black3_group: bool
) -> None:
    """R6, R10, R11: the opening minimum, canastas to go out, cards left, the partner's answer."""
    seat = st.turn
    ts = st.turn_state
    if not st.nmelds[st.side_of[seat]]:
        minimum = st.opening_minimum(seat)
        waived = not taking and goes_out and ts.drew == "stock" and not ts.melded
        if value < minimum and not waived:
            raise IllegalAction(
                "opening_minimum_not_met",
                "R6",
                f"your melds count {value}; your side needs {minimum} to open",
                details={"count": value, "minimum": minimum},
            )
    need = st.settings.canastas_to_go_out
    if goes_out and canastas < need:
        raise IllegalAction(
            "cannot_go_out_without_canasta",
            "R10",
            f"your side would have {canastas} canasta(s); going out needs {need}",
            details={"canastas": canastas, "needed": need},
        )
    if not goes_out and after < 2 and canastas < need:
        raise IllegalAction(
            "would_leave_one_card_without_canasta",
            "R10",
            f"until your side has {need} canasta(s) you must keep at least two cards; this leaves {after}",
            details={"canastas": canastas, "needed": need, "cards_left": after},
        )
    if black3_group and not goes_out:
        raise IllegalAction("black_threes_only_when_going_out", "R10", "black threes meld only in the action that goes out")
    if ts.ask == "yes" and not goes_out:
        raise IllegalAction("must_go_out_after_yes", "R11", "your partner said yes: your next action must go out")
    if ts.ask == "no":
        if goes_out:
            raise IllegalAction("partner_said_no", "R11", "your partner said no: you may not go out this turn")
        if after < 2:
            raise IllegalAction(
                "must_keep_two_cards_after_no",
                "R11",
                "after a 'no' you must keep at least two cards",
                details={"cards_left": after},
            )
