"""Scenario tests for RULES.md R1-R6, built from explicit positions."""

from __future__ import annotations

from collections import Counter

import pytest

from canasta import Game, Settings, SettingsError, opening_minimum
from canasta.cards import VALUE, card_str, full_deck, parse_card

from .helpers import hand_of, illegal, legal, meld_of, state

OTHERS = ["4C 4D 6S", "5C 5D 6H", "8C 8D 9S"]  # harmless hands for seats 1..3


def four(seat0: str, **kw):  # a classic position with seat 0 to act
    return state(hands=[seat0, *OTHERS], turn=0, **kw)


# ---------------------------------------------------------------- R0 vocabulary


def test_r0_sides_and_teams():
    from canasta.cards import F_BLACK3, F_RED3, FACE, IS_WILD

    assert Game(Settings.preset("classic"), seed=1).state.side_of == [0, 1, 0, 1]
    assert Game(Settings.preset("two-player"), seed=1).state.side_of == [0, 1]
    assert Game(Settings.preset("three-player"), seed=1).state.side_of == [0, 1, 2]
    v = Game(Settings.preset("classic"), seed=1).state.view(0).to_json()
    assert v["teams"] == [0, 1, 0, 1] and v["sides"] == [0, 1, 0, 1]
    # the teams keeping the totals: the partnerships, else each seat (R14 in three-player)
    for preset, teams in (("classic", [0, 1, 0, 1]), ("two-player", [0, 1]), ("three-player", [0, 1, 2])):
        s = Settings.preset(preset)
        assert [s.team_of(seat) for seat in range(s.players)] == teams
        assert list(Game(s, seed=1).state.team_of) == teams
    assert [IS_WILD[parse_card(c)] for c in ("2C", "2H", "JK", "AS", "3C", "KH")] == [
        True, True, True, False, False, False]
    assert FACE[parse_card("3H")] == FACE[parse_card("3D")] == F_RED3
    assert FACE[parse_card("3C")] == FACE[parse_card("3S")] == F_BLACK3


def test_r0_canasta_natural_or_mixed():
    st = state(hands=["KH 2C 9C 9D 9H", "4C 4D 6S", "5C 5D 6H", "8C 8D JS"], turn=0, phase="play",
               melds=[{"K": "KC KC KD KD KS KS"}, {}])
    legal(st, "meld 9:9C,9D,9H")
    assert st.canastas[0] == 0
    legal(st, "meld K:KH")
    m = st.melds[0][parse_card("KH") // 4]
    assert m.is_canasta and m.is_natural
    legal(st, "meld K:2C")
    assert st.melds[0][parse_card("KH") // 4].is_canasta and not st.melds[0][parse_card("KH") // 4].is_natural


# ---------------------------------------------------------------- R1 cards and values


def test_r1_pack_has_108_cards_two_decks_and_four_jokers():
    deck = full_deck()
    assert len(deck) == 108
    counts = Counter(card_str(c) for c in deck)
    assert counts["JK"] == 4
    assert all(k == 2 for c, k in counts.items() if c != "JK")
    assert len(counts) == 53


@pytest.mark.parametrize(
    "card,value",
    [("JK", 50), ("AS", 20), ("2C", 20), ("2H", 20), ("KD", 10), ("QH", 10), ("JC", 10), ("TS", 10),
     ("9D", 10), ("8C", 10), ("7H", 5), ("6S", 5), ("5D", 5), ("4C", 5), ("3C", 5), ("3S", 5)],
)
def test_r1_card_values(card, value):
    assert VALUE[parse_card(card)] == value


def test_r1_values_decide_the_opening_count():
    # K K JK = 10 + 10 + 50 = 70 >= 50; 7 7 7 = 15 < 50
    st = four("KH KS JK 7C 7D 7H 9C 9D", phase="play")
    msg = illegal(st, "meld 7:7C,7D,7H", "opening_minimum_not_met", "R6")
    assert "15" in msg and "50" in msg
    legal(st, "meld K:KH,KS,JK")
    assert st.opened(0)


# ---------------------------------------------------------------- R2 settings and presets


@pytest.mark.parametrize(
    "name,expected",
    [
        ("classic", dict(players=4, hand_size=11, draw_count=1, canastas_to_go_out=1, black_three="stop")),
        ("bicycle", dict(players=4, hand_size=11, draw_count=1, canastas_to_go_out=1, black_three="freeze")),
        ("two-player", dict(players=2, hand_size=15, draw_count=2, canastas_to_go_out=2, black_three="stop")),
        ("three-player", dict(players=3, hand_size=13, draw_count=2, canastas_to_go_out=1, black_three="stop")),
        ("two-player-quick", dict(players=2, hand_size=15, draw_count=2, canastas_to_go_out=1,
                                  wild_limit="outnumber", wilds_on_canasta=False,
                                  black_three_meld_on_going_out=False)),
    ],
)
def test_r2_presets_match_the_table(name, expected):
    s = Settings.preset(name)
    for key, value in expected.items():
        assert getattr(s, key) == value, key
    assert s.target == 5000 and s.tie == "play_on" and s.ask_partner is False
    if name != "two-player-quick":
        assert s.wild_limit == "classic" and s.wilds_on_canasta and s.black_three_meld_on_going_out


def test_r2_classic_is_the_default():
    assert Settings.preset() == Settings.preset("classic")
    assert Game(seed=1).settings == Settings.preset("classic")


def test_r2_settings_are_overridable_individually_and_round_trip():
    s = Settings.preset("classic", target=1500, tie="draw", hand_size=13, draw_count=2,
                        canastas_to_go_out=2, black_three="freeze", wild_limit="outnumber",
                        wilds_on_canasta=False, black_three_meld_on_going_out=False, ask_partner=True)
    assert (s.target, s.tie, s.hand_size, s.draw_count, s.canastas_to_go_out) == (1500, "draw", 13, 2, 2)
    assert Settings.from_json(s.to_json()) == s
    assert Settings.preset("three-player", hand_size=11).hand_size == 11
    assert Settings.preset("classic", hand_size=15).hand_size == 15  # 4 x 15 = 60 is allowed
    assert Settings.preset("classic", target="one_hand").target == "one_hand"
    for t in (5000, 2500, 1500):
        assert Settings.preset("two-player", target=t).target == t


@pytest.mark.parametrize(
    "preset,override,name",
    [
        ("classic", {"hand_size": 4}, "hand_size"),
        ("classic", {"hand_size": 16}, "hand_size"),
        ("classic", {"draw_count": 3}, "draw_count"),
        ("classic", {"draw_count": 0}, "draw_count"),
        ("classic", {"canastas_to_go_out": 0}, "canastas_to_go_out"),
        ("classic", {"canastas_to_go_out": 4}, "canastas_to_go_out"),
        ("classic", {"target": 3000}, "target"),
        ("classic", {"target": "two_hands"}, "target"),
        ("classic", {"tie": "coin"}, "tie"),
        ("classic", {"black_three": "block"}, "black_three"),
        ("classic", {"wild_limit": "none"}, "wild_limit"),
        ("classic", {"wilds_on_canasta": "maybe"}, "wilds_on_canasta"),
        ("classic", {"players": 3}, "players"),
        ("two-player", {"ask_partner": True}, "ask_partner"),
        ("three-player", {"ask_partner": True}, "ask_partner"),
        ("classic", {"jokers": 6}, "jokers"),
    ],
)
def test_r2_invalid_override_is_a_settings_error_naming_the_setting(preset, override, name):
    with pytest.raises(SettingsError) as info:
        Settings.preset(preset, **override)
    assert name in info.value.code or name in info.value.message
    assert name in info.value.message


def test_r2_unknown_preset_is_a_settings_error():
    with pytest.raises(SettingsError) as info:
        Settings.preset("five-player")
    assert info.value.code == "unknown_preset"
    assert "five-player" in info.value.message


# ---------------------------------------------------------------- R3 deal


def _deal_deck(hand_cards: list[str], turned: list[str], replacements: list[str]) -> list[str]:
    """A deck whose first cards are the 44 dealt cards, the turned-up cards, then replacements."""
    top = hand_cards + turned + replacements
    rest = Counter(card_str(c) for c in full_deck())
    rest.subtract(top)
    assert min(rest.values()) >= 0
    # Remaining cards in canonical order; red threes are all used above
    tail = [c for c in sorted(rest) for _ in range(rest[c])]
    return top + tail


def _dealt_44(specials: dict[int, str]) -> list[str]:
    """44 cards for the deal: ``specials`` (deck index -> card), other slots plain naturals."""
    plain = [f"{r}{s}" for r in "45689TJA" for s in "CDHS" for _ in range(2)]
    out = []
    it = iter(plain)
    for i in range(44):
        out.append(specials[i] if i in specials else next(it))
    return out


def test_r3_deal_from_explicit_deck_top_card_first_and_red_threes_replaced_in_turn_order():
    # Dealer 0: deck[0] goes to seat 1, deck[1] to seat 2, deck[2] to seat 3, deck[3] to seat 0...
    dealt = _dealt_44({0: "3D", 2: "3H"})
    deck = _deal_deck(dealt, ["2C", "JK", "3H", "7C"], ["3D", "KC", "QS"])
    g = Game(Settings.preset("classic"), decks=[deck], first_dealer=0)
    st = g.state
    assert st.dealer == 0 and st.turn == 1 and st.phase == "draw"
    for seat in range(4):
        k = (seat - 1) % 4
        expected = [dealt[i] for i in range(k, 44, 4)]
        got = [card_str(c) for c in st.hands[seat]]
        assert len(got) == 11
        for c in expected:
            if c not in ("3D", "3H"):
                assert c in got
    # R3.3: wild, joker and red three turned up and stay in the pile; the natural 7C stops it
    assert [card_str(c) for c in st.pile] == ["2C", "JK", "3H", "7C"]
    assert st.frozen_causes(0) == ["wild", "red_three", "not_opened"]
    assert st.view(1).to_json()["pile"]["causes"][1] == ["wild", "red_three", "not_opened"]
    # R3.4: seat 1 first (its replacement is a red three, replaced again), then seat 3
    assert [card_str(c) for c in st.red3[1]] == ["3D", "3D"]
    assert [card_str(c) for c in st.red3[3]] == ["3H"]
    assert st.red3[0] == [] and st.red3[2] == []
    assert "KC" in hand_of(st, 1) and "QS" in hand_of(st, 3)
    assert "KC" not in [dealt[i] for i in range(0, 44, 4)]
    reds = [e for e in st.history if e.action is None]
    assert [e.seat for e in reds] == [1, 3]
    assert len(st.stock) == 108 - 44 - 4 - 3
    assert st.total_cards() == 108


def test_r3_first_dealer_from_seed_and_deal_passes_left():
    dealers = {Game(Settings.preset("classic"), seed=s).state.dealer for s in range(40)}
    assert dealers == {0, 1, 2, 3}  # chosen at random from the seed
    g = Game(Settings.preset("classic", target="one_hand"), seed=3)
    assert Game(Settings.preset("classic"), seed=3).state.dealer == g.state.dealer  # reproducible
    g = Game(Settings.preset("classic"), seed=5)
    d0 = g.state.dealer
    assert g.state.turn == (d0 + 1) % 4
    _finish_randomly(g)
    if not g.is_over:
        g.next_hand()
        assert g.state.dealer == (d0 + 1) % 4
        assert g.state.turn == (d0 + 2) % 4


def _finish_randomly(g: Game, seed: int = 0) -> None:
    import random

    rng = random.Random(seed)
    while not g.state.is_over:
        g.apply(rng.choice(g.state.legal_actions()))


@pytest.mark.parametrize("preset,frozen", [("classic", False), ("bicycle", True)])
def test_r3_black_three_turned_up_first_follows_the_setting(preset, frozen):
    dealt = _dealt_44({})
    deck = _deal_deck(dealt, ["3C"], [])
    g = Game(Settings.preset(preset), decks=[deck], first_dealer=2)
    st = g.state
    assert [card_str(c) for c in st.pile] == ["3C"]
    assert st.turn == 3
    assert ("black_three" in st.frozen_causes(1)) is frozen
    # it is the top card: the first player cannot take the pile
    view = st.view(3).to_json()
    assert view["pile"]["blocked"] is True


def test_r3_deal_hand_sizes_per_preset():
    for name, size in [("classic", 11), ("two-player", 15), ("three-player", 13), ("bicycle", 11),
                       ("two-player-quick", 15)]:
        st = Game(Settings.preset(name), seed=11).state
        assert all(len(h) == size for h in st.hands)
        assert st.total_cards() == 108
        assert not any(card_str(c) in ("3H", "3D") for h in st.hands for c in h)


# ---------------------------------------------------------------- R4 a turn


def test_r4_meld_or_discard_before_drawing_is_illegal():
    st = four("KH KS KD 5C", melds=[{"A": "AC AD AH"}, {}])
    illegal(st, "meld K:KH,KS,KD", "must_draw_first", "R4")
    illegal(st, "discard 5C", "must_draw_first", "R4")
    legal(st, "draw")
    assert st.phase == "play" and len(st.hands[0]) == 5


def test_r4_second_draw_is_illegal_and_discard_ends_turn():
    st = four("KH KS KD 5C", melds=[{"A": "AC AD AH"}, {}], phase="play")
    illegal(st, "draw", "already_drew", "R4")
    illegal(st, "discard 9H", "card_not_in_hand", "R4")
    legal(st, "discard 5C")  # a player may always discard without melding
    assert st.turn == 1 and st.phase == "draw"
    assert card_str(st.pile[-1]) == "5C"


def test_r4_several_groups_in_one_action_and_one_group_per_rank():
    st = four("KH KS KD KC 8C 8D 8H 5C", phase="play")
    illegal(st, "meld K:KH,KS,KD 8:8C,8D,8H K:KC", "duplicate_rank", "R4")
    legal(st, "meld K:KH,KS,KD 8:8C,8D,8H")
    assert meld_of(st, 0, "K") == ["KD", "KH", "KS"] and meld_of(st, 0, "8") == ["8C", "8D", "8H"]


def test_r4_a_side_cannot_add_to_the_other_sides_meld():
    # Side 1 has kings; seat 0's single king would have to start its own (too small) meld.
    st = four("KH 9C 9D 9H 5C", melds=[{"A": "AC AD AH"}, {"K": "KC KD KS"}], phase="play")
    illegal(st, "meld K:KH", "meld_too_small", "R5")
    assert meld_of(st, 1, "K") == ["KC", "KD", "KS"]


# ---------------------------------------------------------------- R5 melds

OPENED = [{"A": "AC AD AH"}, {}]


def test_r5_q_q_2_is_legal():
    st = four("QH QS 2C 5C 6C", melds=OPENED, phase="play")
    legal(st, "meld Q:QH,QS,2C")
    m = st.melds[0][parse_card("QH") // 4]
    assert (m.naturals, m.wilds) == (2, 1)


def test_r5_q_2_joker_is_illegal_one_natural():
    st = four("QH 2C JK 5C 6C", melds=OPENED, phase="play")
    illegal(st, "meld Q:QH,2C,JK", "meld_needs_two_naturals", "R5")


def test_r5_two_naturals_two_wilds_is_legal():
    st = four("QH QS 2C JK 5C 6C", melds=OPENED, phase="play")
    legal(st, "meld Q:QH,QS,2C,JK")


def test_r5_four_wilds_is_too_many():
    st = four("QH QS QD QC 2C 2D 2H JK 5C 6C", melds=OPENED, phase="play")
    illegal(st, "meld Q:QH,QS,QD,QC,2C,2D,2H,JK", "too_many_wilds", "R5")
    legal(st, "meld Q:QH,QS,QD,QC,2C,2D,2H")


def test_r5_only_wilds_is_never_a_meld():
    st = four("2C 2D JK 5C 6C", melds=OPENED, phase="play")
    illegal(st, "meld Q:2C,2D,JK", "meld_needs_two_naturals", "R5")


def test_r5_runs_and_small_melds_are_not_melds():
    st = four("4C 5C 6C 9C 9D 7H", melds=OPENED, phase="play")
    illegal(st, "meld 4:4C,5C,6C", "card_does_not_match_rank", "R5")
    illegal(st, "meld 9:9C,9D", "meld_too_small", "R5")


def test_r5_threes_and_wild_ranks_are_not_meld_ranks():
    from canasta import FormatError, action_from_text

    with pytest.raises(FormatError):
        action_from_text("meld 2:2C,2D,2H")
    st = four("9C 9D 9H 7H", melds=OPENED, phase="play")
    illegal(st, "meld 9:9C,9D,3H", "red_three_cannot_meld", "R5")


def test_r5_black_threes_never_meld_outside_going_out():
    st = four("3C 3S 3C 9C 9D 7H 5D", melds=OPENED, phase="play")
    illegal(st, "meld 3:3C,3S,3C", "black_threes_only_when_going_out", "R10")
    illegal(st, "meld 9:9C,9D,3C", "black_three_cannot_meld", "R10")


def test_r5_naturals_of_a_melded_rank_join_the_existing_meld():
    st = four("KH KD 2C 9C 5D", melds=[{"K": "KC KS KH"}, {}], phase="play")
    legal(st, "meld K:KH,KD")  # two kings alone join the meld (not a second meld)
    assert meld_of(st, 0, "K") == ["KC", "KD", "KH", "KH", "KS"]
    # the partner (seat 2) adds to the same meld
    st2 = state(hands=["9S 9H 5C", "4C 4D 6S", "KD 7C 7D", "8C 8D 9S"], turn=2,
                melds=[{"K": "KC KS KH"}, {}], phase="play")
    legal(st2, "meld K:KD")
    assert len(meld_of(st2, 0, "K")) == 4


def test_r5_canasta_at_seven_cards_more_may_be_added_within_the_wild_limit():
    st = four("KD 2C 2D 9C 5D 6D", melds=[{"K": "KC KS KH KC KS KH"}, {}], phase="play")
    legal(st, "meld K:KD")
    assert st.canastas[0] == 1 and st.melds[0][12].is_natural
    legal(st, "meld K:2C")  # a wild on a natural canasta makes it mixed
    assert st.canastas[0] == 1 and not st.melds[0][12].is_natural
    st2 = four("KD 2C 9C 5D 6D", melds=[{"K": "KC KS KH KC 2H 2S JK"}, {}], phase="play")
    illegal(st2, "meld K:2C", "too_many_wilds", "R5")
    legal(st2, "meld K:KD")


def test_r5_wilds_on_canasta_no_forbids_wilds_on_completed_canasta():
    quick = "two-player-quick"
    st = state(quick, hands=["KD 2C 9C 9D 5D 6D", "4C 4D 6S"], melds=[{"K": "KC KS KH KC KS KH KD"}, {}],
               phase="play", turn=0)
    illegal(st, "meld K:2C", "no_wilds_on_canasta", "R5")
    legal(st, "meld K:KD")  # naturals are still fine
    # A meld reaching seven in this action may hold wilds (mixed canasta), and so may a new 7+ meld.
    st2 = state(quick, hands=["KD 2C 9C 9D 5D 6D", "4C 4D 6S"], melds=[{"K": "KC KS KH KC KS"}, {}],
                phase="play", turn=0)
    legal(st2, "meld K:KD,2C")
    assert st2.canastas[0] == 1 and st2.melds[0][12].wilds == 1
    st3 = state(quick, hands=["QC QC QD QD QH 2C 2D 5D 6D", "4C 4D 6S"], melds=[{"K": "KC KS KH"}, {}],
                phase="play", turn=0)
    legal(st3, "meld Q:QC,QC,QD,QD,QH,2C,2D")
    assert st3.canastas[0] == 1


def test_r5_outnumber_naturals_must_outnumber_wilds():
    quick = "two-player-quick"
    st = state(quick, hands=["KD KH 2C 2D 9C 5D 6D 7D", "4C 4D 6S"], melds=[{"A": "AC AD AH"}, {}],
               phase="play", turn=0)
    illegal(st, "meld K:KD,KH,2C,2D", "wilds_outnumber_naturals", "R5")
    legal(st, "meld K:KD,KH,2C")
    st2 = state(quick, hands=["KD KH 2C 2D 9C 5D 6D 7D", "4C 4D 6S"], melds=[{"K": "KC KS 2S"}, {}],
                phase="play", turn=0)
    illegal(st2, "meld K:2C", "wilds_outnumber_naturals", "R5")
    legal(st2, "meld K:KD,2C")


# ---------------------------------------------------------------- R6 opening minimum


@pytest.mark.parametrize(
    "score,minimum", [(-5, 15), (-1000, 15), (0, 50), (1495, 50), (1500, 90), (2995, 90), (3000, 120), (9000, 120)]
)
def test_r6_minimum_by_cumulative_score(score, minimum):
    assert opening_minimum(score) == minimum
    st = four("AC AD AH AS JK JK 2C 9C 9D", phase="play", scores=[score, 0])
    assert st.opening_minimum(0) == minimum
    assert st.view(0).to_json()["opening_minimums"][0] == minimum


def test_r6_opening_minimum_not_met_message_has_the_numbers():
    st = four("QH QS 2C 4C 4S 9D 9H", phase="play")
    msg = illegal(st, "meld Q:QH,QS,2C", "opening_minimum_not_met", "R6")
    assert "your melds count 40; your side needs 50 to open" in msg


def test_r6_45_is_not_enough_for_50():
    st = four("KH KS KD 5C 5S 5D 8H 7C", phase="play")
    msg = illegal(st, "meld K:KH,KS,KD 5:5C,5S,5D", "opening_minimum_not_met", "R6")
    assert "your melds count 45; your side needs 50 to open" in msg
    st2 = four("QH QS 2C 4C 4S 4D 5D 9H", phase="play")  # Q Q 2 = 40, 4 4 4 = 15 -> 55
    legal(st2, "meld Q:QH,QS,2C 4:4C,4S,4D")
    st3 = four("QH QS JK 4C 4S 4D 5D 9H", phase="play")  # 70
    legal(st3, "meld Q:QH,QS,JK")


def test_r6_several_groups_count_together_and_bonuses_never_count():
    st = four("KH KS KD 8C 8D 8H 5C 9D", phase="play")
    illegal(st, "meld K:KH,KS,KD", "opening_minimum_not_met", "R6")
    illegal(st, "meld 8:8C,8D,8H", "opening_minimum_not_met", "R6")
    legal(st, "meld K:KH,KS,KD 8:8C,8D,8H")  # 30 + 30 = 60
    # a canasta of sevens counts 35 (its 500 bonus never counts); red threes do not count either
    st2 = four("7C 7C 7D 7D 7H 7H 7S 9C 9D", phase="play", red_threes=[["3H", "3H"], [], [], []])
    msg = illegal(st2, "meld 7:7C,7C,7D,7D,7H,7H,7S", "opening_minimum_not_met", "R6")
    assert "your melds count 35" in msg


def test_r6_higher_minimum_from_score():
    st = four("AC AD AS KH KS KD 9C 9D", phase="play", scores=[1500, 0])
    msg = illegal(st, "meld A:AC,AD,AS", "opening_minimum_not_met", "R6")
    assert "your melds count 60; your side needs 90 to open" in msg
    legal(st, "meld A:AC,AD,AS K:KH,KS,KD")
    st2 = four("7C 7D 7H 9C 9D", phase="play", scores=[-20, 0])
    legal(st2, "meld 7:7C,7D,7H")  # 15 is enough below zero
    st3 = four("AC AD AS KH KS KD JK 9C 9D", phase="play", scores=[3000, 0])
    msg = illegal(st3, "meld A:AC,AD,AS K:KH,KS,KD", "opening_minimum_not_met", "R6")
    assert "120" in msg
    legal(st3, "meld A:AC,AD,AS K:KH,KS,KD,JK")


def test_r6_pile_opening_counts_top_card_and_hand_cards_only():
    # The pile holds aces and a joker below the top king; only KC (top) + KH KS count: 30.
    st = four("KH KS 8C 8D 8H 5C 9D", pile="AC AD JK AH KC")
    msg = illegal(st, "take K:KH,KS", "opening_minimum_not_met", "R6")
    assert "your melds count 30; your side needs 50 to open" in msg
    legal(st, "take K:KH,KS 8:8C,8D,8H")  # 30 + 30 = 60
    assert st.opened(0) and "JK" in hand_of(st, 0) and "AH" in hand_of(st, 0)


def test_r6_once_a_partner_has_opened_any_legal_meld_is_allowed():
    st = state(hands=["9S 9H 5C", "4C 4D 6S", "7C 7D 7H 5D 6D", "8C 8D 9S"], turn=2,
               melds=[{"K": "KC KS KH"}, {}], phase="play")
    legal(st, "meld 7:7C,7D,7H")  # 15 points, no minimum any more


def test_r6_minimum_depends_on_the_side_of_the_player():
    # side 1 at 3000 (120), side 0 at 0 (50)
    st = state(hands=["4C 4D 6S", "KH KS KD AC AD AS 9C", "5C 5D 6H", "8C 8D 9S"], turn=1,
               phase="play", scores=[0, 3000])
    msg = illegal(st, "meld K:KH,KS,KD A:AC,AD,AS", "opening_minimum_not_met", "R6")
    assert "your melds count 90; your side needs 120 to open" in msg


@pytest.mark.parametrize("preset,players,size", [("two-player", 2, 15), ("three-player", 3, 13)])
def test_r3_deal_order_with_fewer_players(preset, players, size):
    deck = _deal_deck(_plain(players * size), ["9C"], [])
    dealer = players - 1
    g = Game(Settings.preset(preset), decks=[deck], first_dealer=dealer)
    st = g.state
    assert st.turn == 0
    for seat in range(players):
        k = (seat - dealer - 1) % players
        assert [card_str(c) for c in st.hands[seat]] == [deck[i] for i in range(k, players * size, players)]
    assert [card_str(c) for c in st.pile] == ["9C"]
    assert len(st.stock) == 108 - players * size - 1


def _plain(n):
    cards = [f"{r}{s}" for r in "45678TJQKA" for s in "CDHS" for _ in range(2)]
    return cards[:n]
