"""IllegalAction carries the numbers and names of its message as structured ``details``."""

from __future__ import annotations

from canasta import action_from_text

from .helpers import state

OTHERS = ["4C 4D 6S", "5C 5D 6H", "8C 8D JS"]


def four(hand: str, **kw):  # type: ignore[no-untyped-def]
    return state("classic", hands=[hand, *OTHERS], turn=0, **kw)


def _error(st, text):  # type: ignore[no-untyped-def]
    err = st.check(action_from_text(text))
    assert err is not None, text
    return err


def test_r6_opening_minimum_details_count_and_minimum():
    st = four("QH QS 2C 4C 4S 9D 9H", phase="play")
    err = _error(st, "meld Q:QH,QS,2C")
    assert err.code == "opening_minimum_not_met"
    assert err.details == {"count": 40, "minimum": 50}
    assert err.to_json()["details"] == {"count": 40, "minimum": 50}


def test_r8_frozen_pile_details_name_the_rank_needed():
    st = four("9C 9D 2H KH 5D 6D", melds=[{"9": "9H 9S 9H"}, {}], pile="5C 2C 7D 9S")
    err = _error(st, "take 9:9C,2H")
    assert err.code == "pile_frozen_needs_natural_pair"
    assert err.details == {"rank": "9", "naturals": 1, "needed": 2, "causes": ["wild"]}


def test_r5_wild_limit_details_give_the_counts():
    st = four("2C 2D JK 5D 6D 7H", phase="play", melds=[{"Q": "QC QD 2S"}, {}])
    err = _error(st, "meld Q:2C,2D,JK")
    assert err.code == "too_many_wilds"
    assert err.details == {"rank": "Q", "naturals": 2, "wilds": 4}


def test_r4_card_not_in_hand_details_name_the_card():
    st = four("QH QS 2C 4C 4S 9D 9H", phase="play")
    err = _error(st, "discard KH")
    assert err.code == "card_not_in_hand" and err.details == {"card": "KH"}


def test_errors_without_numbers_have_empty_details():
    st = four("QH QS 2C 4C 4S 9D 9H")
    err = _error(st, "discard QH")
    assert err.code == "must_draw_first" and err.details == {}
    assert "details" not in err.to_json()
