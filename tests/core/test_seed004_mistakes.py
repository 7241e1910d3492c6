"""Seed 004's "Mistakes people make" list and its worked hand, one test each."""

from __future__ import annotations

import pytest

from .helpers import illegal, legal, state

OTHERS = ["4C 4D 6S", "5C 5D 6H", "8C 8D JS"]
OPENED = [{"A": "AC AD AH"}, {}]


def four(seat0: str, **kw):
    return state(hands=[seat0, *OTHERS], turn=0, **kw)


@pytest.mark.parametrize("top,pair", [("3S", "3C,3S"), ("3C", "3C,3S"), ("2C", "2D,2H"), ("JK", "JK,JK")])
def test_seed004_mistake_cannot_take_pile_with_black_three_or_wild_on_top_even_with_a_pair(top, pair):
    hand = " ".join(pair.split(",")) + " KC 5D"
    st = four(hand, melds=OPENED, pile=f"KS {top}")
    code = "pile_top_three" if top.startswith("3") else "pile_top_wild"
    rank = "3" if top.startswith("3") else "K"
    illegal(st, f"take {rank}:{pair}", code, "R8")
    assert [a.kind for a in st.legal_actions()] == ["draw"]


def test_seed004_mistake_seven_two_joker_is_not_a_meld():
    st = four("7C 2C JK 5D 6D", melds=OPENED, phase="play")
    illegal(st, "meld 7:7C,2C,JK", "meld_needs_two_naturals", "R5")


def test_seed004_mistake_more_than_three_wilds():
    st = four("7C 7D 7H 2C 2D 2H JK 5D 6D", melds=OPENED, phase="play")
    illegal(st, "meld 7:7C,7D,7H,2C,2D,2H,JK", "too_many_wilds", "R5")


def test_seed004_mistake_cannot_go_out_without_a_canasta():
    st = four("7C 7D 7H 5D", melds=OPENED, phase="play")
    illegal(st, "meld 7:7C,7D,7H discard 5D", "cannot_go_out_without_canasta", "R10")


def test_seed004_mistake_holding_one_card_without_a_canasta_is_a_trap():
    st = four("7C 7D 7H 5D", melds=OPENED, phase="play")
    illegal(st, "meld 7:7C,7D,7H", "would_leave_one_card_without_canasta", "R10")
    # the engine never lists an action that walks into the trap
    for a in st.legal_actions():
        trial = st.copy()
        trial.apply(a)
        if not trial.is_over and trial.turn == 0:
            assert len(trial.hands[0]) >= 2


def test_seed004_mistake_red_threes_count_minus_100_each_when_side_has_not_melded():
    st = state(hands=["5C", "4C 4D", "5D 6H", "8C 8D"], turn=0, phase="play",
               melds=[{"K": "KC KD KS KC KD KS KH"}, {}], red_threes=[[], ["3H", "3D"], [], []])
    legal(st, "discard 5C")
    side1 = st.result.sides[1]
    assert side1.red_threes == 2 and side1.red_three_bonus == -200
    assert side1.total == -200 - 10 - 20


def test_seed004_worked_hand():
    st = state(
        hands=["4S", "9C 9D 6C", "JK 5C", "TC TD JS"],
        melds=[{"K": "KC KC KD KD KH KH KS", "8": "8C 8C 8D 8D 8H 2C 2D", "A": "AC AD AH"}, {}],
        red_threes=[["3H"], [], [], []], scores=[1200, 0], turn=0, phase="play",
        melded=[True, False, True, False],
    )
    legal(st, "discard 4S")
    s0 = st.result.sides[0]
    assert s0.canasta_bonus + s0.red_three_bonus + s0.going_out == 1000
    assert s0.melds == 220 and s0.hand_penalty == 55 and s0.total == 1165
    assert st.scores[0] + s0.total == 2365
