"""Scenario tests for RULES.md R11-R14, built from explicit positions."""

from __future__ import annotations

import pytest

from canasta import Game, Settings, action_from_text, position_to_json, state_from_position
from canasta.actions import Answer

from .helpers import hand_of, illegal, legal, make_position, meld_of, state

OTHERS = ["4C 4D 6S", "5C 5D 6H", "8C 8D JS"]
ASK = {"preset": "classic", "ask_partner": True}
CAN_GO = dict(melds=[{"K": "KC KS KC KS KH"}, {}], phase="play")


def asking(seat0: str = "KH KD 5C", **kw):
    params = dict(CAN_GO)
    params.update(kw)
    return state(ASK, hands=[seat0, *OTHERS], turn=0, **params)


# ---------------------------------------------------------------- R11 "May I go out?"


def test_r11_ask_then_yes_binds_the_asker_to_go_out():
    st = asking()
    legal(st, "ask")
    assert st.phase == "ask" and st.turn == 2  # the partner acts
    assert st.legal_actions() == [Answer(True), Answer(False)]
    illegal(st, "discard 6H", "awaiting_answer", "R11")
    illegal(st, "meld K:KH", "awaiting_answer", "R11")
    # the position with a pending question round-trips
    again = state_from_position(position_to_json(st))
    assert position_to_json(again) == position_to_json(st)
    legal(st, "yes")
    assert st.turn == 0 and st.phase == "play" and st.ask == "yes"
    illegal(st, "discard 5C", "must_go_out_after_yes", "R11")
    illegal(st, "meld K:KH", "must_go_out_after_yes", "R11")
    illegal(st, "ask", "already_asked", "R11")
    legal(st, "meld K:KH,KD discard 5C")
    assert st.is_over and st.result.went_out == 0


def test_r11_yes_then_complete_going_out():
    st = asking("KH KD 5C")
    legal(st, "ask")
    legal(st, "yes")
    assert st.legal_actions() == [st.can_go_out()]
    legal(st, "meld K:KH,KD discard 5C")
    assert st.is_over and st.result.went_out == 0


def test_r11_no_forbids_going_out_this_turn():
    st = asking("KH KD 5C")
    legal(st, "ask")
    legal(st, "no")
    assert st.turn == 0 and st.ask == "no"
    illegal(st, "meld K:KH,KD discard 5C", "partner_said_no", "R11")
    illegal(st, "meld K:KH,KD", "must_keep_two_cards_after_no", "R11")
    illegal(st, "ask", "already_asked", "R11")
    assert all(st.check(a) is None for a in st.legal_actions())
    legal(st, "meld K:KH")  # keeps two cards
    legal(st, "discard 5C")  # leaves one card: fine
    assert not st.is_over and st.turn == 1


def test_r11_no_forbids_discarding_the_last_card():
    st = asking("KH 5C", melds=[{"K": "KC KS KC KS KH KD KD"}, {}])
    legal(st, "ask")
    legal(st, "no")
    illegal(st, "meld K:KH discard 5C", "partner_said_no", "R11")
    illegal(st, "meld K:KH", "must_keep_two_cards_after_no", "R11")
    legal(st, "discard 5C")  # leaves one card
    assert st.turn == 1
    st2 = asking("5C 6C", melds=[{"K": "KC KS KC KS KH KD KH"}, {}],
                 turn_state={"ask": "no", "asker": 0})
    legal(st2, "discard 5C")
    assert st2.turn == 1
    # one card left after 'no' (a constructed position): discarding it would go out
    st3 = asking("5C", melds=[{"K": "KC KS KC KS KH KD KH"}, {}], turn_state={"ask": "no", "asker": 0})
    illegal(st3, "discard 5C", "partner_said_no", "R11")


def test_r11_ask_only_when_going_out_is_possible():
    st = asking("KH 9C 5C 6C")
    illegal(st, "ask", "cannot_go_out_now", "R11")


def test_r11_ask_before_melding_only():
    st = asking("KH KD 9C 9D 9H 5C")
    legal(st, "meld 9:9C,9D,9H")
    illegal(st, "ask", "ask_before_melding", "R11")


def test_r11_ask_disabled_by_default_and_answer_without_question():
    st = state(hands=["KH KD 5C", *OTHERS], turn=0, **CAN_GO)
    illegal(st, "ask", "ask_disabled", "R11")
    illegal(st, "yes", "no_question", "R11")
    st2 = asking()
    illegal(st2, "no", "no_question", "R11")


def test_r11_going_out_without_asking_is_legal():
    st = asking("KH KD 5C")
    legal(st, "meld K:KH,KD discard 5C")
    assert st.is_over


def test_r11_ask_in_the_draw_phase_is_illegal():
    st = asking(phase="draw")
    illegal(st, "ask", "must_draw_first", "R4")


def test_r11_ask_listed_only_when_possible():
    st = asking("KH KD 5C")
    assert any(a.kind == "ask" for a in st.legal_actions())
    st2 = asking("KH 9C 5C 6C")
    assert not any(a.kind == "ask" for a in st2.legal_actions())


def test_r11_setting_only_for_four_players():
    from canasta import SettingsError

    for name in ("two-player", "two-player-quick", "three-player"):
        with pytest.raises(SettingsError) as info:
            Settings.preset(name, ask_partner=True)
        assert "ask_partner" in info.value.message
    assert Settings.preset("bicycle", ask_partner=True).ask_partner


# ---------------------------------------------------------------- R12 empty stock

REDS = [["3H", "3H"], ["3D", "3D"], [], []]


def test_r12_take_is_compulsory_when_the_top_matches_an_unfrozen_meld():
    st = state(hands=["4C 4D", "KH 9S 6S", "5C 5D", "8C 8D"], turn=1, fill=2, red_threes=REDS,
               melds=[{"A": "AC AD AH"}, {"K": "KC KD KS"}], pile="9D KC")
    assert st.stock == [] and st.take_is_compulsory()
    acts = st.legal_actions()
    assert acts and all(a.kind == "take" for a in acts)
    illegal(st, "decline", "pile_take_compulsory", "R12")
    illegal(st, "draw", "stock_empty", "R12")
    legal(st, "take K")
    assert len(meld_of(st, 1, "K")) == 4 and "9D" in hand_of(st, 1)


def test_r12_take_not_compulsory_without_matching_meld_decline_ends_the_hand():
    st = state(hands=["4C 4D", "KH KS 6S", "5C 5D", "8C 8D"], turn=1, fill=2, red_threes=REDS,
               melds=[{"A": "AC AD AH"}, {"Q": "QC QD QS"}], pile="9D KC")
    assert not st.take_is_compulsory()
    kinds = sorted(a.kind for a in st.legal_actions())
    assert kinds == ["decline", "take"]
    legal(st, "decline")
    assert st.is_over and st.result.reason == "declined" and st.result.went_out is None
    assert all(s.going_out == 0 for s in st.result.sides)


def test_r12_frozen_pile_take_is_not_compulsory():
    st = state(hands=["4C 4D", "KH KS 6S", "5C 5D", "8C 8D"], turn=1, fill=2, red_threes=REDS,
               melds=[{"A": "AC AD AH"}, {"K": "KC KD KS"}], pile="2C 9D KC")
    assert not st.take_is_compulsory()
    assert sorted(a.kind for a in st.legal_actions()) == ["decline", "take"]
    legal(st, "take K:KH,KS")
    assert st.phase == "play"


def test_r12_cannot_decline_with_stock():
    st = state(hands=["4C 4D", "KH KS 6S", "5C 5D", "8C 8D"], turn=1,
               melds=[{"A": "AC AD AH"}, {"Q": "QC QD QS"}], pile="9D KC")
    illegal(st, "decline", "cannot_decline", "R12")


def test_r12_hand_ends_at_once_when_the_next_player_cannot_take():
    st = state(hands=["5C 6S 7S", "4C 4D 6H", "9C 9D", "8C 8D JS"], turn=0, fill=2, red_threes=REDS,
               melds=[{"A": "AC AD AH"}, {}], pile="9H", phase="play")
    assert st.stock == []
    legal(st, "discard 5C")
    assert st.is_over and st.result.reason == "stock_empty" and st.result.went_out is None
    assert all(s.going_out == 0 for s in st.result.sides)


def test_r12_empty_stock_position_without_any_move_is_rejected():
    from canasta import FormatError

    pos = make_position(hands=["4C 4D", "KH 9S 6S", "5C 5D", "8C 8D"], turn=1, fill=2, red_threes=REDS,
                        melds=[{"A": "AC AD AH"}, {"K": "KC KD KS"}], pile="9D 7C")
    with pytest.raises(FormatError):
        state_from_position(pos)


def test_r12_draw_of_two_with_one_stock_card_draws_one():
    st = state("two-player", hands=["KH KS 5D", "4C 4D 6S"], turn=0, melds=[{"A": "AC AD AH"}, {}],
               stock="6C", fill=1, red_threes=[["3H", "3H"], ["3D", "3D"]])
    legal(st, "draw")
    assert st.stock == [] and hand_of(st, 0) == sorted(["KH", "KS", "5D", "6C"]) and st.phase == "play"


# ---------------------------------------------------------------- R13 scoring

WORKED = dict(
    hands=["4S", "9C 9D 6C", "JK 5C", "TC TD JS"],
    melds=[{"K": "KC KC KD KD KH KH KS", "8": "8C 8C 8D 8D 8H 2C 2D", "A": "AC AD AH"}, {}],
    red_threes=[["3H"], [], [], []],
    scores=[1200, 0],
    turn=0,
    phase="play",
    melded=[True, False, True, False],
)


def test_r13_worked_example_hand_scores_1165_total_2365():
    st = state(**WORKED)
    legal(st, "discard 4S")  # seat 0 goes out, not concealed
    r = st.result
    assert r.reason == "went_out" and r.went_out == 0 and not r.concealed
    s0 = r.sides[0]
    assert (s0.natural_canastas, s0.mixed_canastas, s0.canasta_bonus) == (1, 1, 800)
    assert (s0.red_threes, s0.red_three_bonus, s0.going_out) == (1, 100, 100)
    assert s0.melds == 220 and s0.hand_penalty == 55
    assert s0.total == 1165 and r.team_deltas[0] == 1165
    assert st.scores[0] + r.team_deltas[0] == 2365
    assert r.to_json()["sides"][0]["total"] == 1165


def test_r13_worked_example_through_a_game():
    g = Game(Settings.preset("classic"), seed=1, first_dealer=3)
    g.state = state(**WORKED)
    g.scores = [1200, 0]
    g.apply(action_from_text("discard 4S"))
    assert g.scores[0] == 2365
    assert not g.is_over
    g.next_hand()
    assert g.state.scores[0] == 2365 and g.state.opening_minimum(0) == 90  # seed 004: now 90


def _game_from(st, scores, **overrides):
    g = Game(Settings.preset(st.settings.name, **overrides), seed=1, first_dealer=st.dealer)
    if overrides:
        pos = position_to_json(st)
        pos["settings"] = g.settings.to_json()
        st = state_from_position(pos)
    g.state = st
    g.scores = list(scores)
    return g


def _deltas(text, **kw):
    st = state(**kw)
    st.apply(action_from_text(text))
    return list(st.result.team_deltas)


def test_r13_match_ends_at_target_higher_total_wins():
    g = _game_from(state(**WORKED), [4000, 0])
    g.apply(action_from_text("discard 4S"))
    assert g.is_over and g.winners == [0] and g.scores[0] == 5165
    from canasta import CanastaError

    with pytest.raises(CanastaError):
        g.next_hand()


def test_r13_below_target_plays_another_hand_with_the_deal_passing_left():
    g = _game_from(state(**WORKED), [0, 0])
    g.apply(action_from_text("discard 4S"))
    assert not g.is_over and g.winners == []
    d = g.state.dealer
    g.next_hand()
    assert g.state.dealer == (d + 1) % 4 and g.state.hand_number == 2


@pytest.mark.parametrize("target", [1500, 2500])
def test_r13_other_targets(target):
    g = _game_from(state(**WORKED), [target - 1165, 0], target=target)
    g.apply(action_from_text("discard 4S"))
    assert g.is_over and g.winners == [0]
    g2 = _game_from(state(**WORKED), [target - 1166, 0], target=target)
    g2.apply(action_from_text("discard 4S"))
    assert not g2.is_over


def test_r13_finishing_first_is_not_winning():
    d0, d1 = _deltas("discard 4S", **WORKED)
    # side 0 goes out and passes 5000, but side 1 finishes the hand with a higher total
    g = _game_from(state(**WORKED), [3900, 5100 - d1 + 100])
    g.apply(action_from_text("discard 4S"))
    assert g.is_over and g.scores[0] == 5065 and g.scores[1] == 5200
    assert g.winners == [1]


def test_r13_seed004_side_at_4900_can_still_lose():
    # side 1 sits at 4,900; side 0 (at 3,900) has the bigger final hand and wins
    d0, d1 = _deltas("discard 4S", **WORKED)
    g = _game_from(state(**WORKED), [3900, 4900])
    g.apply(action_from_text("discard 4S"))
    assert g.scores == [3900 + d0, 4900 + d1]
    assert g.is_over and g.winners == [0]


@pytest.mark.parametrize("tie,over", [("play_on", False), ("draw", True)])
def test_r13_tie_at_target_follows_the_tie_setting(tie, over):
    d0, d1 = _deltas("discard 4S", **WORKED)
    g = _game_from(state(**WORKED), [5000 - d0, 5000 - d1], tie=tie)
    g.apply(action_from_text("discard 4S"))
    assert g.scores == [5000, 5000]
    assert g.is_over is over
    assert g.winners == ([0, 1] if over else [])
    if not over:
        g.next_hand()  # play on


SYMMETRIC = dict(
    hands=["4C 4D", "7S 7H", "5C 5D", "6C 6D"],
    melds=[{"K": "KC KD KH"}, {"Q": "QC QD QH"}],
    pile="7C",
    fill="pile",
    turn=1,
)


@pytest.mark.parametrize("tie", ["play_on", "draw"])
def test_r13_one_hand_target_a_tie_is_a_shared_win_whatever_tie_says(tie):
    st = state(**SYMMETRIC)
    g = _game_from(st, [0, 0], target="one_hand", tie=tie)
    g.apply(action_from_text("decline"))
    assert g.state.result.reason == "declined"
    assert g.state.result.team_deltas[0] == g.state.result.team_deltas[1] == 10
    assert g.is_over and g.winners == [0, 1]
    assert not g.won(0) and not g.won(1)  # every side level: a draw, nobody's win


def test_r13_one_hand_target_single_hand_decides():
    g = _game_from(state(**WORKED), [0, 4000], target="one_hand")
    g.apply(action_from_text("discard 4S"))
    assert g.is_over and g.winners == [0]  # the hand's scores decide, not the totals


def test_r13_scores_accumulate_and_record_replays():
    import random

    g = Game(Settings.preset("two-player", target=1500), seed=21)
    rng = random.Random(4)
    totals = [0, 0]
    for _ in range(60):
        while not g.state.is_over:
            g.apply(rng.choice(g.state.legal_actions()))
        for t, d in enumerate(g.state.result.team_deltas):
            totals[t] += d
        assert g.scores == totals
        if g.is_over:
            break
        g.next_hand()
    again = Game.from_record(g.to_record())
    assert again.scores == g.scores and again.is_over == g.is_over and again.winners == g.winners


# ---------------------------------------------------------------- R14 three-player game

THREE = dict(
    hands=["QC QD 7C 8C", "KC 9D 6D 7D", "2S 7H 7S 6H 5D"],
    melds=[{"A": "AC AD AH"}, {"K": "KC KD 2C 2H"}, {"K": "KH KS JK 2D", "9": "9H 9S 9C"}],
    red_threes=[[], ["3H"], ["3D", "3D", "3H"]],
    pile="9C 5C QS",
    scores=[0, 1500, 3000],
    turn=0,
    melded=[True, True, True],
)


def three(**kw):
    params = dict(THREE)
    params.update(kw)
    return state("three-player", **params)


def test_r14_each_player_alone_until_the_first_pile_take():
    st = three()
    assert st.side_of == [0, 1, 2] and not st.merged
    assert [st.opening_minimum(s) for s in range(3)] == [50, 90, 120]


def test_r14_first_taker_plays_alone_the_others_merge_their_melds():
    st = three(pile="9D 5C QS", hands=["QC QD 7C 8C", "KD 6D 7D 8D", "2S 7H 7S 6H 5D"],
               melds=[{"A": "AC AD AH"}, {"K": "KC KD 2C 2H"}, {"K": "KH KS JK 2D", "9": "9H 9S 9C"}])
    legal(st, "take Q:QC,QD")
    assert st.merged
    assert st.side_of[1] == st.side_of[2] != st.side_of[0]
    side = st.side_of[1]
    assert meld_of(st, side, "K") == sorted("KC KD 2C 2H KH KS JK 2D".split())
    assert meld_of(st, side, "9") == sorted("9H 9S 9C".split())
    assert st.canastas[side] == 1  # the merged 8-card king meld is a (mixed) canasta
    assert st.melds[side][12].wilds == 4  # merged melds keep all their cards
    legal(st, "discard 8C")
    # seat 1: no further wild on the over-limit meld; naturals are fine
    legal(st, "draw")
    assert st.check(action_from_text("meld K:KD")) is None  # adds to the shared meld


def test_r14_no_wild_on_a_merged_meld_over_the_limit():
    st = three(hands=["QC QD 7C 8C", "KD 2S 6D 7D", "7H 7S 6H 5D 8S"], sides=[0, 1, 1], merged=True,
               melds=[{"A": "AC AD AH"}, {"K": "KC KD 2C 2H KH KS JK 2D", "9": "9H 9S 9C"}, {}],
               phase="play", turn=1, melded=[True, True, True])
    illegal(st, "meld K:2S", "too_many_wilds", "R5")
    legal(st, "meld K:KD")


def test_r14_partnership_opened_once_either_partner_melded():
    # seat 2 never melded, its own minimum would be 120; after the merge its side has opened
    st = three(hands=["QC QD 7C 8C", "KD 6D 7D 8D", "7H 7S 7D 5D 6H"], sides=[0, 1, 1], merged=True,
               melds=[{"A": "AC AD AH"}, {"K": "KC KD 2C"}, {}], turn=2, phase="play",
               melded=[True, True, False])
    legal(st, "meld 7:7H,7S,7D")


def test_r14_opening_minimum_from_own_score_before_the_merge():
    st = three(hands=["QC QD 7C 8C", "KD 6D 7D 8D", "7H 7S 7D AS AH 6H"], turn=2, phase="play",
               melds=[{"A": "AC AD AC"}, {}, {}], melded=[True, False, False])
    msg = illegal(st, "meld 7:7H,7S,7D", "opening_minimum_not_met", "R6")
    assert "needs 120" in msg


def test_r14_partners_score_together_red_threes_count_together():
    st = three(hands=["5C", "KD 6D", "7H 7S"], sides=[0, 1, 1], merged=True, turn=0, phase="play",
               melds=[{"A": "AC AD AH AS AC AD AH"}, {"K": "KC KD 2C 2H KH KS JK 2D", "9": "9H 9S 9C"}, {}],
               melded=[True, True, True])
    legal(st, "discard 5C")
    r = st.result
    assert r.went_out == 0
    by_side = {s.side: s for s in r.sides}
    partners = by_side[st.side_of[1]]
    assert partners.seats == (1, 2)
    assert partners.red_threes == 4 and partners.red_three_bonus == 800
    assert r.team_deltas[1] == r.team_deltas[2] == partners.total
    assert r.team_deltas[0] == by_side[0].total
    assert partners.total == (150 + 30) + 300 + 800 - (15 + 10)
    assert r.team_deltas[0] == 140 + 500 + 100


def test_r14_partnership_red_threes_negative_only_if_not_opened():
    st = three(hands=["5C", "KD 6D", "7H 7S"], sides=[0, 1, 1], merged=True, turn=0, phase="play",
               melds=[{"A": "AC AD AH AS AC AD AH"}, {}, {}], melded=[True, False, False])
    legal(st, "discard 5C")
    partners = [s for s in st.result.sides if s.seats == (1, 2)][0]
    assert partners.red_three_bonus == -800


def test_r14_nobody_took_the_pile_all_three_score_alone():
    st = three(hands=["5C", "KD 6D", "7H 7S"], turn=0, phase="play",
               melds=[{"A": "AC AD AH AS AC AD AH"}, {"K": "KC KD 2C"}, {"9": "9H 9S 9C"}])
    legal(st, "discard 5C")
    r = st.result
    assert len(r.sides) == 3
    assert r.team_deltas[1] == 40 + 100 - 15
    assert r.team_deltas[2] == 30 + 300 - 10
    assert r.team_deltas[0] == 140 + 500 + 100


def test_r14_only_the_first_take_merges():
    st = three(hands=["QC QD 7C 8C", "KD 2S 7D 8D", "7H 7S 6H 5D 8S"], sides=[0, 1, 1], merged=True,
               melds=[{"A": "AC AD AH"}, {"K": "KC KD 2C"}, {}], turn=1, pile="9D 5C 7C",
               melded=[True, True, False])
    legal(st, "take 7:7D,2S")
    assert st.side_of == [0, 1, 1] and st.merged
    assert meld_of(st, 0, "A") == ["AC", "AD", "AH"] and meld_of(st, 1, "7") == ["2S", "7C", "7D"]


@pytest.mark.parametrize("tie,over", [("play_on", False), ("draw", True)])
def test_r14_three_player_tie_at_the_top(tie, over):
    kw = dict(hands=["5C", "KD 6D", "7H 7S"], turn=0, phase="play",
              melds=[{"A": "AC AD AH AS AC AD AH"}, {"K": "KC KD 2C"}, {"9": "9H 9S 9C"}])
    st = three(**kw)
    st.apply(action_from_text("discard 5C"))
    d = st.result.team_deltas
    g = _game_from(three(**kw), [5000 - d[0], 5000 - d[1], 0], tie=tie)
    g.apply(action_from_text("discard 5C"))
    assert g.scores[:2] == [5000, 5000]
    assert g.is_over is over and g.winners == ([0, 1] if over else [])
    # two of the three share the win (R14): each of them won, the third lost
    assert [g.won(t) for t in range(3)] == ([True, True, False] if over else [False] * 3)


def test_r14_partners_share_a_one_hand_win():
    kw = dict(hands=["5C", "KD 6D", "7H 7S"], sides=[0, 1, 1], merged=True, turn=0, phase="play",
              melds=[{"A": "AC AD AH AS AC AD AH"}, {"K": "KC KD 2C 2H KH KS JK 2D", "9": "9H 9S 9C"}, {}],
              melded=[True, True, True])
    g = _game_from(three(**kw), [0, 0, 0], target="one_hand")
    g.apply(action_from_text("discard 5C"))  # the lone player goes out, and still loses
    assert g.is_over and g.winners == [1, 2] and g.scores == [740, 1255, 1255]
    assert [g.won(t) for t in range(3)] == [False, True, True]


def test_r14_three_player_one_hand_highest_wins():
    kw = dict(hands=["5C", "KD 6D", "7H 7S"], turn=0, phase="play",
              melds=[{"A": "AC AD AH AS AC AD AH"}, {"K": "KC KD 2C"}, {"9": "9H 9S 9C"}])
    g = _game_from(three(**kw), [0, 0, 0], target="one_hand")
    g.apply(action_from_text("discard 5C"))
    assert g.is_over and g.winners == [0]


def test_r11_yes_then_concealed_finish_waives_the_minimum():
    st = state(ASK, hands=["7C 7C 7D 7D 7H 7H 7S 4C", *OTHERS], turn=0, phase="play", drew="stock")
    legal(st, "ask")
    legal(st, "yes")
    go = st.can_go_out()
    assert go is not None and st.legal_actions() == [go]
    st.apply(go)
    assert st.is_over and st.result.concealed and st.result.sides[0].going_out == 200
