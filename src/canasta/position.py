"""Positions: any mid-hand state as versioned JSON, loaded with consistency checks."""

from __future__ import annotations

from typing import Any

from .cards import (
    COPIES,
    DECK_SIZE,
    F_RED3,
    FACE,
    FACE_TOKEN,
    IS_WILD,
    MELD_FACES,
    card_str,
    parse_card,
    parse_rank,
)
from .errors import CanastaError, FormatError
from .hand import HandState, TableMeld, TurnState
from .rules import Settings
from .state import State

POSITION_FORMAT = "canasta-position"
POSITION_VERSION = 1
PHASES = ("draw", "play", "ask", "over")


def position_to_json(state: HandState) -> dict[str, Any]:
    """The position of ``state`` (stock listed top card first; pile bottom to top)."""
    ts = state.turn_state
    return {
        "format": POSITION_FORMAT,
        "version": POSITION_VERSION,
        "settings": state.settings.to_json(),
        "hand_number": state.hand_number,
        "dealer": state.dealer,
        "scores": list(state.scores),
        "turn": state.turn,
        "phase": state.phase,
        "hands": [[card_str(c) for c in h] for h in state.hands],
        "stock": [card_str(c) for c in reversed(state.stock)],
        "pile": [card_str(c) for c in state.pile],
        "sides": list(state.side_of),
        "melds": [
            {FACE_TOKEN[m.rank]: [card_str(c) for c in m.cards] for m in ms if m is not None} for ms in state.melds
        ],
        "red_threes": [[card_str(c) for c in r] for r in state.red3],
        "melded": list(state.melded),
        "turn_state": {
            "drew": ts.drew,
            "melded": ts.melded,
            "melded_before_turn": ts.start_melded,
            "new_melds": [FACE_TOKEN[r] for r in range(13) if (ts.new_melds >> r) & 1],
            "added_to_existing": ts.added,
            "ask": ts.ask,
            "asker": ts.asker,
        },
        "known": [[card_str(c) for c in k] for k in state.known],
        "merged": state.merged,
    }


def _bad(message: str) -> FormatError:
    return FormatError("bad_position", message)


def _cards(value: Any, what: str) -> list[int]:
    if not isinstance(value, list):
        raise _bad(f"{what} must be a list of cards")
    return [parse_card(c) for c in value]


def _seat_list(data: dict[str, Any], key: str, n: int, default: Any = None) -> list[Any]:
    value = data.get(key, default)
    if not isinstance(value, list) or len(value) != n:
        raise _bad(f"'{key}' must be a list with one entry per seat ({n})")
    return value


def state_from_position(data: Any) -> State:
    """Load a position; :class:`FormatError` if malformed or inconsistent."""
    if not isinstance(data, dict) or data.get("format") != POSITION_FORMAT:
        raise _bad(f"not a canasta position (expected format '{POSITION_FORMAT}')")
    if data.get("version") != POSITION_VERSION:
        raise FormatError("bad_position_version", f"unsupported position version {data.get('version')!r}")
    st = _empty_state(data)
    n = st.players
    turn = data.get("turn", (st.dealer + 1) % n)
    if type(turn) is not int or not 0 <= turn < n:
        raise _bad("'turn' must be a seat")
    phase = data.get("phase", "draw")
    if phase not in PHASES:
        raise _bad(f"'phase' must be one of {', '.join(PHASES)}")
    st.turn, st.phase = turn, phase
    _load_cards(st, data)
    _load_sides_and_melds(st, data)
    st.red3 = [_cards(x, "red threes") for x in _seat_list(data, "red_threes", n, [[] for _ in range(n)])]
    for reds in st.red3:
        if any(FACE[c] != F_RED3 for c in reds):
            raise _bad("'red_threes' may hold only red threes")
    melded = _seat_list(data, "melded", n, [st.nmelds[st.side_of[s]] > 0 for s in range(n)])
    st.melded = [bool(m) for m in melded]
    st.turn_state = _turn_state(data, st)
    st.known = [_cards(k, "known cards") for k in _seat_list(data, "known", n, [[] for _ in range(n)])]
    for seat, known in enumerate(st.known):
        for c in set(known):
            if known.count(c) > st.hands[seat].count(c):
                raise _bad(f"seat {seat}: known card {card_str(c)} is not in that hand")
    st.merged = bool(data.get("merged", len(set(st.side_of)) < st.settings.team_count and n == 3))
    _check_pack(st)
    _check_consistency(st)
    if phase == "over":
        raise _bad("a finished hand is not a position: load the record instead")
    if phase == "draw" and not st.stock and st.plan_pile_pickup() is None:
        raise _bad("the stock is empty and the pile cannot be taken: this hand is already over")
    return st


def _empty_state(data: dict[str, Any]) -> State:
    """The settings, scores, dealer and hand number, in a state without cards."""
    try:
        settings = Settings.from_json(data.get("settings", {}))
    except CanastaError as e:
        raise _bad(f"settings: {e.message}") from e
    teams = settings.team_count
    scores = data.get("scores", [0] * teams)
    if not isinstance(scores, list) or len(scores) != teams or not all(type(s) is int for s in scores):
        raise _bad(f"'scores' must list {teams} whole numbers")
    dealer = data.get("dealer", 0)
    hand_number = data.get("hand_number", 1)
    if type(dealer) is not int or not 0 <= dealer < settings.players:
        raise _bad("'dealer' must be a seat")
    if type(hand_number) is not int or hand_number < 1:
        raise _bad("'hand_number' must be a positive number")
    return State.empty(settings, hand_number=hand_number, dealer=dealer, scores=tuple(scores))


def _load_cards(st: State, data: dict[str, Any]) -> None:
    """Hands, stock and pile."""
    n = st.players
    st.hands = [sorted(_cards(h, f"hand of seat {i}")) for i, h in enumerate(_seat_list(data, "hands", n))]
    for seat, hand in enumerate(st.hands):
        for c in hand:
            if FACE[c] == F_RED3:
                raise _bad(f"seat {seat} holds a red three: red threes are always exposed (R9)")
            st.fc[seat][FACE[c]] += 1
    st.stock = list(reversed(_cards(data.get("stock", []), "stock")))
    for c in _cards(data.get("pile", []), "pile"):
        st.push_pile(c)


def _load_sides_and_melds(st: State, data: dict[str, Any]) -> None:
    teams = st.settings.team_count
    sides = _seat_list(data, "sides", st.players, list(st.team_of))
    if not all(type(s) is int and 0 <= s < teams for s in sides):
        raise _bad("'sides' must give each seat a side number")
    st.side_of = list(sides)
    melds = data.get("melds", [{} for _ in range(teams)])
    if not isinstance(melds, list) or len(melds) != teams:
        raise _bad(f"'melds' must be a list of {teams} objects (one per side)")
    for side, ms in enumerate(melds):
        if not isinstance(ms, dict):
            raise _bad("each side's melds must be an object rank -> cards")
        if ms and side not in st.side_of:
            raise _bad(f"side {side} has melds but no seat")
        for token, cards in ms.items():
            m = _meld(token, cards)
            st.melds[side][m.rank] = m
        st.nmelds[side] = sum(1 for m in st.melds[side] if m is not None)
        st.canastas[side] = sum(1 for m in st.melds[side] if m is not None and m.is_canasta)


def _meld(token: Any, cards: Any) -> TableMeld:
    r = parse_rank(token)
    if r not in MELD_FACES:
        raise _bad("black-three melds only exist at the end of a hand")
    codes = _cards(cards, f"meld {token}")
    nat = sum(1 for c in codes if FACE[c] == r)
    wild = sum(1 for c in codes if IS_WILD[c])
    if nat + wild != len(codes):
        raise _bad(f"meld {token} holds a card of another rank")
    if len(codes) < 3:
        raise _bad(f"meld {token} has fewer than 3 cards")
    return TableMeld(r, tuple(codes), nat, wild)


def _turn_state(data: dict[str, Any], st: State) -> TurnState:
    ts = data.get("turn_state", {})
    if not isinstance(ts, dict):
        raise _bad("'turn_state' must be an object")
    drew = ts.get("drew")
    if drew not in (None, "stock", "pile"):
        raise _bad("turn_state.drew must be null, 'stock' or 'pile'")
    if (st.phase in ("play", "ask")) != (drew is not None):
        raise _bad("turn_state.drew must be set exactly in the play and ask phases")
    new_melds = 0
    for token in ts.get("new_melds", []):
        new_melds |= 1 << parse_rank(token)
    ask, asker = ts.get("ask"), ts.get("asker")
    if ask not in (None, "pending", "yes", "no"):
        raise _bad("turn_state.ask must be null, 'pending', 'yes' or 'no'")
    if (st.phase == "ask") != (ask == "pending"):
        raise _bad("the ask phase and a pending question go together")
    if ask is not None and (not st.settings.ask_partner or type(asker) is not int):
        raise _bad("a question needs ask_partner and an asker seat")
    return TurnState(
        drew=drew,
        melded=bool(ts.get("melded", False)),
        start_melded=bool(ts.get("melded_before_turn", st.melded[st.turn])),
        new_melds=new_melds,
        added=bool(ts.get("added_to_existing", False)),
        ask=ask,
        asker=asker,
    )


def _check_pack(st: State) -> None:
    """Every card accounted for exactly as in the pack; red threes in the pile only from the deal."""
    counts = [0] * len(COPIES)
    for group in (
        *st.hands,
        st.stock,
        st.pile,
        *[m.cards for ms in st.melds for m in ms if m is not None],
        *st.red3,
    ):
        for c in group:
            counts[c] += 1
    total = sum(counts)
    if total != DECK_SIZE:
        raise _bad(f"the position holds {total} cards; a pack has {DECK_SIZE}")
    for c, copies in enumerate(counts):
        if copies != COPIES[c]:
            raise _bad(f"the position holds {copies} × {card_str(c)}; a pack has {COPIES[c]}")
    reds_at = [i for i, c in enumerate(st.pile) if FACE[c] == F_RED3]
    if reds_at and any(not IS_WILD[c] and FACE[c] != F_RED3 for c in st.pile[: reds_at[-1]]):
        raise _bad("a red three can only be in the pile among the cards turned up at the start (R3.3)")


def _check_consistency(st: State) -> None:
    """Reject states no game can reach (R0, R4, R5, R10, R11, R14)."""
    n = st.players
    sides = st.side_of
    if n == 3:
        distinct = len(set(sides))
        if distinct == 1 or (distinct == 2) != st.merged:
            raise _bad("three-player sides: each seat alone, or (merged) exactly two seats sharing a side (R14)")
        if distinct == 3 and sides != [0, 1, 2]:
            raise _bad("three-player seats play alone as sides 0, 1, 2 until the first pile take (R14)")
    else:
        if st.merged:
            raise _bad("'merged' exists only in the three-player game (R14)")
        if sides != list(st.team_of):
            raise _bad(f"sides must be {list(st.team_of)} in this game (R0)")
    limit_exempt = st.merged
    for side, ms in enumerate(st.melds):
        for m in ms:
            if m is None or limit_exempt:
                continue
            if st.settings.wild_limit_error(m.naturals, m.wilds) is not None:
                raise _bad(f"side {side}'s meld of {FACE_TOKEN[m.rank]} breaks the wild-card limits (R5.2)")
    for side in set(sides):
        seats = [x for x in range(n) if sides[x] == side]
        has = st.nmelds[side] > 0
        if any(st.melded[x] for x in seats) != has:
            raise _bad(f"side {side}: 'melded' must mark a seat exactly when the side has melds (R0)")
    ts = st.turn_state
    if st.phase == "draw" and (ts.melded or ts.new_melds or ts.added):
        raise _bad("nothing can be melded in the draw phase (R4)")
    if st.phase == "play" and not st.hands[st.turn]:
        raise _bad("the player to act holds no card: going out would have ended the hand (R10.1)")
    if ts.ask is not None:
        asker = ts.asker
        assert asker is not None
        if not 0 <= asker < n:
            raise _bad("turn_state.asker must be a seat")
        expected = (asker + 2) % 4 if ts.ask == "pending" else asker
        if st.turn != expected:
            raise _bad("'May I go out?': the partner answers, then the asker acts (R11)")
