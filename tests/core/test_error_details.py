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


# ---------------------------------------------------------------------------- why the pile cannot be taken


def test_r8_1_black_three_on_top_names_the_card():
    st = four("9C 9D KH 5D 6D", melds=[{"8": "8C 8D 8H"}, {}], pile="9S 3C")
    err = _error(st, "take 3")
    assert err.code == "pile_top_three" and err.details == {"card": "3C"}
    refusal = st.take_refusal()
    assert refusal is not None and (refusal.code, refusal.details) == ("pile_top_three", {"card": "3C"})


def test_r8_1_wild_on_top_names_the_card():
    st = four("9C 9D KH 5D 6D", melds=[{"8": "8C 8D 8H"}, {}], pile="9S 2C")
    refusal = st.take_refusal()
    assert refusal is not None and (refusal.code, refusal.details) == ("pile_top_wild", {"card": "2C"})


def test_r8_4_one_card_cannot_take_a_one_card_pile_details():
    st = four("9C", melds=[{"9": "9H 9S 9D"}, {}], pile="9S")
    refusal = st.take_refusal()
    assert refusal is not None and refusal.code == "one_card_cannot_take_one_card_pile"
    assert refusal.details == {"cards_held": 1, "pile_size": 1}


def test_r8_2_frozen_pile_refusal_counts_the_naturals_of_the_top_rank():
    # a buried wild freezes the pile; one natural 9 in the hand is not enough, melds or not
    st = four("9C 2H KH 5D 6D", melds=[{"9": "9H 9S 9D"}, {}], pile="5C 2C 7D 9S")
    refusal = st.take_refusal()
    assert refusal is not None and refusal.code == "pile_frozen_needs_natural_pair"
    assert refusal.details == {"rank": "9", "naturals": 1, "needed": 2, "causes": ["wild"]}


def test_r7_4_unopened_side_without_a_pair_is_told_the_pile_is_frozen_for_it():
    st = four("KH 5D 6D 7C 8C", pile="4C 9S")
    refusal = st.take_refusal()
    assert refusal is not None and refusal.code == "pile_frozen_needs_natural_pair"
    assert refusal.details == {"rank": "9", "naturals": 0, "needed": 2, "causes": ["not_opened"]}


def test_r6_3_opening_take_refusal_counts_the_largest_take_against_the_minimum():
    # the pair of fives with the top five counts 15; the other groups the hand can meld
    # (three sixes: 15) join it: 30 of 50
    st = four("5C 5D 6C 6D 6H KH 9C", pile="4C 5S")
    refusal = st.take_refusal()
    assert refusal is not None and refusal.code == "opening_minimum_not_met"
    assert refusal.details == {"count": 30, "minimum": 50}


def test_r8_2_unfrozen_pile_needs_matching_cards():
    st = four("KH 5D 6D 7C", melds=[{"8": "8C 8D 8H"}, {}], pile="4C 9S")
    refusal = st.take_refusal()
    assert refusal is not None and refusal.code == "pile_needs_matching_cards"
    assert refusal.details == {"rank": "9", "naturals": 0, "wilds": 0}


def test_r8_take_refusal_is_none_when_a_take_is_legal():
    st = four("9C 9D KH 5D 6D", melds=[{"8": "8C 8D 8H"}, {}], pile="4C 9S")
    assert st.take_refusal() is None and st.plan_pile_pickup() is not None


def test_r10_discard_with_a_meld_only_for_the_last_card_gives_the_cards_left():
    st = four("QH QS QD 4C 4S 9D 9H", phase="play", melds=[{"8": "8C 8D 8H"}, {}])
    err = _error(st, "meld Q:QH,QS,QD discard 4C")
    assert err.code == "discard_only_with_last_card" and err.details == {"cards_left": 4}


def test_r8_take_refusal_exactly_when_no_take_is_listed_over_random_hands():
    import random

    from canasta import Game, Settings

    refused = set()
    for preset, seed in [("classic", 1), ("two-player", 2), ("bicycle", 3), ("three-player", 4)]:
        game = Game(Settings.preset(preset, target="one_hand"), seed=seed)
        rng = random.Random(seed)
        st = game.state
        while not st.is_over:
            if st.phase == "draw":
                refusal = st.take_refusal()
                takes = [a for a in st.legal_actions() if a.kind == "take"]
                assert (refusal is None) == bool(takes), (refusal, takes)
                if refusal is not None:
                    assert refusal.section in ("R6", "R8", "R10", "R12") and refusal.message
                    refused.add(refusal.code)
            game.apply(rng.choice(st.legal_actions()))
            st = game.state
    assert "pile_frozen_needs_natural_pair" in refused
