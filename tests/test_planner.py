"""The pile-pickup planner and the going-out solver find legal actions whenever one exists."""

from __future__ import annotations

from canasta.actions import action_to_text
from tests.core.helpers import state


def test_r8_r10_take_that_goes_out_when_a_simple_take_would_leave_one_card() -> None:
    # Seat 0 holds KS KS QH; the pile is one king; the side's queens are one short of a canasta.
    # Taking with the pair alone would leave the queen (R10.2, no canasta): illegal. Taking with the
    # pair and adding the queen completes the canasta and goes out: legal, so the planner finds it.
    st = state(
        hands=["KS KS QH", "4C 4D 5C 5D 6C", "4H 4S 5H 5S 6D", "7C 7D 8C 8D 9C"],
        melds=[{"Q": "QC QC QD QD QS QS"}, {}],
        pile="KD",
        turn=0,
    )
    plan = st.plan_pile_pickup()
    assert plan is not None
    assert st.check(plan) is None
    st.apply(plan)
    assert st.is_over and st.result is not None and st.result.went_out == 0
    assert "take" in action_to_text(plan)


def test_r10_solver_finds_going_out_with_a_discard_and_wilds_to_finish_the_canasta() -> None:
    st = state(
        hands=["5C 5D 5H 2C JK 9S", "4C 4D 7S 6C 6D", "4H 4S 6H 6S 7D", "7C 8D 8C 8H 9C"],
        melds=[{"5": "5S 5S 5D 5H"}, {}],
        pile="TC",
        turn=0,
        phase="play",
        drew="stock",
    )
    go = st.can_go_out()
    assert go is not None and st.check(go) is None
    st.apply(go)
    assert st.is_over and st.result is not None and st.result.went_out == 0


def test_r6_r10_unopened_take_holds_back_cards_to_keep_two() -> None:
    # Unopened side needs 50. Melding everything (kings with the top, five queens) counts 80 but
    # leaves no card without a canasta (R10.2); holding back two queens still counts 60.
    st = state(
        hands=["KS KS QH QH QD QD QS", "4C 4D 5C 5D 6C", "4H 4S 5H 5S 6D", "7C 7D 8C 8D 9C"],
        pile="KD",
        turn=0,
    )
    plan = st.plan_pile_pickup()
    assert plan is not None and st.check(plan) is None
    st.apply(plan)
    assert len(st.hands[0]) == 2
    assert st.opened(0)


def test_r6_no_pickup_when_the_minimum_needs_the_whole_hand() -> None:
    st = state(
        hands=["KS KS QH QH QD", "4C 4D 5C 5D 6C", "4H 4S 5H 5S 6D", "7C 7D 8C 8D 9C"],
        pile="KD",
        turn=0,
    )
    assert st.plan_pile_pickup() is None
    assert all(a.kind != "take" for a in st.legal_actions())


def test_r6_opening_count_of_a_take_counts_the_top_card_and_hand_cards_only() -> None:
    st = state(
        hands=["KS KS QH QH QD QD QS", "4C 4D 5C 5D 6C", "4H 4S 5H 5S 6D", "7C 7D 8C 8D 9C"],
        pile="AS JK KD",
        turn=0,
    )
    from canasta import action_from_text

    assert st.opening_count(action_from_text("take K:KS,KS Q:QH,QH,QD")) == 10 + 20 + 30
    assert st.opening_count(action_from_text("draw")) == 0
