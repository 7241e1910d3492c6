"""Helpers for the core scenario tests: build full 108-card positions from a few facts.

``make_position`` takes the interesting parts of a position (hands, melds, pile, red threes, the
top of the stock) and puts every remaining card of the 108-card pack somewhere harmless: by
default in the stock, below ``stock_top``, with red threes at the very bottom so that draws are
predictable.  ``fill`` may instead name a seat whose hand receives the remaining cards, or ``"pile"`` to
put them at the bottom of the pile (for empty-stock positions).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from canasta import State, action_from_text, state_from_position
from canasta.actions import Action
from canasta.cards import COPIES, F_RED3, FACE, card_str, full_deck, parse_card

CardsLike = str | list[str] | tuple[str, ...]


def cards(x: CardsLike | None) -> list[str]:
    """``"KH KS 2C"`` or ``["KH", "KS"]`` -> a list of card strings (normalised)."""
    if x is None:
        return []
    if isinstance(x, str):
        x = x.replace(",", " ").split()
    return [card_str(parse_card(c)) for c in x]


def default_sides(players: int) -> list[int]:
    return [s % 2 for s in range(4)] if players == 4 else list(range(players))


def make_position(
    preset: str | dict[str, Any] = "classic",
    *,
    hands: list[CardsLike],
    melds: list[dict[str, CardsLike]] | None = None,
    pile: CardsLike = (),
    red_threes: list[CardsLike] | None = None,
    stock_top: CardsLike = (),
    stock: CardsLike | None = None,
    fill: str | int = "stock",
    turn: int | None = None,
    dealer: int | None = None,
    phase: str = "draw",
    drew: str | None = None,
    scores: list[int] | None = None,
    sides: list[int] | None = None,
    melded: list[bool] | None = None,
    turn_state: dict[str, Any] | None = None,
    known: list[CardsLike] | None = None,
    merged: bool | None = None,
    hand_number: int = 1,
) -> dict[str, Any]:
    """A complete position JSON (see docs/formats.md) built from the given parts."""
    settings: dict[str, Any] = {"preset": preset} if isinstance(preset, str) else dict(preset)
    from canasta import Settings

    s = Settings.from_json(settings)
    n = s.players
    teams = s.team_count
    hands_l = [cards(h) for h in hands]
    assert len(hands_l) == n, f"{n} hands needed"
    melds_l = [{k: cards(v) for k, v in ms.items()} for ms in (melds or [{} for _ in range(teams)])]
    while len(melds_l) < teams:
        melds_l.append({})
    pile_l = cards(pile)
    reds_l = [cards(r) for r in (red_threes or [[] for _ in range(n)])]
    top_l = cards(stock_top)
    used: Counter[str] = Counter()
    for group in (*hands_l, *[c for ms in melds_l for c in ms.values()], pile_l, *reds_l, top_l):
        used.update(group)
    if stock is not None:
        used.update(cards(stock))
    remaining: list[str] = []
    pack = Counter(card_str(c) for c in full_deck())
    for c, k in pack.items():
        extra = used[c] - k
        assert extra <= 0, f"{c} used {used[c]} times; the pack has {k}"
        remaining.extend([c] * (k - used[c]))
    for c in used:
        assert c in pack, c
    # Red threes last (bottom of the stock), otherwise the canonical pack order.
    remaining.sort(key=lambda c: (FACE[parse_card(c)] == F_RED3, parse_card(c)))
    if stock is not None:
        stock_l = top_l + cards(stock)
        assert not remaining or fill != "stock", f"cards not placed: {remaining}"
    else:
        stock_l = list(top_l)
    if fill == "stock":
        stock_l += remaining
    elif fill == "pile":  # under the given pile cards, red threes at the very bottom
        reds = [c for c in remaining if FACE[parse_card(c)] == F_RED3]
        pile_l = reds + [c for c in remaining if c not in reds] + pile_l
    elif isinstance(fill, int):
        reds = [c for c in remaining if FACE[parse_card(c)] == F_RED3]
        assert not reds, "a hand cannot hold red threes: place them explicitly"
        hands_l[fill] = hands_l[fill] + remaining
    else:  # pragma: no cover
        raise ValueError(fill)
    if dealer is None:
        dealer = ((turn if turn is not None else 0) - 1) % n
    if turn is None:
        turn = (dealer + 1) % n
    if drew is None and phase in ("play", "ask"):
        drew = "stock"
    ts: dict[str, Any] = {"drew": drew}
    ts.update(turn_state or {})
    pos: dict[str, Any] = {
        "format": "canasta-position",
        "version": 1,
        "settings": s.to_json(),
        "hand_number": hand_number,
        "dealer": dealer,
        "scores": list(scores) if scores is not None else [0] * teams,
        "turn": turn,
        "phase": phase,
        "hands": hands_l,
        "stock": stock_l,
        "pile": pile_l,
        "sides": list(sides) if sides is not None else default_sides(n),
        "melds": melds_l,
        "red_threes": reds_l,
        "turn_state": ts,
        "known": [cards(k) for k in (known or [[] for _ in range(n)])],
    }
    if melded is not None:
        pos["melded"] = list(melded)
    if merged is not None:
        pos["merged"] = merged
    return pos


def state(preset: str | dict[str, Any] = "classic", **kw: Any) -> State:
    """``state_from_position(make_position(...))``."""
    return state_from_position(make_position(preset, **kw))


def act(text: str) -> Action:
    return action_from_text(text)


def play(st: State, *texts: str) -> State:
    """Apply actions given in text notation, in order (raises on the first illegal one)."""
    for t in texts:
        st.apply(action_from_text(t))
    return st


def hand_of(st: State, seat: int) -> list[str]:
    return sorted(card_str(c) for c in st.hands[seat])


def meld_of(st: State, side: int, rank: str) -> list[str] | None:
    from canasta.cards import parse_rank

    m = st.melds[side][parse_rank(rank)]
    return None if m is None else sorted(card_str(c) for c in m.cards)


def deck_with_top(top: list[str], seed: int = 0) -> list[str]:
    """A 108-card deck order whose first cards are ``top``; the rest shuffled with ``seed``."""
    top_l = cards(top)
    rest = Counter(card_str(c) for c in full_deck())
    rest.subtract(top_l)
    assert all(v >= 0 for v in rest.values()), "too many copies in top"
    tail = [c for c, k in sorted(rest.items()) for _ in range(k)]
    random.Random(seed).shuffle(tail)
    return top_l + tail


def pack_counts() -> dict[int, int]:
    return {c: COPIES[c] for c in range(len(COPIES))}


def illegal(st: State, text: str, code: str, section: str) -> str:
    """Assert that ``text`` is illegal in ``st`` with ``code``/``section`` (both check and apply),
    that the state is unchanged, and return the message."""
    import pytest

    from canasta import IllegalAction, position_to_json

    action = action_from_text(text)
    before = position_to_json(st)
    err = st.check(action)
    assert err is not None, f"{text!r} should be illegal ({code})"
    assert (err.code, err.section) == (code, section), f"{text!r}: got {err!r}"
    with pytest.raises(IllegalAction) as info:
        st.apply(action)
    assert info.value.code == code
    assert info.value.section == section
    assert position_to_json(st) == before, "an illegal action changed the state"
    return err.message


def legal(st: State, text: str) -> State:
    """Assert ``text`` is legal in ``st`` and apply it."""
    action = action_from_text(text)
    err = st.check(action)
    assert err is None, f"{text!r} should be legal, got {err!r}"
    st.apply(action)
    return st
