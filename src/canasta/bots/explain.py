"""Advice for a person: the Normal policy's choice for a seat's view, with the reason for it.

A reason is data, never a sentence: a stable ``code`` and the numbers and names it speaks of
(JSON values: ints, bools, rank tokens like ``"K"``, card strings like ``"KH"``), so that each
client words it in its player's language. Like every computer player, the adviser decides
from the seat's view only.

>>> from canasta import Game, Settings
>>> game = Game(Settings.preset("classic"), seed=3)
>>> advice = advise(game.state.view(game.state.turn))
>>> game.state.check(advice.action) is None, advice.reason.code.split("_")[0] in ("draw", "take")
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..actions import Action, Answer, Discard, Meld, TakePile
from ..cards import F_BLACK3, F_DEUCE, FACE, FACE_TOKEN, IS_WILD, MELD_FACES, card_str
from ..rules import CANASTA_SIZE
from ..state import State
from ..view import SeatView
from . import evaluate as ev
from .common import decision_rng, own_state, safe
from .evaluate import Memory
from .policy import NORMAL, Policy

__all__ = ["Advice", "Reason", "advise", "explain", "suggestion_kind"]

#: the level whose judgement a suggestion gives (the human's partner plays it too)
ADVISER = NORMAL


@dataclass(frozen=True, slots=True)
class Reason:
    """Why: a stable ``code`` and its ``params`` (JSON values)."""

    code: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"code": ..., **params}``.

        >>> Reason("discard_unmelded", {"card": "4H", "rank": "4"}).to_json()
        {'code': 'discard_unmelded', 'card': '4H', 'rank': '4'}
        """
        return {"code": self.code, **self.params}


@dataclass(frozen=True, slots=True)
class Advice:
    """One legal option for the seat to act, and why the Normal policy picks it."""

    action: Action
    reason: Reason


def advise(view: SeatView, seed: int = 0) -> Advice:
    """The Normal policy's action for the seat to act in ``view``, with its reason.

    Raises ValueError when the view's seat has no decision to make.
    """
    if view.seat is None or view.seat != view.turn or view.phase == "over" or not view.legal:
        raise ValueError("the view's seat has no decision to make")
    state = own_state(view)
    memory = Memory.from_history(view.history, view.players)
    policy = Policy(ADVISER)
    if len(view.legal) == 1:
        action = view.legal[0]
    else:
        action = safe(view, state, policy.choose(state, decision_rng(seed, view), memory))
    return Advice(action, explain(state, action, memory, policy))


def suggestion_kind(advice: Advice) -> str:
    """The kind of decision advised: ``pile_pickup``, ``draw``, ``decline``, ``go_out``, ``meld``,
    ``discard``, ``ask`` or ``answer`` (going out is told by the reason)."""
    if advice.reason.code.startswith("go_out"):
        return "go_out"
    kind = advice.action.kind
    return "pile_pickup" if kind == "take" else kind


def explain(state: State, action: Action, memory: Memory | None = None, policy: Policy | None = None) -> Reason:
    """Why ``action`` suits the player to act in ``state`` (read as that seat sees it)."""
    policy = policy or Policy(ADVISER)
    kind = action.kind
    if kind == "answer":
        assert isinstance(action, Answer)
        yes, why, params = policy.answer_why(state)
        if yes != action.yes:  # not the policy's own answer: say what it means
            return Reason("answer_yes" if action.yes else "answer_no", {})
        return Reason(("answer_yes_" if yes else "answer_no_") + why, params)
    if kind == "take":
        assert isinstance(action, TakePile)
        return _take_reason(state, action)
    if kind == "draw":
        return _draw_reason(state)
    if kind == "decline":
        return Reason("decline", {"size": len(state.pile)})
    if kind == "ask":
        partner = (state.turn + 2) % state.players
        return Reason("ask", {"partner_cards": len(state.hands[partner])})
    if _goes_out(state, action):
        return _going_out_reason(state, action, policy)
    if kind == "meld":
        assert isinstance(action, Meld)
        return _meld_reason(state, action)
    assert isinstance(action, Discard)
    return _discard_reason(state, action.card, memory)


# ---------------------------------------------------------------------------- draw phase


def _take_reason(st: State, a: TakePile) -> Reason:
    seat = st.turn
    side = st.side_of[seat]
    top = st.pile[-1]
    r = FACE[top]
    params: dict[str, Any] = {"size": len(st.pile), "rank": FACE_TOKEN[r], "card": card_str(top)}
    top_group = next((g for g in a.groups if g.rank == r), None)
    hand_cards = () if top_group is None else top_group.cards
    naturals = sum(1 for c in hand_cards if FACE[c] == r)
    if not st.nmelds[side]:
        params.update(count=st.opening_count(a), minimum=st.opening_minimum(seat), groups=len(a.groups))
        return Reason("take_opens", params)
    if naturals >= 2:
        return Reason("take_pair", params)
    if st.melds[side][r] is not None and not hand_cards:
        return Reason("take_onto_meld", params)
    return Reason("take_natural_wild", params)


def _draw_reason(st: State) -> Reason:
    refusal = st.take_refusal()
    if refusal is not None:
        return Reason("draw_cannot_take", {"why": refusal.code, **refusal.details})
    params: dict[str, Any] = {"size": len(st.pile)}
    if st.players == 3 and not st.merged:
        return Reason("draw_lone_take", params)  # R14: the first taker plays alone against two
    return Reason("draw_pile_not_worth", params)


# ---------------------------------------------------------------------------- play phase


def _goes_out(st: State, a: Action) -> bool:
    hand = len(st.hands[st.turn])
    if isinstance(a, Discard):
        return hand == 1
    if isinstance(a, Meld):
        return hand - sum(len(g.cards) for g in a.groups) - (a.discard is not None) == 0
    return False


def _going_out_reason(st: State, a: Action, policy: Policy) -> Reason:
    side = st.side_of[st.turn]
    params: dict[str, Any] = {"canastas": st.canastas[side]}
    if isinstance(a, Meld):
        params["canastas"] += sum(1 for g in a.groups if _completes(st, side, g.rank, len(g.cards)))
    if st.turn_state.ask == "yes":
        return Reason("go_out_partner_said_yes", params)
    go_on, why, numbers = policy.wants_out_why(st, a)
    return Reason("go_out_" + (why if go_on else "anyway"), {**params, **numbers})


def _completes(st: State, side: int, r: int, added: int) -> bool:
    m = st.melds[side][r]
    before = 0 if m is None else len(m.cards)
    return before < CANASTA_SIZE <= before + added


def _meld_reason(st: State, a: Meld) -> Reason:
    seat = st.turn
    side = st.side_of[seat]
    # the group that says most: one completing a canasta, else the largest
    main = max(a.groups, key=lambda g: (_completes(st, side, g.rank, len(g.cards)), len(g.cards)))
    r = main.rank
    m = st.melds[side][r]
    size = (0 if m is None else len(m.cards)) + len(main.cards)
    params: dict[str, Any] = {"rank": FACE_TOKEN[r], "size": size, "groups": len(a.groups)}
    left = len(st.hands[seat]) - sum(len(g.cards) for g in a.groups)
    params["left"] = left
    if not st.nmelds[side]:
        params.update(count=st.opening_count(a), minimum=st.opening_minimum(seat))
        return Reason("meld_opens", params)
    if _completes(st, side, r, len(main.cards)):
        wilds = (0 if m is None else m.wilds) + sum(1 for c in main.cards if IS_WILD[c])
        params["natural"] = wilds == 0
        return Reason("meld_canasta", params)
    if m is not None:
        if len(m.cards) >= CANASTA_SIZE:  # a canasta already (R5): it grows, it is not "closer"
            return Reason("meld_on_canasta", params)
        if all(IS_WILD[c] for c in main.cards):
            return Reason("meld_wild_on", params)
        return Reason("meld_add", params)
    if ev.threat(st, seat) >= 0.4:
        return Reason("meld_before_caught", params)
    return Reason("meld_new", params)


def _discard_reason(st: State, c: int, memory: Memory | None) -> Reason:
    seat = st.turn
    f = FACE[c]
    n = st.players
    nxt = (seat + 1) % n
    side = st.side_of[seat]
    opps = ev.opponents(st, seat)
    params: dict[str, Any] = {"card": card_str(c), "rank": FACE_TOKEN[f], "opponents": len(opps)}
    if st.side_of[nxt] == side:
        return Reason("discard_to_partner", params)
    if f == F_BLACK3:
        return Reason("discard_black_three", params)
    if IS_WILD[c]:
        params["size"] = len(st.pile) + 1
        if f == F_DEUCE and not (st.pile_wild or st.pile_red3) and len(st.pile) >= 6:
            return Reason("discard_freeze", params)
        return Reason("discard_wild", params)
    nxt_side = st.side_of[nxt]
    onto_their_meld = st.melds[nxt_side][f] is not None
    frozen_for_next = st.is_frozen_for(nxt_side)
    last = _last_discard(st, nxt)
    if last is not None and FACE[last] == f and not (onto_their_meld and not frozen_for_next):
        return Reason("discard_next_just_discarded", params)
    if memory is not None and (memory.discarded[nxt][f] or memory.passed[nxt][f]) and not onto_their_meld:
        return Reason("discard_next_let_go", params)
    unseen = ev.unseen_faces(st, seat)
    if f in MELD_FACES and unseen[f] <= 1 and not onto_their_meld:
        params["unseen"] = unseen[f]
        return Reason("discard_rank_out", params)
    if not any(st.melds[st.side_of[o]][f] is not None for o in opps):
        single = st.fc[seat][f] == 1
        return Reason("discard_unmelded_single" if single else "discard_unmelded", params)
    if frozen_for_next:
        params["causes"] = st.frozen_causes(nxt_side)
        return Reason("discard_pile_frozen", params)
    return Reason("discard_least_risky", params)


def _last_discard(st: State, seat: int) -> int | None:
    """The card ``seat`` last threw onto the pile this hand, or None."""
    for e in reversed(st.history):
        if e.seat != seat or e.action is None:
            continue
        a = e.action
        if isinstance(a, Discard):
            return a.card
        if isinstance(a, Meld) and a.discard is not None:
            return a.discard
    return None
