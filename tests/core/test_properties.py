"""Property tests (hypothesis, derandomized): random games over every preset.

Each example plays one hand of a match with uniformly random legal actions and checks, along the
way: all 108 cards accounted for; every listed legal action is legal (and, at sampled steps,
applies without error); notation round-trips; position round-trips; views hide what they must;
resampled states agree with the seat's view; the hand terminates; the match record replays to
the same scores and final position.  Together the tests below play well over 1,000 hands.
"""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

from canasta import Game, Settings, position_to_json
from canasta.actions import GROUP_KEYS, SUIT_WEIGHT, WILD_SLOT, Group, group_of_key
from canasta.cards import JOKER, MELD_FACES
from canasta.resample import shuffle

from .invariants import (
    arbitrary_action,
    check_notation,
    check_position_round_trip,
    check_resample,
    check_scoring,
    check_state,
    check_view_privacy,
)

CONFIGS = {
    "classic": Settings.preset("classic"),
    "classic-ask": Settings.preset("classic", ask_partner=True),
    "bicycle": Settings.preset("bicycle"),
    "two-player": Settings.preset("two-player"),
    "two-player-quick": Settings.preset("two-player-quick"),
    "three-player": Settings.preset("three-player"),
}

# 6 configurations x 170 hands = 1,020 random hands per run (plus the deep-check tests).
HANDS_PER_CONFIG = 170
MAX_STEPS = 4000

FAST = settings(
    max_examples=HANDS_PER_CONFIG,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
DEEP = settings(
    max_examples=24,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def play_hand(g: Game, rng: random.Random, *, deep: int = 0) -> int:
    """Play the current hand to its end with uniformly random legal actions.

    ``deep``: every ``deep``-th step runs the expensive checks (0: never).
    """
    st = g.state
    steps = 0
    turn_start = st.copy(history=False)
    while not st.is_over:
        if st.phase == "draw":
            turn_start = st.copy(history=False)
        acts = st.legal_actions()
        assert acts, f"no legal action in a live state: {position_to_json(st)}"
        assert len(set(acts)) == len(acts), "duplicate legal actions"
        for a in acts:
            err = st.check(a)
            assert err is None, f"listed action {a} is illegal: {err!r}"
            check_notation(a)
        if deep and steps % deep == 0:
            for a in acts:  # every listed action applies without error
                trial = st.copy()
                trial.apply(a)
                check_state(trial)
            check_position_round_trip(st)
            for seat in [None, *range(st.players)]:
                check_view_privacy(st, seat, rng)
            seat = rng.randrange(st.players)
            check_resample(st, seat, rng, rollout=steps % (deep * 4) == 0)
        elif steps % 71 == 7:  # light checks on every random hand
            check_position_round_trip(st)
            seat = rng.randrange(st.players)
            check_view_privacy(st, seat, rng)
            check_resample(st, seat, rng, rollout=False)
        g.apply(rng.choice(acts))
        st = g.state
        check_state(st)
        steps += 1
        assert steps < MAX_STEPS, "the hand does not terminate"
    result = st.result
    assert result is not None
    assert result.reason in ("went_out", "stock_empty", "declined", "red_three_last")
    assert (result.went_out is not None) == (result.reason == "went_out")
    check_scoring(st)
    if result.went_out is not None:
        check_concealed(turn_start, st)
    assert st.legal_actions() == []
    return steps


def check_concealed(start, end) -> None:
    """R10.3 recomputed from the state at the start of the going-out turn and the final state."""
    seat = end.result.went_out
    assert start.turn == seat
    side = end.side_of[seat]
    added = new_canasta = False
    for r, m in enumerate(end.melds[side]):
        if m is None:
            continue
        before = start.melds[start.side_of[seat]][r]
        if before is None:
            new_canasta = new_canasta or len(m.cards) >= 7
        elif len(m.cards) > len(before.cards):
            added = True
    expected = not start.melded[seat] and not added and new_canasta
    assert end.result.concealed == expected


def check_replay(g: Game) -> None:
    record = json.loads(json.dumps(g.to_record()))
    again = Game.from_record(record)
    assert again.scores == g.scores
    assert again.is_over == g.is_over and again.winners == g.winners
    assert position_to_json(again.state) == position_to_json(g.state)
    assert [h.result.to_json() for h in again.hands if h.result] == [
        h.result.to_json() for h in g.hands if h.result
    ]
    assert again.to_record() == record


def _random_hand(config: str, seed: int) -> None:
    g = Game(CONFIGS[config], seed=seed)
    play_hand(g, random.Random(seed))
    check_replay(g)


@FAST
@given(seed=hst.integers(0, 2**32 - 1))
def test_random_hands_classic(seed):
    _random_hand("classic", seed)


@FAST
@given(seed=hst.integers(0, 2**32 - 1))
def test_random_hands_classic_ask_partner(seed):
    _random_hand("classic-ask", seed)


@FAST
@given(seed=hst.integers(0, 2**32 - 1))
def test_random_hands_bicycle(seed):
    _random_hand("bicycle", seed)


@FAST
@given(seed=hst.integers(0, 2**32 - 1))
def test_random_hands_two_player(seed):
    _random_hand("two-player", seed)


@FAST
@given(seed=hst.integers(0, 2**32 - 1))
def test_random_hands_two_player_quick(seed):
    _random_hand("two-player-quick", seed)


@FAST
@given(seed=hst.integers(0, 2**32 - 1))
def test_random_hands_three_player(seed):
    _random_hand("three-player", seed)


@DEEP
@given(config=hst.sampled_from(sorted(CONFIGS)), seed=hst.integers(0, 2**32 - 1))
def test_deep_checks_views_resampling_positions(config, seed):
    g = Game(CONFIGS[config], seed=seed)
    play_hand(g, random.Random(seed), deep=5)
    check_replay(g)


@settings(max_examples=12, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(config=hst.sampled_from(sorted(CONFIGS)), seed=hst.integers(0, 2**32 - 1),
       target=hst.sampled_from([1500, "one_hand"]))
def test_random_matches_terminate_and_replay(config, seed, target):
    s = CONFIGS[config].with_overrides(target=target)
    g = Game(s, seed=seed)
    rng = random.Random(seed)
    totals = [0] * s.team_count
    for _ in range(200):
        play_hand(g, rng)
        for t, d in enumerate(g.state.result.team_deltas):
            totals[t] += d
        assert g.scores == totals
        if g.is_over:
            break
        d = g.state.dealer
        g.next_hand()
        assert g.state.dealer == (d + 1) % s.players
        assert g.state.turn == (g.state.dealer + 1) % s.players
    assert g.is_over, "the match does not end"
    top = max(g.scores) if target != "one_hand" else max(g.state.result.team_deltas)
    if target == "one_hand":
        assert len(g.hands) == 1
        assert g.winners == [t for t, d in enumerate(g.state.result.team_deltas) if d == top]
    else:
        assert top >= 1500
        assert g.winners == [t for t, v in enumerate(g.scores) if v == top]
        assert len(g.winners) == 1  # tie = play_on
    check_replay(g)


@settings(max_examples=10, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(config=hst.sampled_from(sorted(CONFIGS)), seed=hst.integers(0, 2**32 - 1))
def test_a_listed_action_applied_unchecked_plays_as_checked(config, seed):
    """``Game.apply(action, validate=False)`` (what the server does with a move found in
    ``legal_actions()``) leaves every position, record and result as the checked form does."""
    checked, unchecked = Game(CONFIGS[config], seed=seed), Game(CONFIGS[config], seed=seed)
    rng = random.Random(seed)
    for _ in range(3):
        while not checked.state.is_over:
            action = rng.choice(checked.state.legal_actions())
            checked.apply(action)
            unchecked.apply(action, validate=False)
            assert position_to_json(unchecked.state) == position_to_json(checked.state)
        assert unchecked.to_record() == checked.to_record() and unchecked.scores == checked.scores
        if checked.is_over:
            break
        checked.next_hand()
        unchecked.next_hand()


# ---------------------------------------------------------------- arbitrary actions


@settings(max_examples=150, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(config=hst.sampled_from(sorted(CONFIGS)), seed=hst.integers(0, 2**32 - 1))
def test_check_and_apply_agree_on_arbitrary_actions(config, seed):
    """The checking form and the applying form agree: a checked-legal action applies and keeps
    every invariant; an illegal one raises the same error and changes nothing."""
    from canasta import IllegalAction

    g = Game(CONFIGS[config], seed=seed)
    rng = random.Random(seed)
    st = g.state
    steps = 0
    while not st.is_over and steps < MAX_STEPS:
        for _ in range(3):
            a = arbitrary_action(st, rng)
            if a is None:
                continue
            check_notation(a)
            err = st.check(a)
            trial = st.copy()
            if err is None:
                trial.apply(a)
                check_state(trial)
            else:
                before = position_to_json(trial)
                try:
                    trial.apply(a)
                except IllegalAction as e:
                    assert (e.code, e.section) == (err.code, err.section)
                else:  # pragma: no cover
                    raise AssertionError(f"{a} applied although check said {err!r}")
                assert position_to_json(trial) == before
                assert err.section.startswith("R") and err.code and err.message
        st.apply(rng.choice(st.legal_actions()))
        steps += 1


@hst.composite
def house_rules(draw):
    preset = draw(hst.sampled_from(["classic", "bicycle", "two-player", "two-player-quick", "three-player"]))
    players = Settings.preset(preset).players
    overrides = {
        "hand_size": draw(hst.integers(5, min(15, 60 // players))),
        "draw_count": draw(hst.sampled_from([1, 2])),
        "canastas_to_go_out": draw(hst.integers(1, 3)),
        "black_three": draw(hst.sampled_from(["stop", "freeze"])),
        "wild_limit": draw(hst.sampled_from(["classic", "outnumber"])),
        "wilds_on_canasta": draw(hst.booleans()),
        "black_three_meld_on_going_out": draw(hst.booleans()),
    }
    if players == 4:
        overrides["ask_partner"] = draw(hst.booleans())
    return Settings.preset(preset, **overrides)


@settings(max_examples=120, derandomize=True, database=None, deadline=None,
          suppress_health_check=list(HealthCheck))
@given(s=house_rules(), seed=hst.integers(0, 2**32 - 1))
def test_random_hands_with_house_rules(s, seed):
    """Any valid combination of individual overrides (R2) plays to a consistent end."""
    g = Game(s, seed=seed)
    assert all(len(h) == s.hand_size for h in g.state.hands)
    play_hand(g, random.Random(seed), deep=0)
    check_replay(g)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(
    rank=hst.sampled_from(MELD_FACES),
    counts=hst.lists(hst.integers(0, 2), min_size=4, max_size=4),
    wild=hst.sampled_from([None, 4, 5, 6, 7, JOKER]),
)
def test_one_group_keys_name_exactly_their_cards(rank, counts, wild):
    # the shared one-group actions (legal.py, pickup.py) are found by this key: each key must
    # stand for exactly the naturals (in code order) and the wild it was made from
    naturals = tuple(4 * rank + suit for suit in range(4) for _ in range(counts[suit]))
    suits = sum(n * w for n, w in zip(counts, SUIT_WEIGHT, strict=True))
    key = (rank * 81 + suits) * 6 + (WILD_SLOT[wild] if wild is not None else 0)
    assert 0 <= key < GROUP_KEYS
    assert group_of_key(key) == Group(rank, naturals + ((wild,) if wild is not None else ()))


def test_one_group_keys_are_distinct():
    groups = {group_of_key(k) for r in MELD_FACES for k in range(r * 486, (r + 1) * 486)}
    assert len(groups) == len(MELD_FACES) * 486


@settings(max_examples=200, derandomize=True, deadline=None)
@given(seed=hst.integers(0, 2**64), size=hst.integers(0, 120))
def test_the_resampler_shuffle_is_the_standard_one(seed, size):
    # the worlds a search samples stay those of random.Random.shuffle: same order, same state
    ours, theirs = random.Random(seed), random.Random(seed)
    a, b = list(range(size)), list(range(size))
    shuffle(ours, a)
    theirs.shuffle(b)
    assert a == b
    assert ours.getstate() == theirs.getstate()
