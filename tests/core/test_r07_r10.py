"""Scenario tests for RULES.md R7-R10, built from explicit positions."""

from __future__ import annotations

import pytest

from canasta.cards import card_str

from .helpers import hand_of, illegal, legal, meld_of, state

OTHERS = ["4C 4D 6S", "5C 5D 6H", "8C 8D JS"]


def four(seat0: str, **kw):
    return state(hands=[seat0, *OTHERS], turn=0, **kw)


OPENED = [{"A": "AC AD AH"}, {}]


# ---------------------------------------------------------------- R7 frozen pile


def test_r7_covered_wild_freezes_the_pile():
    st = four("9C 9D 2H KH 5D 6D", melds=[{"9": "9H 9S 9H"}, {}], pile="5C 2C 7D 9S")
    assert st.frozen_causes(0) == ["wild"]
    illegal(st, "take 9", "pile_frozen_needs_natural_pair", "R8")
    illegal(st, "take 9:9C,2H", "pile_frozen_needs_natural_pair", "R8")
    legal(st, "take 9:9C,9D")
    assert st.pile == [] and len(meld_of(st, 0, "9")) == 6


def test_r7_red_three_turned_up_at_the_start_freezes_the_pile():
    st = four("KC KD 2H 5D 6D", melds=[{"K": "KH KS KH"}, {}], pile="3H 7C KS")
    assert st.frozen_causes(0) == ["red_three"]
    illegal(st, "take K", "pile_frozen_needs_natural_pair", "R8")
    legal(st, "take K:KC,KD")
    # R8.5: the red three from the pile is exposed for the side, with no replacement
    assert [card_str(c) for c in st.red3[0]] == ["3H"]
    assert hand_of(st, 0) == sorted(["2H", "5D", "6D", "7C"])


@pytest.mark.parametrize("preset,frozen", [("classic", False), ("bicycle", True)])
def test_r7_black_three_freezes_only_under_freeze(preset, frozen):
    st = state(preset, hands=["9C 2H 5D 6D", *OTHERS], turn=0,
               melds=[{"9": "9H 9S 9H"}, {}], pile="4S 3C 7D 9S")
    assert ("black_three" in st.frozen_causes(0)) is frozen
    if frozen:
        illegal(st, "take 9", "pile_frozen_needs_natural_pair", "R8")
    else:
        legal(st, "take 9")


def test_r7_pile_is_frozen_only_for_a_side_that_has_not_opened():
    # side 1 has opened, side 0 has not; no wild in the pile
    st = state(hands=["KC 2H 5D 6D AS", "KD 5C 6H 7H", "4C 4D 6S", "8C 8D 9S"], turn=0,
               melds=[{}, {"K": "KH KS KH"}], pile="7D KS")
    view = st.view(0).to_json()
    assert view["pile"]["frozen"] == [True, False]
    assert view["pile"]["causes"] == [["not_opened"], []]
    # side 0: a natural and a wild is not enough (frozen for it)
    illegal(st, "take K:KC,2H", "pile_frozen_needs_natural_pair", "R8")
    legal(st, "draw")
    legal(st, "discard 5D")  # pile: 7D KS 5D
    # seat 1 (side 1, opened): not frozen; hand 5C matches the top 5D with a wild? it has none
    st2 = state(hands=["KC 2H 5D 6D AS", "KD 5C 6H 7H", "4C 4D 6S", "8C 8D 9S"], turn=1,
                melds=[{}, {"K": "KH KS KH"}], pile="7D KS")
    legal(st2, "take K")  # adds the top king to side 1's meld
    assert len(meld_of(st2, 1, "K")) == 4


def test_r7_taking_the_pile_clears_the_wild_cause():
    st = four("9C 9D 5D 6D 7H", melds=[{"A": "AC AD AH"}, {}], pile="5C 2C 7D 9S")
    assert "wild" in st.frozen_causes(0)
    legal(st, "take 9:9C,9D")
    legal(st, "discard 7H")
    assert st.frozen_causes(0) == [] and st.frozen_causes(1) == ["not_opened"]


# ---------------------------------------------------------------- R8 taking the pile


def test_r8_pile_top_wild_cannot_be_taken():
    st = four("2D 2H KC 5D", melds=OPENED, pile="KS 2C")
    illegal(st, "take K:2D,2H", "pile_top_wild", "R8")
    st2 = four("JK JK KC 5D", melds=OPENED, pile="KS JK")
    illegal(st2, "take K:JK,JK", "pile_top_wild", "R8")


def test_r8_pile_top_black_three_cannot_be_taken_even_with_a_pair():
    st = four("3C 3S 3C KC 5D", melds=OPENED, pile="KS 3S")
    illegal(st, "take 3:3C,3S", "pile_top_three", "R8")
    assert st.legal_actions() == [st.legal_actions()[0]] and st.legal_actions()[0].kind == "draw"


def test_r8_empty_pile_cannot_be_taken():
    st = four("KC KD 5D", melds=OPENED, pile="")
    illegal(st, "take K:KC,KD", "pile_empty", "R8")


def test_r8_frozen_pile_needs_natural_pair():
    # frozen (wild inside); the side already has a king meld: the natural pair is still required
    st = four("KC 2H JK 5D 6D", melds=[{"K": "KH KS KD"}, {}], pile="2C 9D KS")
    illegal(st, "take K", "pile_frozen_needs_natural_pair", "R8")
    illegal(st, "take K:KC,2H", "pile_frozen_needs_natural_pair", "R8")
    illegal(st, "take K:KC,2H,JK", "pile_frozen_needs_natural_pair", "R8")
    st2 = four("KC KD 2H 5D 6D", melds=[{"K": "KH KS KD"}, {}], pile="2C 9D KS")
    legal(st2, "take K:KC,KD,2H")  # pair from the hand plus a further wild: fine
    assert len(meld_of(st2, 0, "K")) == 7 and st2.canastas[0] == 1


def test_r8_unfrozen_pile_pair_or_natural_plus_wild_or_existing_meld():
    base = dict(melds=[{"K": "KH KS KD", "A": "AC AD AH"}, {}], pile="9D 5C QS")
    st = four("QC QD 2H 5D 6D", **base)
    legal(st, "take Q:QC,QD")
    st = four("QC QD 2H 5D 6D", **base)
    legal(st, "take Q:QC,2H")
    st = four("QC 5D 6D 7D", **base)
    illegal(st, "take Q:QC", "meld_too_small", "R5")
    st = four("QC 5D 6D 7D", **base)
    illegal(st, "take Q", "meld_too_small", "R5")  # the top card alone is no meld
    base2 = dict(melds=[{"Q": "QH QS QD", "A": "AC AD AH"}, {}], pile="9D 5C QS")
    st = four("5D 6D 7D", **base2)
    legal(st, "take Q")  # adding the top card to the side's meld
    assert len(meld_of(st, 0, "Q")) == 4 and hand_of(st, 0) == sorted(["5D", "6D", "7D", "9D", "5C"])


def test_r8_top_card_group_may_hold_more_hand_cards_and_other_groups_too():
    st = four("QC QD QH 2H JK 7C 7D 7H 5D 6D", melds=OPENED, pile="9D 5C QS")
    legal(st, "take Q:QC,QD,QH,2H,JK 7:7C,7D,7H")
    assert len(meld_of(st, 0, "Q")) == 6 and len(meld_of(st, 0, "7")) == 3
    st2 = four("QC QD 2H 2D 2S JK 5D 6D", melds=OPENED, pile="9D 5C QS")
    illegal(st2, "take Q:QC,QD,2H,2D,2S,JK", "too_many_wilds", "R5")


def test_r8_one_card_cannot_take_one_card_pile():
    st = four("5D", melds=[{"K": "KH KS KD KC KS KH KD"}, {}], pile="KC")
    illegal(st, "take K", "one_card_cannot_take_one_card_pile", "R8")
    st2 = four("5D", melds=[{"K": "KH KS KD KC KS KH KD"}, {}], pile="9C KC")
    legal(st2, "take K")  # a two-card pile is fine
    assert hand_of(st2, 0) == ["5D", "9C"]


def test_r8_play_continues_after_taking_with_pile_cards():
    st = four("KC KD 5D 6D", melds=OPENED, pile="9C 9D 9H KS")
    legal(st, "take K:KC,KD")
    assert st.phase == "play" and st.drew == "pile"
    legal(st, "meld 9:9C,9D,9H")  # the pile's nines, now in the hand
    legal(st, "discard 5D")
    assert st.turn == 1


def test_r8_take_that_empties_the_hand_needs_the_canastas():
    # no canasta: the take would go out
    st = four("KC KD", melds=OPENED, pile="KS")
    illegal(st, "take K:KC,KD", "cannot_go_out_without_canasta", "R10")
    # with a canasta the take goes out
    st2 = four("KC KD", melds=[{"A": "AC AD AH AS AC AD AH"}, {}], pile="KS")
    legal(st2, "take K:KC,KD")
    assert st2.is_over and st2.result.reason == "went_out" and st2.result.went_out == 0


def test_r8_hand_count_after_take_excludes_exposed_red_threes():
    # pile 3H (bottom, exposed on taking), 5D, KC: hand after = 0 + 1 = 1 -> too few
    st = four("KH KS", melds=OPENED, pile="3H 5D KC")
    illegal(st, "take K:KH,KS", "would_leave_one_card_without_canasta", "R10")
    st2 = four("KH KS", melds=OPENED, pile="3H KC")
    illegal(st2, "take K:KH,KS", "cannot_go_out_without_canasta", "R10")
    st3 = four("KH KS", melds=OPENED, pile="3H 5D 6D KC")
    legal(st3, "take K:KH,KS")
    assert hand_of(st3, 0) == ["5D", "6D"] and [card_str(c) for c in st3.red3[0]] == ["3H"]


def test_r8_unopened_side_take_must_meet_the_minimum():
    st = four("KH KS 5D 6D", pile="AC AD KC")
    illegal(st, "take K:KH,KS", "opening_minimum_not_met", "R6")
    st2 = four("KH KS JK 5D 6D", pile="AC AD KC")
    legal(st2, "take K:KH,KS,JK")  # 10 + 20 + 50 = 80 with the top card
    plan = four("KH KS 5D 6D AH AS AD", pile="9C KC").plan_pile_pickup()
    assert plan is not None


# ---------------------------------------------------------------- R9 red threes


def test_r9_red_three_drawn_is_exposed_and_replaced():
    st = four("KH KS 5D", melds=OPENED, stock_top="3H 9C 7D")
    legal(st, "draw")
    assert [card_str(c) for c in st.red3[0]] == ["3H"]
    assert hand_of(st, 0) == sorted(["KH", "KS", "5D", "9C"])
    assert card_str(st.stock[-1]) == "7D"
    ev = st.history[-1]
    assert [card_str(c) for c in ev.red_threes] == ["3H"] and ev.ndrawn == 1


def test_r9_two_card_draw_ends_with_two_non_red_threes():
    st = state("two-player", hands=["KH KS 5D", "4C 4D 6S"], turn=0, melds=[{"A": "AC AD AH"}, {}],
               stock_top="3D 5C 3H 6C 8D")
    legal(st, "draw")
    assert sorted(card_str(c) for c in st.red3[0]) == ["3D", "3H"]
    assert hand_of(st, 0) == sorted(["KH", "KS", "5D", "5C", "6C"])


def _red_three_last(preset, hand0, stock):
    reds = ["3H", "3H", "3D", "3D"]
    for c in stock.split():
        if c in reds:
            reds.remove(c)
    players = 2 if preset.startswith("two") else 4
    others = OTHERS[: players - 1]
    fill = 1
    return state(preset, hands=[hand0, *others], turn=0, melds=[{"A": "AC AD AH"}, {}],
                 stock=stock, fill=fill, red_threes=[reds] + [[] for _ in range(players - 1)])


def test_r9_red_three_as_last_stock_card_ends_the_hand():
    st = _red_three_last("classic", "KH KS 5D", "3H")
    legal(st, "draw")
    assert st.is_over and st.result.reason == "red_three_last"
    assert len(st.red3[0]) == 4
    assert st.result.went_out is None
    side0 = st.result.sides[0]
    assert side0.red_three_bonus == 800 and side0.going_out == 0
    assert hand_of(st, 0) == ["5D", "KH", "KS"]  # no replacement, no melding, no discard


def test_r9_red_three_last_after_a_normal_card_with_draw_count_two():
    st = _red_three_last("two-player", "KH KS 5D", "5C 3D")
    legal(st, "draw")
    assert st.is_over and st.result.reason == "red_three_last"
    assert "5C" in hand_of(st, 0)


def test_r9_red_three_scoring_100_each_800_for_four_negative_if_not_opened():
    from canasta.scoring import red_three_bonus

    assert [red_three_bonus(k, True) for k in range(5)] == [0, 100, 200, 300, 800]
    assert [red_three_bonus(k, False) for k in range(5)] == [0, -100, -200, -300, -800]
    # through a hand: side 1 has not opened and holds two red threes -> -200
    st = four("KH", melds=[{"K": "KC KD KS KC KD KS"}, {}], red_threes=[["3H"], ["3D", "3D"], [], []],
              phase="play")
    legal(st, "meld K:KH")
    assert st.is_over
    s0, s1 = st.result.sides
    assert s0.red_three_bonus == 100 and s1.red_three_bonus == -200


# ---------------------------------------------------------------- R10 going out


def test_r10_going_out_by_melding_every_card():
    st = four("KH KD 9C 9D 9H", melds=[{"K": "KC KS KC KS KH"}, {}], phase="play")
    legal(st, "meld K:KH,KD 9:9C,9D,9H")
    assert st.is_over and st.result.reason == "went_out" and st.result.went_out == 0
    assert not st.result.concealed and st.result.sides[0].going_out == 100


def test_r10_going_out_with_a_final_discard():
    st = four("KH KD 5C", melds=[{"K": "KC KS KC KS KH"}, {}], phase="play")
    illegal(st, "meld K:KH discard 5C", "discard_only_with_last_card", "R10")
    legal(st, "meld K:KH,KD discard 5C")
    assert st.is_over and st.result.went_out == 0 and card_str(st.pile[-1]) == "5C"


def test_r10_discarding_the_last_card_goes_out_with_a_canasta():
    st = four("5C", melds=[{"K": "KC KS KC KS KH KD KH"}, {}], phase="play")
    legal(st, "discard 5C")
    assert st.is_over and st.result.went_out == 0


def test_r10_cannot_go_out_without_canasta():
    st = four("KH KD 9C 9D 9H", melds=[{"K": "KC KS KC"}, {}], phase="play")
    illegal(st, "meld K:KH,KD 9:9C,9D,9H", "cannot_go_out_without_canasta", "R10")
    st2 = four("5C", melds=[{"K": "KC KS KC"}, {}], phase="play")
    illegal(st2, "discard 5C", "cannot_go_out_without_canasta", "R10")


def test_r10_would_leave_one_card_without_canasta():
    st = four("KH KD 5C", melds=[{"K": "KC KS KC"}, {}], phase="play")
    illegal(st, "meld K:KH,KD", "would_leave_one_card_without_canasta", "R10")
    legal(st, "meld K:KH")  # leaves two cards
    # completing the canasta in the same action may leave one card
    st2 = four("KH KD 5C", melds=[{"K": "KC KS KC KS KH"}, {}], phase="play")
    legal(st2, "meld K:KH,KD")
    assert st2.canastas[0] == 1 and hand_of(st2, 0) == ["5C"]


def test_r10_two_player_needs_two_canastas():
    one = {"K": "KC KS KC", "A": "AC AD AH AS AC AD AH"}
    st = state("two-player", hands=["KH KD 5C", "4C 4D 6S"], turn=0, phase="play", melds=[one, {}])
    illegal(st, "meld K:KH,KD", "would_leave_one_card_without_canasta", "R10")
    illegal(st, "meld K:KH,KD discard 5C", "cannot_go_out_without_canasta", "R10")
    st2 = state("two-player", hands=["5C", "4C 4D 6S"], turn=0, phase="play", melds=[one, {}])
    msg = illegal(st2, "discard 5C", "cannot_go_out_without_canasta", "R10")
    assert "1" in msg and "2" in msg
    # completing the second canasta in the action may leave one card, and then going out is allowed
    two = {"K": "KC KS KC KS KD KD", "A": "AC AD AH AS AC AD AH"}
    st3 = state("two-player", hands=["KH 5C", "4C 4D 6S"], turn=0, phase="play", melds=[two, {}])
    legal(st3, "meld K:KH")
    assert st3.canastas[0] == 2
    legal(st3, "discard 5C")
    assert st3.is_over and st3.result.went_out == 0


def test_r10_concealed_going_out_after_a_stock_draw_waives_the_minimum():
    # seven sevens = 35 < 50, side not opened: one action going out concealed is allowed (R6.4)
    st = four("7C 7C 7D 7D 7H 7H 7S 4C", phase="play", drew="stock")
    legal(st, "meld 7:7C,7C,7D,7D,7H,7H,7S discard 4C")
    r = st.result
    assert st.is_over and r.concealed and r.went_out == 0
    assert r.sides[0].going_out == 200 and r.sides[0].natural_canastas == 1
    assert r.sides[0].hand_penalty == 15  # the partner's 5C 5D 6H
    assert r.team_deltas[0] == 35 + 500 + 200 - 15


def test_r10_waiver_only_for_a_one_action_finish():
    st = four("7C 7C 7D 7D 7H 7H 7S 4C", phase="play", drew="stock")
    # melding the canasta first (then discarding) is not one going-out action: minimum applies
    msg = illegal(st, "meld 7:7C,7C,7D,7D,7H,7H,7S", "opening_minimum_not_met", "R6")
    assert "your melds count 35; your side needs 50 to open" in msg


def test_r10_taking_the_pile_never_waives_the_minimum():
    st = four("7C 7C 7D 7D 7H 7H", pile="7S")
    msg = illegal(st, "take 7:7C,7C,7D,7D,7H,7H", "opening_minimum_not_met", "R6")
    assert "35" in msg
    # with enough points a pile-take finish may still be concealed
    st2 = four("KC KC KD KD KH KH", pile="KS")
    legal(st2, "take K:KC,KC,KD,KD,KH,KH")
    assert st2.is_over and st2.result.concealed and st2.result.sides[0].going_out == 200


def test_r10_not_concealed_when_adding_to_an_existing_meld():
    # partner opened with nines; seat 0 has not melded before this turn
    base = dict(melds=[{"9": "9C 9D 9H"}, {}], phase="play", melded=[False, False, True, False])
    st = four("7C 7C 7D 7D 7H 7H 7S 9S 4C", **base)
    legal(st, "meld 7:7C,7C,7D,7D,7H,7H,7S 9:9S discard 4C")
    assert st.is_over and not st.result.concealed and st.result.sides[0].going_out == 100
    st2 = four("7C 7C 7D 7D 7H 7H 7S 4C", **base)
    legal(st2, "meld 7:7C,7C,7D,7D,7H,7H,7S discard 4C")
    assert st2.result.concealed and st2.result.sides[0].going_out == 200


def test_r10_not_concealed_when_the_player_melded_earlier_in_the_hand():
    st = four("7C 7C 7D 7D 7H 7H 7S 4C", melds=[{"9": "9C 9D 9H"}, {}], phase="play",
              melded=[True, False, False, False])
    legal(st, "meld 7:7C,7C,7D,7D,7H,7H,7S discard 4C")
    assert not st.result.concealed


def test_r10_concealed_over_several_actions_in_one_turn_when_side_opened():
    # side opened by the partner: no minimum; seat 0 melds in two actions this turn, all new melds
    st = four("7C 7C 7D 7D 7H 7H 7S KC KD KH 4C", melds=[{"9": "9C 9D 9H"}, {}], phase="play",
              melded=[False, False, True, False])
    legal(st, "meld K:KC,KD,KH")
    legal(st, "meld 7:7C,7C,7D,7D,7H,7H,7S discard 4C")
    assert st.is_over and st.result.concealed


def test_r10_black_threes_meld_only_when_going_out():
    base = dict(melds=[{"K": "KC KS KC KS KH KD KH"}, {}], phase="play")
    st = four("3C 3S 3C 5D 6D", **base)
    illegal(st, "meld 3:3C,3S,3C", "black_threes_only_when_going_out", "R10")
    st = four("3C 3S 3C 5D", **base)
    legal(st, "meld 3:3C,3S,3C discard 5D")
    assert st.is_over and st.result.went_out == 0
    assert st.result.sides[0].melds == 70 + 15  # the black-three meld counts 5 each
    st = four("3C 3S 3C 3S", **base)
    legal(st, "meld 3:3C,3S,3C,3S")
    assert st.is_over
    st = four("3C 3S 5D", **base)
    illegal(st, "meld 3:3C,3S discard 5D", "black_three_meld_size", "R10")
    st = four("3C 3S 2D 5D", **base)
    illegal(st, "meld 3:3C,3S,2D discard 5D", "black_three_meld_with_wild", "R10")


def test_r10_black_three_meld_not_allowed_in_two_player_quick():
    st = state("two-player-quick", hands=["3C 3S 3C 5D", "4C 4D 6S"], turn=0, phase="play",
               melds=[{"K": "KC KS KC KS KH KD KH"}, {}])
    illegal(st, "meld 3:3C,3S,3C discard 5D", "black_three_meld_not_allowed", "R10")


def test_r10_can_go_out_solver_finds_a_finish():
    st = four("KH KD 9C 9D 9H 5C", melds=[{"K": "KC KS KC KS KH"}, {}], phase="play")
    go = st.can_go_out()
    assert go is not None and st.check(go) is None
    st.apply(go)
    assert st.is_over and st.result.went_out == 0
    st2 = four("KH KD 9C 5C 6D", melds=[{"K": "KC KS KC"}, {}], phase="play")
    assert st2.can_go_out() is None


def test_r10_not_concealed_without_a_canasta_of_its_own():
    # the side's canasta is the partner's; seat 0 goes out with new melds but no canasta of its own
    st = four("KC KD KH 9C 9D 9H 4C", melds=[{"A": "AC AD AH AS AC AD AH"}, {}], phase="play",
              melded=[False, False, True, False])
    legal(st, "meld K:KC,KD,KH 9:9C,9D,9H discard 4C")
    assert st.is_over and not st.result.concealed and st.result.sides[0].going_out == 100


def test_r10_black_three_meld_in_a_going_out_pile_take():
    st = four("KC KD 3C 3S 3C", melds=[{"A": "AC AD AH AS AC AD AH"}, {}], pile="KS")
    legal(st, "take K:KC,KD 3:3C,3S,3C")
    assert st.is_over and st.result.went_out == 0


def test_r10_black_threes_in_a_take_that_does_not_go_out():
    st = four("KC KD 3C 3S 3C 5D", melds=[{"A": "AC AD AH AS AC AD AH"}, {}], pile="KS")
    illegal(st, "take K:KC,KD 3:3C,3S,3C", "black_threes_only_when_going_out", "R10")


def test_r10_checking_and_applying_forms():
    from canasta import IllegalAction, action_from_text

    st = four("KH KD 5C", melds=[{"K": "KC KS KC"}, {}], phase="play")
    with pytest.raises(IllegalAction) as info:
        st.verify(action_from_text("meld K:KH,KD"))
    assert info.value.code == "would_leave_one_card_without_canasta"
    assert st.can(action_from_text("meld K:KH")) and not st.can(action_from_text("meld K:KH,KD"))


def test_r10_concealed_finish_by_discarding_the_last_card_after_melds_this_turn():
    # the side opened through the partner; seat 0 melds all in this turn, then discards its last card
    st = four("7C 7C 7D 7D 7H 7H 7S KC KD KH 4C", melds=[{"9": "9C 9D 9H"}, {}], phase="play",
              melded=[False, False, True, False])
    legal(st, "meld 7:7C,7C,7D,7D,7H,7H,7S")
    legal(st, "meld K:KC,KD,KH")
    legal(st, "discard 4C")
    assert st.is_over and st.result.went_out == 0 and st.result.concealed
    assert st.result.sides[0].going_out == 200


def test_r10_take_that_completes_the_canasta_may_leave_one_card():
    st = four("KC KD", melds=[{"K": "KH KS KH KS"}, {}], pile="5D KD")
    legal(st, "take K:KC,KD")
    assert st.canastas[0] == 1 and hand_of(st, 0) == ["5D"]
    legal(st, "discard 5D")  # and may then go out with the discard
    assert st.is_over and st.result.went_out == 0
    st2 = four("KC KD", melds=[{"K": "KH KS KH"}, {}], pile="5D KD")
    illegal(st2, "take K:KC,KD", "would_leave_one_card_without_canasta", "R10")
