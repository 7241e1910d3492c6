"""Applying actions (R4, R8-R12, R14): what each legal action does to the hand's data."""

from __future__ import annotations

from bisect import insort
from typing import Final

from .actions import Action, Answer, Discard, Group, Meld, TakePile
from .cards import F_RED3, FACE, NUM_FACES
from .checks import take_groups, verify
from .errors import IllegalAction
from .hand import FRESH_TURN, FRESH_TURN_MELDED, Event, HandState, TableMeld, TurnState
from .pickup import plan_pile_pickup
from .rules import CANASTA_SIZE
from .scoring import score_hand

#: builds a named tuple from all its fields without the Python-level ``__new__`` that
#: ``NamedTuple`` generates (an event per action, a meld and a turn state per meld): the
#: fields are given in order and in full
_new: Final = tuple.__new__
#: the turn sub-state after a stock draw from a fresh turn (indexed by start_melded)
_DREW_STOCK: Final = (FRESH_TURN._replace(drew="stock"), FRESH_TURN_MELDED._replace(drew="stock"))


def apply(st: HandState, action: Action, *, validate: bool = True) -> None:
    """Apply ``action`` for the player to act; raises :class:`IllegalAction` if illegal.

    ``validate=False`` skips the check: only for actions known to be legal (search).
    """
    if validate:
        verify(st, action)
    kind = action.kind
    seat = st.turn
    if kind == "draw":
        _draw(st, seat, action)
    elif kind == "discard":
        assert isinstance(action, Discard)
        _discard(st, seat, action)
    elif kind == "meld":
        assert isinstance(action, Meld)
        _meld(st, seat, action)
    elif kind == "take":
        assert isinstance(action, TakePile)
        _take(st, seat, action)
    elif kind == "ask":
        ts = st.turn_state
        st.turn_state = TurnState(ts.drew, ts.melded, ts.start_melded, ts.new_melds, ts.added, "pending", seat)
        st.phase = "ask"
        st.turn = st.partner(seat)
        st.history.append(Event(seat, action, (), 0, (), ()))
    elif kind == "answer":
        assert isinstance(action, Answer)
        ts = st.turn_state
        answer = "yes" if action.yes else "no"
        st.turn_state = TurnState(ts.drew, ts.melded, ts.start_melded, ts.new_melds, ts.added, answer, ts.asker)
        st.phase = "play"
        st.history.append(Event(seat, action, (), 0, (), ()))
        assert ts.asker is not None
        st.turn = ts.asker
    elif kind == "decline":
        st.history.append(Event(seat, action, (), 0, (), ()))
        _end(st, "declined", None, False)
    else:  # pragma: no cover - guarded by the check
        raise IllegalAction("bad_action", "R4", f"not an action: {action!r}")


def _remove(st: HandState, seat: int, c: int) -> None:
    st.hands[seat].remove(c)
    st.fc[seat][FACE[c]] -= 1
    known = st.known[seat]
    if known and c in known:
        known.remove(c)


def _draw(st: HandState, seat: int, action: Action) -> None:
    stock = st.stock
    hand = st.hands[seat]
    fc = st.fc[seat]
    need = st.settings.draw_count
    drawn: list[int] = []
    exposed: list[int] = []
    while need and stock:
        c = stock.pop()
        if FACE[c] == F_RED3:
            st.red3[seat].append(c)
            exposed.append(c)
            if not stock:  # R9.2: a red three as the last stock card ends the hand
                st.history.append(Event(seat, action, tuple(drawn), len(drawn), tuple(exposed), ()))
                _end(st, "red_three_last", None, False)
                return
            continue
        insort(hand, c)
        fc[FACE[c]] += 1
        drawn.append(c)
        need -= 1
    st.history.append(_new(Event, (seat, action, tuple(drawn), len(drawn), tuple(exposed), (), None)))
    st.phase = "play"
    ts = st.turn_state
    if ts is FRESH_TURN or ts is FRESH_TURN_MELDED:  # the usual case: no need to build a value
        st.turn_state = _DREW_STOCK[ts.start_melded]
    else:
        st.turn_state = TurnState("stock", ts.melded, ts.start_melded, ts.new_melds, ts.added, ts.ask, ts.asker)


def _discard(st: HandState, seat: int, action: Discard) -> None:
    c = action.card
    _remove(st, seat, c)
    st.push_pile(c)
    st.history.append(_new(Event, (seat, action, (), 0, (), (), None)))
    if not st.hands[seat]:
        _go_out(st, seat)
    else:
        _next_turn(st)


def _meld(st: HandState, seat: int, action: Meld) -> None:
    _lay(st, seat, action.groups, None)
    if action.discard is not None:
        _remove(st, seat, action.discard)
        st.push_pile(action.discard)
    st.history.append(_new(Event, (seat, action, (), 0, (), (), None)))
    if not st.hands[seat]:
        _go_out(st, seat)


def _lay(st: HandState, seat: int, groups: tuple[Group, ...], top: int | None) -> None:
    side = st.side_of[seat]
    melds = st.melds[side]
    hand = st.hands[seat]
    fc = st.fc[seat]
    known = st.known[seat]
    ts = st.turn_state
    new_melds = ts.new_melds
    added = ts.added
    top_face = FACE[top] if top is not None else -1
    for g in groups:
        r = g.rank
        cards = g.cards
        nat = 0
        for c in cards:
            hand.remove(c)
            f = FACE[c]
            fc[f] -= 1
            if f == r:
                nat += 1
            if known and c in known:
                known.remove(c)
        wild = len(cards) - nat
        if r == top_face:
            assert top is not None
            cards = (top,) + cards
            nat += 1
        m = melds[r]
        if m is None:
            melds[r] = _new(TableMeld, (r, cards, nat, wild))
            st.nmelds[side] += 1
            if len(cards) >= CANASTA_SIZE:
                st.canastas[side] += 1
            new_melds |= 1 << r
        else:
            before = len(m.cards)
            melds[r] = _new(TableMeld, (r, m.cards + cards, m.naturals + nat, m.wilds + wild))
            if before < CANASTA_SIZE <= before + len(cards):
                st.canastas[side] += 1
            if not (new_melds >> r) & 1:
                added = True
    st.melded[seat] = True
    st.turn_state = _new(TurnState, (ts.drew, True, ts.start_melded, new_melds, added, ts.ask, ts.asker))


def _take(st: HandState, seat: int, action: TakePile) -> None:
    groups = take_groups(st, action)
    top = st.pile.pop()
    ts = st.turn_state
    st.turn_state = _new(TurnState, ("pile", ts.melded, ts.start_melded, ts.new_melds, ts.added, ts.ask, ts.asker))
    _lay(st, seat, groups, top)
    rest = st.pile
    st.pile = []
    st.pile_wild = st.pile_red3 = st.pile_black3 = 0
    hand = st.hands[seat]
    fc = st.fc[seat]
    known = st.known[seat]
    taken: list[int] = []
    exposed: list[int] = []
    for c in rest:
        f = FACE[c]
        if f == F_RED3:  # R8.5: exposed, no replacement
            st.red3[seat].append(c)
            exposed.append(c)
        else:
            hand.append(c)
            fc[f] += 1
            known.append(c)
            taken.append(c)
    hand.sort()
    st.history.append(_new(Event, (seat, action, (), 0, tuple(exposed), tuple(taken), top)))
    st.phase = "play"
    if st.players == 3 and not st.merged:
        _merge_partnership(st, seat)
    if not hand:
        _go_out(st, seat)


def _merge_partnership(st: HandState, taker: int) -> None:
    """R14: the first pile-taker plays alone; the other two now share melds and status."""
    a, b = [s for s in range(3) if s != taker]
    sa, sb = st.side_of[a], st.side_of[b]
    ma, mb = st.melds[sa], st.melds[sb]
    for r in range(NUM_FACES):
        x, y = ma[r], mb[r]
        if y is None:
            continue
        if x is None:
            ma[r] = y
        else:
            ma[r] = TableMeld(r, x.cards + y.cards, x.naturals + y.naturals, x.wilds + y.wilds)
        mb[r] = None
    st.side_of[b] = sa
    st.nmelds[sa] = sum(1 for m in ma if m is not None)
    st.canastas[sa] = sum(1 for m in ma if m is not None and m.is_canasta)
    st.nmelds[sb] = st.canastas[sb] = 0
    st.merged = True


def _go_out(st: HandState, seat: int) -> None:
    side = st.side_of[seat]
    ts = st.turn_state
    concealed = False
    if not ts.start_melded and not ts.added:  # R10.3
        bits = ts.new_melds
        concealed = any((bits >> r) & 1 and m is not None and m.is_canasta for r, m in enumerate(st.melds[side]))
    _end(st, "went_out", seat, concealed)


def _next_turn(st: HandState) -> None:
    st.turn = turn = (st.turn + 1) % st.players
    st.phase = "draw"
    st.turn_state = FRESH_TURN_MELDED if st.melded[turn] else FRESH_TURN
    if not st.stock:
        if plan_pile_pickup(st) is None:  # R12.2: nobody can draw: the hand ends at once
            _end(st, "stock_empty", None, False)


def _end(st: HandState, reason: str, went_out: int | None, concealed: bool) -> None:
    st.phase = "over"
    st.result = score_hand(st, reason, went_out, concealed)
