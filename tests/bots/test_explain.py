"""Advice (R15 suggestion): the Normal policy's choice for a seat's view, with a structured reason."""

from __future__ import annotations

import json
import random
from collections import Counter

from canasta import Game, Resampler, Settings, action_from_text
from canasta.bots import make_player
from canasta.bots.evaluate import Memory
from canasta.bots.explain import Advice, advise, explain, suggestion_kind
from canasta.bots.policy import NORMAL, Policy
from tests.bots.hands import normal_decisions
from tests.core.helpers import state

OTHERS = ["4C 4D 6S", "5C 5D 6H", "8C 8D JS"]


def four(hand: str, **kw):  # type: ignore[no-untyped-def]
    return state("classic", hands=[hand, *OTHERS], turn=0, **kw)


def _advice(st) -> Advice:  # type: ignore[no-untyped-def]
    advice = advise(st.view(st.turn))
    assert st.check(advice.action) is None
    json.dumps(advice.reason.to_json())  # JSON values only
    return advice


def test_r15_every_decision_of_bot_hands_has_legal_advice_with_a_reason() -> None:
    kinds: Counter[str] = Counter()
    for st, _ in normal_decisions([("classic", 1), ("two-player", 2), ("three-player", 3), ("bicycle", 4)]):
        advice = _advice(st)
        code = advice.reason.code
        assert code and " " not in code  # a code, never a sentence
        kind = suggestion_kind(advice)
        kinds[kind] += 1
        if st.phase == "draw":
            assert kind in ("draw", "pile_pickup", "decline")
        elif st.phase == "play":
            assert kind in ("meld", "discard", "go_out", "ask")
    assert {"draw", "pile_pickup", "meld", "discard", "go_out"} <= set(kinds)


def test_r15_advice_is_the_normal_players_choice_and_blind_to_hidden_cards() -> None:
    game = Game(Settings.preset("classic", target="one_hand"), seed=8)
    st = game.state
    checked = 0
    for _ in range(40):
        if st.is_over:
            break
        seat = st.turn
        view = st.view(seat)
        other = Resampler(view).sample(random.Random(5))
        a = advise(view)
        assert advise(other.view(seat)) == a
        assert make_player("normal", seed=0).choose(view) == a.action
        checked += 1
        game.apply(a.action)
        st = game.state
    assert checked == 40


def test_r7_draw_reason_frozen_pile_and_no_pair_of_the_top_rank() -> None:
    # a buried wild freezes the pile; one natural 9 cannot take it
    st = four("9C 2H KH KD 5D 6D QS", melds=[{"8": "8C 8D 8H"}, {}], pile="5C 2C 7D 9S")
    advice = _advice(st)
    assert advice.action.kind == "draw"
    assert advice.reason.to_json() == {
        "code": "draw_cannot_take", "why": "pile_frozen_needs_natural_pair",
        "rank": "9", "naturals": 1, "needed": 2, "causes": ["wild"],
    }


def test_r8_1_draw_reason_black_three_on_top() -> None:
    st = four("9C 9D KH KD 5D 6D QS", melds=[{"8": "8C 8D 8H"}, {}], pile="9S 3C")
    advice = _advice(st)
    assert advice.action.kind == "draw"
    assert advice.reason.to_json() == {"code": "draw_cannot_take", "why": "pile_top_three", "card": "3C"}


def test_r6_3_take_reason_counts_the_opening() -> None:
    # a pile of 12 with a king on top, the side has not opened: K K + the top king (30) and
    # three aces (60) open with 90 of 50
    pile = "4C 4D 5C 5D 6C 6D 7C 7D 8S 9S JS KC"
    st = four("KH KD AH AD AS 5H 6H 7H QD", pile=pile)
    advice = _advice(st)
    assert advice.action.kind == "take"
    reason = advice.reason.to_json()
    assert reason["code"] == "take_opens" and reason["size"] == 12 and reason["rank"] == "K"
    assert reason["minimum"] == 50 and reason["count"] >= 50
    assert reason["count"] == st.opening_count(advice.action)


def test_r5_meld_reason_completes_a_canasta() -> None:
    st = four("KH KD 5D 6D 9C 9D", phase="play", melds=[{"K": "KC KS KH KD 2C"}, {}])
    advice = _advice(st)
    assert advice.action == action_from_text("meld K:KD,KH")
    assert advice.reason.to_json() == {
        "code": "meld_canasta", "rank": "K", "size": 7, "groups": 1, "left": 4, "natural": False,
    }


def test_r5_meld_reason_onto_a_canasta_says_it_grows_not_that_it_nears_one() -> None:
    # a canasta of kings (7 cards, R5) already: another king makes it bigger, not "closer"
    st = four("KH 5D 6D 9C 9D", phase="play", melds=[{"K": "KC KS KD KC KS KD 2C"}, {}])
    action = action_from_text("meld K:KH")
    assert st.check(action) is None
    reason = explain(st, action).to_json()
    assert reason["code"] == "meld_on_canasta" and reason["rank"] == "K" and reason["size"] == 8
    # below seven cards the meld still nears one
    st = four("KH 5D 6D 9C 9D", phase="play", melds=[{"K": "KC KS KD 2C"}, {}])
    assert explain(st, action).to_json()["code"] == "meld_add"


def test_discard_reason_a_black_three_stops_the_next_player() -> None:
    st = four("3C 9H QH JD 7C", phase="play", melds=[{"8": "8C 8D 8H"}, {"5": "5H 5S 5D"}], pile="4H 6D 7S 9C KS")
    advice = _advice(st)
    assert advice.action == action_from_text("discard 3C")
    assert advice.reason.code == "discard_black_three" and advice.reason.params["card"] == "3C"


def _round_after_the_next_player_threw_a_seven():  # type: ignore[no-untyped-def]
    """Seat 1 (next after us) discards 7S, seats 2 and 3 draw and discard, we draw."""
    st = state(
        "classic",
        hands=["7C QH QD JD 9H KS AH", "7S 4C 4D 6S", "5C 5D 6H JC", "8C 8D JS 9S"],
        melds=[{"A": "AC AD AS"}, {"5": "5H 5S 5D"}],
        pile="4H 6D",
        stock_top="TC TD TH",
        turn=1,
        phase="play",
    )
    for text in ("discard 7S", "draw", "discard JC", "draw", "discard JS", "draw"):
        st.apply(action_from_text(text))
    assert st.turn == 0 and st.phase == "play"
    return st


def test_discard_reason_safe_when_the_next_player_just_threw_that_rank() -> None:
    st = _round_after_the_next_player_threw_a_seven()
    memory = Memory.from_history(st.history, 4)
    reason = explain(st, action_from_text("discard 7C"), memory)
    assert reason.to_json() == {"code": "discard_next_just_discarded", "card": "7C", "rank": "7", "opponents": 2}
    _advice(st)


def test_discard_reason_a_rank_neither_opponent_has_melded() -> None:
    st = _round_after_the_next_player_threw_a_seven()
    memory = Memory.from_history(st.history, 4)
    reason = explain(st, action_from_text("discard 9H"), memory)
    assert reason.to_json() == {"code": "discard_unmelded_single", "card": "9H", "rank": "9", "opponents": 2}


def test_r11_answer_reason_names_the_rule_of_thumb() -> None:
    policy = Policy(NORMAL)
    st = state(
        {"preset": "classic", "ask_partner": True},
        hands=["QH QS QD 9C", "4C 4D 6S", "5C 5D", "8C 8D JS"],
        melds=[{"K": "KC KS KH KD KC KS KH"}, {}],
        turn=0, phase="play",
    )
    st.apply(action_from_text("ask"))
    assert st.phase == "ask"
    advice = _advice(st)
    yes, why, params = policy.answer_why(st)
    assert advice.reason.code == ("answer_yes_" if yes else "answer_no_") + why
    assert advice.reason.params == params
    assert why == "low_penalty" and params == {"points": 10}
