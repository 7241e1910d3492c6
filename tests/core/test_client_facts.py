"""What the views and presets tell the client so that it holds no rule (issue 8).

Each fact comes from the core's one home of its rule: staging targets (R5.1, R10.4), canasta
bonuses (R13.1), why the pile is blocked (R8.1), the finishing discard (R10.1) and the values
each setting may take (R2).
"""

from __future__ import annotations

import pytest

from canasta import Settings, SettingsError, action_from_text
from canasta.cards import MELD_TOKENS, parse_card, stage_targets

from .helpers import state

OTHERS = ["4C 4D 6S", "5C 5D 6H", "8C 8D JS"]


def four(seat0: str, **kw):
    return state(hands=[seat0, *OTHERS], turn=0, **kw)


def test_r5_1_stage_targets_follow_the_card():
    assert stage_targets(parse_card("9D")) == ("9",)
    assert stage_targets(parse_card("AS")) == ("A",)
    # R5.1: a wild card joins any ordinary meld, never the black threes (R10.4)
    assert stage_targets(parse_card("2H")) == MELD_TOKENS == stage_targets(parse_card("JK"))
    assert "3" not in MELD_TOKENS and len(MELD_TOKENS) == 11
    # R10.4: black threes meld only among themselves; R5.5: red threes never meld
    assert stage_targets(parse_card("3C")) == ("3",)
    assert stage_targets(parse_card("3D")) == ()


def test_view_lists_each_hand_cards_targets():
    st = four("KH KD 2C 3S 9C")
    v = st.view(0).to_json()
    targets = dict(zip(v["hand"], v["hand_targets"], strict=True))
    assert targets["KH"] == ["K"] and targets["3S"] == ["3"] and targets["2C"] == list(MELD_TOKENS)
    assert v["meld_ranks"] == list(MELD_TOKENS)
    assert st.view(None).to_json()["hand_targets"] is None


@pytest.mark.parametrize(("meld", "bonus"), [("KC KS KC KS KH KD KH", 500), ("KC KS KC KS KH KD 2H", 300), ("KC KS KC", 0)])
def test_r13_1_each_meld_carries_its_canasta_bonus(meld, bonus):
    st = four("5C 6C", melds=[{"K": meld}, {}], phase="play")
    (m,) = st.view(0).to_json()["melds"][0]
    assert m["bonus"] == bonus and m["canasta"] == (bonus > 0)


@pytest.mark.parametrize(("pile", "reason"), [("7D 9D", None), ("7D 3S", "pile_top_three"), ("7D JK", "pile_top_wild")])
def test_r8_1_the_view_says_why_the_pile_is_blocked(pile, reason):
    pile_json = four("5C 6C", pile=pile).view(0).to_json()["pile"]
    assert pile_json["blocked_reason"] == reason and pile_json["blocked"] == (reason is not None)


def test_r10_1_finishing_discard_is_the_last_card_when_that_goes_out():
    st = four("KH KD 5C", melds=[{"K": "KC KS KC KS KH"}, {}], phase="play")
    assert st.finishing_discard(action_from_text("meld K:KH,KD")) == parse_card("5C")
    # two cards would be left: no single discard finishes
    assert st.finishing_discard(action_from_text("meld K:KH")) is None
    # R10.2: without a canasta the last card cannot go out
    st2 = four("KH KD 5C", melds=[{"K": "KC KS KC"}, {}], phase="play")
    assert st2.finishing_discard(action_from_text("meld K:KH,KD")) is None


def test_r2_adjustable_settings_are_what_validation_allows():
    for name in ("classic", "two-player", "three-player"):
        base = Settings.preset(name)
        fields = base.adjustable()
        assert ("ask_partner" in [f["name"] for f in fields]) == (base.players == 4)
        for f in fields:
            if f["kind"] == "number":
                base.with_overrides(**{f["name"]: f["min"]})
                base.with_overrides(**{f["name"]: f["max"]})
                with pytest.raises(SettingsError):
                    base.with_overrides(**{f["name"]: f["max"] + 1})
            elif f["kind"] == "choice":
                for value in f["values"]:
                    base.with_overrides(**{f["name"]: value})
            else:
                base.with_overrides(**{f["name"]: not getattr(base, f["name"])})
