"""Property tests against small independent oracles: opening minimum (R5/R6), concealed going out
(R10.3/R6.4) and scoring (R13), on generated explicit positions."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from canasta import action_from_text
from canasta.rules import opening_minimum

from .helpers import state

SETTINGS = settings(max_examples=200, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))

RANKS = "A456789TJQK"
VAL = {"A": 20, "4": 5, "5": 5, "6": 5, "7": 5, "8": 10, "9": 10, "T": 10, "J": 10, "Q": 10, "K": 10}
WILD_VAL = {"2": 20, "JK": 50}
OTHERS = ["3C", "3S", "3C"]  # other seats hold black threes only, so ranks never clash


@hst.composite
def opening(draw):
    ranks = draw(hst.lists(hst.sampled_from(RANKS), min_size=1, max_size=3, unique=True))
    wild_pool = ["2C", "2D", "2H", "2S", "JK", "JK"]
    groups = []
    for r in ranks:
        n = draw(hst.integers(0, 4))
        w = draw(hst.integers(0, 4))
        wilds = [wild_pool.pop(0) for _ in range(min(w, len(wild_pool)))]
        nats = [r + s for s in "CDHS"][:n]
        groups.append((r, nats, wilds))
    score = draw(hst.sampled_from([-100, 0, 1495, 1500, 2995, 3000]))
    return groups, score


@SETTINGS
@given(opening())
def test_r5_r6_opening_oracle(data):
    groups, score = data
    groups = [(r, n, w) for r, n, w in groups if n or w]
    if not groups:
        return
    spare = next(r for r in RANKS if all(r != g for g, _, _ in groups))
    extra = [spare + "C", spare + "D"]  # two cards kept back (no R10.2 issue)
    hand = [c for _, n, w in groups for c in n + w] + extra
    st = state(hands=[" ".join(hand), *OTHERS], turn=0, phase="play", scores=[score, 0])
    text = "meld " + " ".join(f"{r}:{','.join(n + w)}" for r, n, w in groups)
    err = st.check(action_from_text(text))
    # oracle
    expected = None
    value = 0
    for r, n, w in groups:
        size = len(n) + len(w)
        value += sum(VAL[r] for _ in n) + sum(WILD_VAL["JK" if c == "JK" else "2"] for c in w)
        if expected is None:
            if size < 3:
                expected = ("meld_too_small", "R5")
            elif len(w) > 3:
                expected = ("too_many_wilds", "R5")
            elif len(n) < 2:
                expected = ("meld_needs_two_naturals", "R5")
    minimum = opening_minimum(score)
    if expected is None and value < minimum:
        expected = ("opening_minimum_not_met", "R6")
    if expected is None:
        assert err is None, f"{text}: {err!r}"
        st.apply(action_from_text(text))
        assert st.opened(0)
    else:
        assert err is not None, f"{text} should be illegal: {expected}"
        if expected[0] in ("meld_too_small", "too_many_wilds", "meld_needs_two_naturals"):
            assert err.section == "R5", f"{text}: {err!r} (expected {expected})"
        else:
            assert (err.code, err.section) == expected, f"{text}: {err!r}"
            assert f"your melds count {value}; your side needs {minimum} to open" in err.message


@hst.composite
def concealed(draw):
    rank = draw(hst.sampled_from(RANKS))
    n = draw(hst.integers(4, 8))
    w = draw(hst.integers(0, 3))
    if n + w < 7:
        n = 7 - w if 7 - w <= 8 else 8
    wilds = ["2C", "2D", "JK"][:w]
    nats = [rank + s for s in "CDHSCDHS"][:n]
    second = draw(hst.sampled_from(["", *[r for r in RANKS if r != rank]]))
    seconds = [second + s for s in "CDH"] if second else []
    discard = draw(hst.booleans())
    score = draw(hst.sampled_from([-100, 0, 1500, 3000]))
    return rank, nats, wilds, second, seconds, discard, score


@SETTINGS
@given(concealed())
def test_r10_concealed_going_out_oracle(data):
    rank, nats, wilds, second, seconds, discard, score = data
    hand = nats + wilds + seconds + (["3S"] if discard else [])
    st = state(hands=[" ".join(hand), *OTHERS], turn=0, phase="play", drew="stock", scores=[score, 0])
    groups = [f"{rank}:{','.join(nats + wilds)}"] + ([f"{second}:{','.join(seconds)}"] if second else [])
    text = "meld " + " ".join(groups) + (" discard 3S" if discard else "")
    err = st.check(action_from_text(text))
    assert err is None, f"{text}: {err!r} (R6.4 waives the minimum for a concealed finish)"
    st.apply(action_from_text(text))
    r = st.result
    assert st.is_over and r.went_out == 0 and r.concealed
    s0 = r.sides[0]
    melds = sum(VAL[rank] for _ in nats) + sum(WILD_VAL["JK" if c == "JK" else "2"] for c in wilds)
    melds += sum(VAL[second] for _ in seconds)
    bonus = 500 if not wilds else 300
    penalty = 5  # the partner (seat 2) holds one black three
    assert (s0.melds, s0.canasta_bonus, s0.going_out, s0.hand_penalty) == (melds, bonus, 200, penalty)
    assert s0.total == melds + bonus + 200 - penalty
    assert r.team_deltas[0] == s0.total
    # the same finish split into two actions loses the waiver when the side has not opened
    st2 = state(hands=[" ".join(hand), *OTHERS], turn=0, phase="play", drew="stock", scores=[score, 0])
    first = "meld " + groups[0]
    value = sum(VAL[rank] for _ in nats) + sum(WILD_VAL["JK" if c == "JK" else "2"] for c in wilds)
    err = st2.check(action_from_text(first))
    left = len(hand) - len(nats) - len(wilds)
    if value < opening_minimum(score) and left >= 1:
        assert err is not None and err.code == "opening_minimum_not_met", f"{first}: {err!r}"


# ---------------------------------------------------------------- check() against a plain reading


CONFIG_NAMES = ["classic", "bicycle", "two-player", "two-player-quick", "three-player"]


@settings(max_examples=60, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(config=hst.sampled_from(CONFIG_NAMES), seed=hst.integers(0, 2**32 - 1))
def test_check_agrees_with_an_independent_rules_oracle(config, seed):
    import json
    import random

    from canasta import Game, Settings, action_to_text, position_to_json

    from .oracle import near_legal_action, oracle_legal

    g = Game(Settings.preset(config), seed=seed)
    rng = random.Random(seed)
    st = g.state
    while not st.is_over:
        for _ in range(4):
            a = near_legal_action(st, rng)
            if a is None:
                continue
            expected = oracle_legal(st, a)
            if expected is None:
                continue
            err = st.check(a)
            assert (err is None) == expected, (
                f"{action_to_text(a)}: engine says {err!r}, RULES.md reading says "
                f"{'legal' if expected else 'illegal'}\n{json.dumps(position_to_json(st))}"
            )
        for a in st.legal_actions():
            assert oracle_legal(st, a) in (True, None), action_to_text(a)
        g.apply(rng.choice(st.legal_actions()))
        st = g.state
