"""Malformed input: positions, action notation, cards, settings, decks and records."""

from __future__ import annotations

import copy

import pytest

from canasta import (
    CanastaError,
    FormatError,
    Game,
    IllegalAction,
    Settings,
    SettingsError,
    action_from_json,
    action_from_text,
    state_from_position,
)
from canasta.cards import full_deck, parse_card, parse_cards

from .helpers import make_position

OTHERS = ["4C 4D 6S", "5C 5D 6H", "8C 8D JS"]


def base():
    return make_position(hands=["KH KS 9C", *OTHERS], melds=[{"A": "AC AD AH"}, {}], pile="7C",
                         turn=0)


def bad(pos, code="bad_position", *words):
    with pytest.raises(FormatError) as info:
        state_from_position(pos)
    assert info.value.code == code, info.value
    for w in words:
        assert w in info.value.message, info.value.message
    return info.value


def test_position_base_is_valid():
    st = state_from_position(base())
    assert st.total_cards() == 108


def test_position_wrong_card_count():
    pos = base()
    pos["stock"].pop()
    bad(pos, "bad_position", "107", "108")
    pos = base()
    pos["hands"][1].append("KD")
    bad(pos, "bad_position", "109")


def test_position_duplicate_beyond_two_decks():
    pos = base()
    pos["stock"].remove("KS")
    pos["hands"][1].append("KH")  # a third KH, still 108 cards
    bad(pos, "bad_position", "3 × KH")
    pos = base()
    pos["stock"].remove("5H")
    pos["hands"][2].append("JK")  # a fifth joker
    bad(pos, "bad_position", "a pack has")


def test_position_red_three_in_hand():
    pos = base()
    pos["stock"].remove("3H")
    pos["hands"][0].append("3H")
    bad(pos, "bad_position", "red three")


def test_position_format_and_version():
    bad("not a position", "bad_position")
    bad({"format": "canasta-record", "version": 1}, "bad_position")
    pos = base()
    pos["version"] = 99
    bad(pos, "bad_position_version", "99")


@pytest.mark.parametrize(
    "mutate,words",
    [
        (lambda p: p.update(turn=7), ["turn"]),
        (lambda p: p.update(dealer=-1), ["dealer"]),
        (lambda p: p.update(phase="sleeping"), ["phase"]),
        (lambda p: p.update(phase="over"), ["finished"]),
        (lambda p: p.update(scores=[0]), ["scores"]),
        (lambda p: p.update(scores=[0, "ten"]), ["scores"]),
        (lambda p: p.update(hand_number=0), ["hand_number"]),
        (lambda p: p["hands"].pop(), ["hands"]),
        (lambda p: p.update(hands="KH"), ["hands"]),
        (lambda p: p["turn_state"].update(drew="stock"), ["drew"]),
        (lambda p: p["turn_state"].update(ask="pending"), ["ask"]),
        (lambda p: p["turn_state"].update(ask="maybe"), ["ask"]),
        (lambda p: p.update(settings={"preset": "classic", "hand_size": 99}), ["hand_size"]),
        (lambda p: p.update(sides=[0, 1, 0, 5]), ["sides"]),
        (lambda p: p.update(melds=[{}]), ["melds"]),
    ],
)
def test_position_inconsistent_fields(mutate, words):
    pos = base()
    mutate(pos)
    with pytest.raises(FormatError) as info:
        state_from_position(pos)
    assert info.value.code.startswith("bad_position")
    msg = info.value.message
    assert any(w in msg for w in words), msg


def test_position_illegal_melds():
    pos = base()
    pos["melds"][0]["A"] = ["AC", "AD"]
    pos["stock"].append("AH")
    bad(pos, "bad_position", "meld A")
    pos = base()
    pos["melds"][0]["A"] = ["AC", "AD", "KD"]
    pos["stock"].remove("KD")
    pos["stock"].append("AH")
    bad(pos, "bad_position", "another rank")
    pos = base()
    pos["melds"][0]["3"] = ["3C", "3C", "3S"]
    for c in ["3C", "3C", "3S"]:
        pos["stock"].remove(c)
    bad(pos, "bad_position", "black-three")


def test_position_red_threes_list_and_pile_order():
    pos = base()
    pos["stock"].remove("5H")
    pos["red_threes"][0] = ["5H"]
    bad(pos, "bad_position", "red threes")
    pos = base()
    pos["stock"].remove("3H")
    pos["pile"] = ["7C", "3H", "9D"]
    pos["stock"].remove("9D")
    bad(pos, "bad_position", "red three")


def test_position_known_cards_must_be_in_the_hand():
    pos = base()
    pos["known"][0] = ["QC"]
    bad(pos, "bad_position", "QC")


@pytest.mark.parametrize(
    "text",
    ["", "   ", "fly", "draw now", "discard", "discard ZZ", "discard 5C 6C", "meld",
     "meld K:KH,XX", "meld 2:2C,2D,2H", "meld 1:AC,AD,AH", "take K:KH discard 5C",
     "meld K:KH,KS,KD discard", "meld K:KH discard 5C 6C", "yes please", "answer"],
)
def test_malformed_action_text(text):
    with pytest.raises(FormatError) as info:
        action_from_text(text)
    assert info.value.code in ("bad_action", "bad_card", "bad_rank")
    assert info.value.message


@pytest.mark.parametrize(
    "data",
    [5, None, [], {"kind": "draw"}, {"type": "fly"}, {"type": "answer"}, {"type": "answer", "yes": "y"},
     {"type": "discard"}, {"type": "discard", "card": "ZZ"}, {"type": "discard", "card": 7},
     {"type": "meld", "groups": []}, {"type": "meld", "groups": "K:KH"}, {"type": "meld"},
     {"type": "meld", "groups": [{"cards": ["KH"]}]}, {"type": "meld", "groups": [{"rank": "K", "cards": "KH"}]},
     {"type": "meld", "groups": [{"rank": "2", "cards": ["2C", "2D", "2H"]}]},
     {"type": "meld", "groups": [{"rank": "K", "cards": ["KH", "KS", "KD"]}], "discard": "XX"},
     {"type": "take", "groups": [{"rank": "K", "cards": ["KH"]}] * 30},
     {"type": "take", "groups": {"rank": "K"}}],
)
def test_malformed_action_json(data):
    with pytest.raises(FormatError) as info:
        action_from_json(data)
    assert info.value.code in ("bad_action", "bad_card", "bad_rank", "bad_cards")


@pytest.mark.parametrize("text", ["1C", "KX", "", "K", "KHH", "10H", "JJ"])
def test_malformed_cards(text):
    with pytest.raises(FormatError) as info:
        parse_card(text)
    assert info.value.code == "bad_card"


def test_card_notation_is_documented_and_round_trips():
    from canasta.cards import card_str

    for c in range(53):
        assert parse_card(card_str(c)) == c
        assert parse_card(card_str(c).lower()) == c
    assert parse_cards("KH, TD JK") == [parse_card("KH"), parse_card("TD"), parse_card("JK")]
    with pytest.raises(FormatError):
        parse_cards(5)
    with pytest.raises(FormatError):
        parse_card(None)


@pytest.mark.parametrize(
    "data,name",
    [
        ({"preset": "classic", "hand_size": "11"}, "hand_size"),
        ({"preset": "classic", "target": 1000}, "target"),
        ({"preset": "classic", "tie": None}, "tie"),
        ({"preset": "classic", "house_rule": 1}, "house_rule"),
        ({"preset": "nope"}, "nope"),
        ({"preset": "classic", "draw_count": True}, "draw_count"),
        ({"preset": "classic", "target": True}, "target"),
        ({"preset": "two-player", "players": 4}, "players"),
    ],
)
def test_invalid_settings_json_names_the_setting(data, name):
    with pytest.raises(SettingsError) as info:
        Settings.from_json(data)
    assert name in info.value.message
    assert info.value.code


def test_settings_json_must_be_an_object():
    with pytest.raises(SettingsError):
        Settings.from_json(5)
    assert Settings.from_json("bicycle") == Settings.preset("bicycle")


def test_malformed_decks_and_dealer():
    deck = full_deck()
    with pytest.raises(FormatError) as info:
        Game(Settings.preset("classic"), decks=[deck[:-1]])
    assert info.value.code == "bad_deck"
    dup = list(deck)
    dup[0] = dup[-1]  # a fifth joker, one card missing
    with pytest.raises(FormatError) as info:
        Game(Settings.preset("classic"), decks=[dup])
    assert info.value.code == "bad_deck"
    with pytest.raises(FormatError):
        Game(Settings.preset("classic"), decks=[["ZZ"] * 108])
    with pytest.raises(FormatError):
        Game(Settings.preset("classic"), seed=1, first_dealer=4)


def _record():
    import random

    g = Game(Settings.preset("classic", target="one_hand"), seed=9)
    rng = random.Random(9)
    while not g.state.is_over:
        g.apply(rng.choice(g.state.legal_actions()))
    return g.to_record()


def test_malformed_records():
    rec = _record()
    assert Game.from_record(rec).scores == rec["scores"]
    for broken, code in [
        ("x", "bad_record"),
        ({**rec, "format": "canasta-position"}, "bad_record"),
        ({**rec, "version": 7}, "bad_record_version"),
        ({**rec, "hands": []}, "bad_record"),
        ({**rec, "seed": 1.5}, "bad_record"),
    ]:
        with pytest.raises(FormatError) as info:
            Game.from_record(broken)
        assert info.value.code == code
    r2 = copy.deepcopy(rec)
    r2["hands"][0]["actions"][0] = "fly away"
    with pytest.raises(FormatError):
        Game.from_record(r2)
    r3 = copy.deepcopy(rec)
    r3["hands"][0]["result"]["team_deltas"][0] += 1
    with pytest.raises(FormatError) as info:
        Game.from_record(r3)
    assert info.value.code == "result_mismatch"
    r4 = copy.deepcopy(rec)
    r4["hands"][0]["actions"].insert(0, "discard 5C")  # illegal before drawing
    with pytest.raises(CanastaError) as info:
        Game.from_record(r4)
    assert info.value.code == "must_draw_first"
    assert "action 0" in info.value.message
    r5 = copy.deepcopy(rec)
    r5["settings"] = {"preset": "classic", "hand_size": 3}
    with pytest.raises(SettingsError):
        Game.from_record(r5)


def test_illegal_action_error_shape():
    st = state_from_position(base())
    err = st.check(action_from_text("discard KH"))
    assert isinstance(err, IllegalAction)
    assert err.to_json() == {"code": "must_draw_first", "section": "R4", "message": err.message}
    assert st.check(action_from_text("draw")) is None


# Inconsistent (unreachable) positions that the loader should reject with a clear error (issue #2:
# "Reject an inconsistent position ... with a clear error"); the second item of each entry says why.
ASKP = {"preset": "classic", "ask_partner": True}
CANGO = [{"K": "KC KS KC KS KH"}, {}]
UNREACHABLE = {
    "meld_with_four_wilds_r5": (
        dict(hands=["KH 9C", *OTHERS], melds=[{"K": "KC KD 2C 2D 2H JK"}, {}], turn=0),
        "engine bug: a meld with 4 wild cards (R5.2, at most 3) loads in a classic position",
    ),
    "outnumber_meld_r5": (
        dict(preset="two-player-quick", hands=["KH 9C", "4C 4D"], melds=[{"K": "KC KD 2C 2D"}, {}], turn=0),
        "engine bug: a meld of 2 naturals + 2 wilds loads under wild_limit=outnumber (R5.2)",
    ),
    "partnerships_r0": (
        dict(hands=["KH 9C", *OTHERS], sides=[0, 0, 1, 1], turn=0),
        "engine bug: four-player sides [0,0,1,1] load; partnerships are seats 0+2 and 1+3 (R0)",
    ),
    "three_player_one_side_r14": (
        dict(preset="three-player", hands=["KH 9C", "4C 4D", "5C 5D"], turn=0, sides=[0, 0, 0]),
        "engine bug: three-player sides [0,0,0] load; at most the two non-takers share a side (R14)",
    ),
    "merged_flag_r14": (
        dict(preset="three-player", hands=["KH 9C", "4C 4D", "5C 5D"], turn=0, merged=True),
        "engine bug: merged=true with three separate sides loads (R14)",
    ),
    "merged_in_classic_r14": (
        dict(hands=["KH 9C", *OTHERS], turn=0, merged=True),
        "engine bug: merged=true loads in a four-player position (R14 is three-player only)",
    ),
    "question_answered_by_non_partner_r11": (
        dict(preset=ASKP, hands=["KH KD 5C", *OTHERS], melds=CANGO, phase="ask", turn=1,
             turn_state={"ask": "pending", "asker": 0}),
        "engine bug: a pending 'May I go out?' with seat 1 (not the asker's partner) to answer loads (R11)",
    ),
    "yes_for_another_seat_r11": (
        dict(preset=ASKP, hands=["KH KD 5C", *OTHERS], melds=CANGO, phase="play", turn=0,
             turn_state={"ask": "yes", "asker": 1}),
        "engine bug: an answered question whose asker (1) is not the player to act (0) loads (R11)",
    ),
    "melded_in_the_draw_phase_r4": (
        dict(hands=["KH 9C", *OTHERS], turn=0, turn_state={"melded": True}),
        "engine bug: turn_state.melded=true in the draw phase loads; nothing is melded before drawing (R4)",
    ),
    "melded_flag_without_any_meld_r0": (
        dict(hands=["KH 9C", *OTHERS], turn=0, melded=[True, False, False, False]),
        "engine bug: seat 0 marked as having melded while its side has no meld loads (R0 'opened'); "
        "it then gets the R6.4 waiver without a concealed bonus",
    ),
    "side_melds_but_no_seat_melded_r0": (
        dict(hands=["KH 9C", *OTHERS], turn=0, melds=[{"K": "KC KD KS"}, {}], melded=[False] * 4),
        "engine bug: a side with melds where no seat of the side has melded loads (R0)",
    ),
    "empty_hand_in_play_r10": (
        dict(hands=["", *OTHERS], melds=[{"K": "KC KS KC KS KH KD KD"}, {}], phase="play", turn=0),
        "engine bug: a live hand where the player to act holds no card loads; going out ends the hand (R10.1)",
    ),
}


@pytest.mark.parametrize(
    "name",
    list(UNREACHABLE),
)
def test_position_rejects_unreachable_states(name):
    kw = dict(UNREACHABLE[name][0])
    preset = kw.pop("preset", "classic")
    pos = make_position(preset, **kw)
    with pytest.raises(FormatError) as info:
        state_from_position(pos)
    assert info.value.code.startswith("bad_position")


@pytest.mark.parametrize(
    "overrides",
    [{"players": 4.0}, {"players": True}, {"target": 5000.0}, {"target": 2500.0}],
)
def test_r2_settings_numbers_are_whole_numbers_not_equal_floats(overrides: dict[str, object]) -> None:
    """R2: 4.0 players or a 5000.0 target equal the real values but are not settings (found by
    the server's HTTP fuzz: a float player count reached range() and failed)."""
    from canasta import Settings
    from canasta.errors import SettingsError

    with pytest.raises(SettingsError):
        Settings.preset("classic", **overrides)
