"""Per-seat views: exactly what a seat may know, and nothing else.

A view holds no other seat's hidden cards and no stock order.  Everything in it is either the
seat's own hand, or public: visible on the table or derivable from the public history (every
discard was seen, so the pile's cards and the cards a player took with it are public).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Final

from .actions import Action, action_to_json
from .cards import (
    CARD_TEXT,
    F_BLACK3,
    F_RED3,
    FACE,
    FACE_TOKEN,
    IS_WILD,
    MELD_TOKENS,
    SORT_KEYS,
    stage_targets,
)
from .hand import Event, HandState, TableMeld, TurnFacts, TurnState
from .legal import legal_actions
from .results import HandResult
from .rules import Settings, opening_minimum

VIEW_VERSION: Final = 1


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView(TurnFacts):
    """A seat's (or a spectator's, ``seat=None``) knowledge of the hand."""

    seat: int | None
    settings: Settings
    hand_number: int
    dealer: int
    turn: int
    phase: str
    team_of: tuple[int, ...]
    side_of: tuple[int, ...]
    scores: tuple[int, ...]
    hand: tuple[int, ...] | None
    hand_counts: tuple[int, ...]
    melds: tuple[tuple[TableMeld, ...], ...]
    canastas: tuple[int, ...]
    red_threes: tuple[tuple[int, ...], ...]
    pile: tuple[int, ...]
    stock_size: int
    known: tuple[tuple[int, ...], ...]
    melded: tuple[bool, ...]
    turn_state: TurnState
    merged: bool
    legal: tuple[Action, ...]
    history: tuple[Event, ...]
    result: HandResult | None
    #: every seat's cards once the hand is over (then public: they count against their side);
    #: None while it is played
    hands_left: tuple[tuple[int, ...], ...] | None = None

    @property
    def players(self) -> int:
        return self.settings.players

    @property
    def pile_top(self) -> int | None:
        return self.pile[-1] if self.pile else None

    def opened(self, side: int) -> bool:
        return bool(self.melds[side])

    def opening_minimum(self, seat: int) -> int:
        return opening_minimum(self.scores[self.team_of[seat]])

    def frozen_causes(self, side: int) -> list[str]:
        """R7: why the pile is frozen for ``side`` (empty list: not frozen)."""
        wild, red_three, black_three = _pile_holds(self.pile)
        return self.settings.frozen_causes(
            wild=wild, red_three=red_three, black_three=black_three, opened=bool(self.melds[side])
        )

    def to_json(self, history: bool = True) -> dict[str, Any]:
        """The view as JSON (``history=False``: an empty history, for a caller that places
        events it has encoded already)."""
        out: dict[str, Any] = {"format": "canasta-view", "version": VIEW_VERSION}
        for name, _, build in _ENTRIES:
            out[name] = build(self) if history or name != "history" else []
        return out

    def json_changes(self, old: SeatView) -> dict[str, Any]:
        """The entries of :meth:`to_json`, the history aside, built from fields that differ
        in ``old``: put over ``old``'s JSON they give this view's (a client that keeps the
        last state is sent only these). Only the entries that can have changed are built."""
        wanted = 0  # a bit per entry of _ENTRIES to build
        for uses, a, b in zip(_USED_BY, _compared(self), _compared(old), strict=True):
            if a is not b and a != b:
                wanted |= uses
        out: dict[str, Any] = {}
        while wanted:  # the entries of the bits set, in their order
            low = wanted & -wanted
            name, _, build = _ENTRIES[low.bit_length() - 1]
            out[name] = build(self)
            wanted ^= low
        return out


def _pile_holds(pile: Sequence[int]) -> tuple[bool, bool, bool]:
    """R7: whether the pile holds a wild card, a red three, a black three."""
    faces = {FACE[c] for c in pile}
    return any(IS_WILD[c] for c in pile), F_RED3 in faces, F_BLACK3 in faces


def _pile_json(v: SeatView) -> dict[str, Any]:
    top = v.pile_top
    pile = v.pile
    # :meth:`SeatView.frozen_causes` for every side, what the pile holds found once for all
    wild, red_three, black_three = _pile_holds(pile)
    frozen_causes = v.settings.frozen_causes
    causes = [
        frozen_causes(wild=wild, red_three=red_three, black_three=black_three, opened=bool(ms))
        for ms in v.melds
    ]
    blocked = v.settings.pile_blocked(top)
    return {
        "top": None if top is None else CARD_TEXT[top],
        "size": len(pile),
        "cards": _cards(pile),
        "frozen": [bool(c) for c in causes],
        "causes": causes,
        "blocked": blocked is not None,
        "blocked_reason": blocked,  # R8.1: a code, or None
    }


def _cards(cards: Sequence[int]) -> list[str]:
    """Cards in their notation (``card_str`` of each)."""
    return [CARD_TEXT[c] for c in cards]


#: every entry of :meth:`SeatView.to_json` after its format and version, in order: its name,
#: the view's fields it is built from (:meth:`SeatView.json_changes` builds it again only when
#: one of them changed) and how it is built
_ENTRIES: Final[tuple[tuple[str, frozenset[str], Callable[[SeatView], Any]], ...]] = tuple(
    (name, frozenset(sources), build)
    for name, sources, build in (
        ("seat", ("seat",), lambda v: v.seat),
        ("settings", ("settings",), lambda v: v.settings.to_json()),
        ("hand_number", ("hand_number",), lambda v: v.hand_number),
        ("dealer", ("dealer",), lambda v: v.dealer),
        ("turn", ("turn",), lambda v: v.turn),
        ("phase", ("phase",), lambda v: v.phase),
        ("teams", ("team_of",), lambda v: list(v.team_of)),
        ("sides", ("side_of",), lambda v: list(v.side_of)),
        ("scores", ("scores",), lambda v: list(v.scores)),
        ("opening_minimums", ("scores",), lambda v: [opening_minimum(s) for s in v.scores]),
        ("opened", ("melds",), lambda v: [v.opened(s) for s in range(len(v.melds))]),
        ("hand", ("hand",), lambda v: None if v.hand is None else _cards(v.hand)),
        # R5.1: the ranks each hand card may be staged on, and the meld ranks in table order
        (
            "hand_targets",
            ("hand",),
            lambda v: None if v.hand is None else [list(stage_targets(c)) for c in v.hand],
        ),
        ("meld_ranks", (), lambda v: list(MELD_TOKENS)),
        ("hand_counts", ("hand_counts",), lambda v: list(v.hand_counts)),
        (
            "melds",
            ("melds", "settings"),
            lambda v: [[meld_json(m, v.settings) for m in ms] for ms in v.melds],
        ),
        ("canastas", ("canastas",), lambda v: list(v.canastas)),
        ("red_threes", ("red_threes",), lambda v: [_cards(r) for r in v.red_threes]),
        ("pile", ("pile", "melds", "settings"), _pile_json),
        ("stock_size", ("stock_size",), lambda v: v.stock_size),
        ("known", ("known",), lambda v: [_cards(k) for k in v.known]),
        ("melded", ("melded",), lambda v: list(v.melded)),
        (
            "turn_state",
            ("turn_state",),
            lambda v: {
                "drew": v.turn_state.drew,
                "melded": v.turn_state.melded,
                "ask": v.turn_state.ask,
                "asker": v.turn_state.asker,
            },
        ),
        ("legal", ("legal",), lambda v: [action_to_json(a) for a in v.legal]),
        ("history", ("history",), lambda v: [event_json(e) for e in v.history]),
        ("result", ("result",), lambda v: None if v.result is None else v.result.to_json()),
        (
            "hands_left",
            ("hands_left",),
            lambda v: None if v.hands_left is None else [_cards(h) for h in v.hands_left],
        ),
    )
)
#: the fields :meth:`SeatView.json_changes` compares: the history is not among them (a client
#: that keeps the last state is sent the new events apart)
_COMPARED: Final[tuple[str, ...]] = tuple(
    sorted(frozenset().union(*(s for n, s, _ in _ENTRIES if n != "history")))
)
_compared: Final = attrgetter(*_COMPARED)
#: the bit of each entry of _ENTRIES (its index), and for each compared field the entries built
#: from it
_BITS: Final[tuple[int, ...]] = tuple(1 << k for k in range(len(_ENTRIES)))
_USED_BY: Final[tuple[int, ...]] = tuple(
    sum(b for b, (n, sources, _) in zip(_BITS, _ENTRIES, strict=True) if f in sources and n != "history")
    for f in _COMPARED
)


def meld_json(m: TableMeld, settings: Settings) -> dict[str, Any]:
    """A meld on the table; ``bonus`` is its canasta bonus under ``settings`` (0 below seven)."""
    return {
        "rank": FACE_TOKEN[m.rank],
        "cards": _cards(m.cards),
        "naturals": m.naturals,
        "wilds": m.wilds,
        "canasta": m.is_canasta,
        "natural": m.is_natural,
        "bonus": settings.canasta_bonus(m.wilds) if m.is_canasta else 0,  # R13.1
    }


def event_json(e: Event) -> dict[str, Any]:
    """A history entry; a take also names the pile's top card and how many cards the pile held."""
    out: dict[str, Any] = {
        "seat": e.seat,
        "action": None if e.action is None else action_to_json(e.action),
        "drawn": e.ndrawn,
        "cards": _cards(e.drawn),
        "red_threes": _cards(e.red_threes),
        "taken": _cards(e.taken),
    }
    if e.top is not None:
        out["top"] = CARD_TEXT[e.top]
        out["pile_size"] = 1 + len(e.taken) + len(e.red_threes)
    return out


def seen_history(state: HandState, seat: int | None) -> tuple[Event, ...]:
    """The hand's history as ``seat`` sees it: another seat's draws from the stock hidden.

    A history only grows, and every change builds a view for each recipient, so the state keeps
    each seat's shown history and extends it by the new events only (it starts afresh when the
    events it covered are not there any more).
    """
    history = state.history
    cache = state.seen_history
    if cache is None:
        cache = state.seen_history = {}
    done = cache.get(seat)
    if done is not None:
        last, shown = done
        count = len(shown)  # one shown event per event of the history
        if count <= len(history) and (count == 0 or history[count - 1] is last):
            if count < len(history):
                shown = shown + _shown(history, count, seat)
                cache[seat] = (history[-1], shown)
            return shown
    shown = _shown(history, 0, seat)
    cache[seat] = (history[-1] if history else None, shown)
    return shown


def _shown(history: list[Event], start: int, seat: int | None) -> tuple[Event, ...]:
    # built directly: ``_replace`` costs several times more
    return tuple(
        e if e.seat == seat or not e.drawn else Event(e.seat, e.action, (), e.ndrawn, e.red_threes, e.taken, e.top)
        for e in history[start:]
    )


#: the view's fields built from the hand's lists that actions of each kind can change (see
#: canasta.moves): the seat's own hand (when it is the seat that acts), the cards known to be
#: held, the pile, the melds and the red threes laid down. Any other kind (a decline, the
#: deal's red threes) and a hand that ended change more: the view is then built whole. The
#: other fields (counts, turn, phase, scores ...) are built for every view.
_OWN_HAND, _KNOWN, _PILE, _MELDS, _RED3 = 1, 2, 4, 8, 16
_ALL: Final = _OWN_HAND | _KNOWN | _PILE | _MELDS | _RED3
_CHANGES: Final[dict[str, int]] = {
    "draw": _OWN_HAND | _RED3,  # R9: cards from the stock, a red three laid down
    "discard": _OWN_HAND | _KNOWN | _PILE,
    "meld": _OWN_HAND | _KNOWN | _MELDS | _PILE,  # R10.1: going out may discard with it
    "take": _ALL,  # R8: the pile into melds and the hand (R8.5: its red threes laid down)
    "ask": 0,  # R11: the question and its answer move the turn only
    "answer": 0,
}


def _changed_since(state: HandState, seat: int | None, since: SeatView, shown: tuple[Event, ...]) -> int:
    """The list-built fields that may differ between ``since`` and ``seat``'s view of
    ``state`` now (``shown``: the history as the seat sees it now): the changes of the actions
    played since, when ``since`` is the last view of this seat built of this very state (a
    copy, a resampled deal or another hand has views of its own); all of them otherwise."""
    count = len(since.history)
    if (
        state.last_view(seat) is not since
        or state.phase == "over"
        or not 0 < count <= len(shown)
        or shown[count - 1] is not since.history[count - 1]  # a history that went elsewhere
    ):
        return _ALL
    bits = 0
    for e in state.history[count:]:
        action = e.action
        kind = None if action is None else _CHANGES.get(action.kind)
        if kind is None:
            return _ALL
        bits |= kind if e.seat == seat else kind & ~_OWN_HAND
    return bits


def make_view(
    state: HandState,
    seat: int | None,
    legal: Sequence[Action] | None = None,
    since: SeatView | None = None,
) -> SeatView:
    """Build ``seat``'s view of ``state`` (``None``: spectator); ``legal``: the legal actions of
    ``state`` when the caller has them already (used only when ``seat`` is to act).

    ``since``: the last view of the same seat built of this same state object
    (``state.last_view(seat)``), the actions applied since only by
    :func:`canasta.moves.apply`: the fields those actions
    cannot change are then taken from it rather than built again, and
    :meth:`SeatView.json_changes` passes over them at once. Any other ``since`` (another
    seat's, an older one, one of a copy, a resampled deal or another hand) is ignored: the view
    is built whole. A state changed by hand between the two views must not be given one."""
    history = seen_history(state, seat)
    changed = _ALL if since is None else _changed_since(state, seat, since, history)
    old = since if since is not None and changed != _ALL else None
    view = SeatView(
        seat=seat,
        settings=state.settings,
        hand_number=state.hand_number,
        dealer=state.dealer,
        turn=state.turn,
        phase=state.phase,
        team_of=state.team_of,
        side_of=tuple(state.side_of),
        scores=state.scores,
        hand=None
        if seat is None
        else old.hand
        if old is not None and not changed & _OWN_HAND
        else tuple(sorted(state.hands[seat], key=SORT_KEYS.__getitem__)),
        hand_counts=tuple(map(len, state.hands)),
        melds=old.melds
        if old is not None and not changed & _MELDS
        else tuple([tuple([m for m in ms if m is not None]) for ms in state.melds]),
        canastas=tuple(state.canastas),
        red_threes=old.red_threes if old is not None and not changed & _RED3 else tuple(map(tuple, state.red3)),
        pile=old.pile if old is not None and not changed & _PILE else tuple(state.pile),
        stock_size=len(state.stock),
        known=old.known if old is not None and not changed & _KNOWN else tuple(map(tuple, state.known)),
        melded=tuple(state.melded),
        turn_state=state.turn_state,
        merged=state.merged,
        legal=(tuple(legal_actions(state)) if legal is None else tuple(legal))
        if seat is not None and seat == state.turn
        else (),
        history=history,
        result=state.result,
        hands_left=tuple([tuple(sorted(h, key=SORT_KEYS.__getitem__)) for h in state.hands])
        if state.phase == "over"
        else None,
    )
    views = state.views
    if views is None:
        views = state.views = {}
    views[seat] = view
    return view
