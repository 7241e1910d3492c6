"""The research environment: PettingZoo's own API and seed tests, privacy, the action space."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hst

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from canasta import Action, Game, Group, Meld, Settings, State, TakePile, position_to_json, resample  # noqa: E402
from canasta.env import (  # noqa: E402
    ACTION_COUNT,
    env,
    indexes_for,
    legal_mask,
    observe,
    raw_env,
    signature,
    step_plan,
)
from canasta.env.actions import CLEAR_I, GROUP_BASE, Plan  # noqa: E402
from canasta.env.observation import layout, size  # noqa: E402

PRESETS = ["classic", "bicycle", "two-player", "two-player-quick", "three-player"]
CONFIGS = {p: Settings.preset(p) for p in PRESETS}
CONFIGS["classic-ask"] = Settings.preset("classic", ask_partner=True)

PROPS = settings(max_examples=12, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_api_test(preset: str) -> None:
    api_test(env(preset=preset), num_cycles=200)


def test_pettingzoo_api_test_with_may_i_go_out() -> None:
    api_test(env(preset="classic", ask_partner=True, episode="match", target=1500), num_cycles=300)


@pytest.mark.parametrize("preset", PRESETS)
def test_pettingzoo_seed_test(preset: str) -> None:
    seed_test(lambda: env(preset=preset), num_cycles=100)


def test_render_ansi_shows_the_table() -> None:
    e = env(preset="two-player", render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert "Hand 1" in text and "stock" in text


def _random_episode(e: object, seed: int) -> list[tuple[str, bytes, float]]:
    rng = np.random.default_rng(seed)
    trace = []
    for agent in e.agent_iter():  # type: ignore[attr-defined]
        obs, reward, term, trunc, _ = e.last()  # type: ignore[attr-defined]
        trace.append((agent, obs["observation"].tobytes(), reward))
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))  # type: ignore[attr-defined]
    return trace


def test_reset_with_a_seed_reproduces_the_episode() -> None:
    e = env(preset="two-player")
    e.reset(seed=11)
    first = _random_episode(e, 5)
    e.reset(seed=11)
    assert _random_episode(e, 5) == first
    e.reset(seed=12)
    assert _random_episode(e, 5) != first


def test_a_hand_ends_and_rewards_are_hand_score_differences() -> None:
    for preset in PRESETS:
        e = env(preset=preset)
        e.reset(seed=2)
        totals = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            totals[agent] += reward
            e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        game = e.unwrapped.game
        deltas = game.state.result.team_deltas
        assert abs(sum(totals.values())) < 1e-6
        for i, agent in enumerate(e.possible_agents):
            team = game.state.view(None).team_of[i]
            others = [d for t, d in enumerate(deltas) if t != team]
            assert totals[agent] == pytest.approx(deltas[team] - sum(others) / len(others))


def test_episode_match_plays_hands_until_the_match_is_over() -> None:
    e = env(preset="two-player", episode="match", target=1500)
    e.reset(seed=4)
    rng = np.random.default_rng(0)
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert e.unwrapped.game.is_over
    assert e.unwrapped.game.hand_number >= 1


def _position(config: str, seed: int, steps: int) -> State:
    """A position reached by random listed legal actions (hands with melds, takes, questions)."""
    g = Game(CONFIGS[config], seed=seed)
    rng = random.Random(seed)
    st = g.state
    for _ in range(steps):
        legal = list(st.legal_actions())
        if st.is_over or not legal:
            break
        melds = [a for a in legal if a.kind in ("meld", "take", "ask")]
        g.apply(rng.choice(melds) if melds and rng.random() < 0.5 else rng.choice(legal))
    return g.state


positions = hst.tuples(hst.integers(0, 10**6), hst.integers(0, 120))


@pytest.mark.parametrize("config", sorted(CONFIGS))
@PROPS
@given(positions)
def test_observation_is_unchanged_when_hidden_cards_are_resampled(config: str, args: tuple[int, int]) -> None:
    st = _position(config, *args)
    rng = random.Random(args[0])
    public = st.view(None)
    changed = 0
    for seat in range(st.settings.players):
        view = st.view(seat)
        other = resample(view, rng)
        before, after = position_to_json(st), position_to_json(other)
        changed += (before["hands"], before["stock"]) != (after["hands"], after["stock"])
        assert np.array_equal(observe(view), observe(other.view(seat)))
        if seat == st.turn and not st.is_over:
            assert np.array_equal(legal_mask(st), legal_mask(other))
    # the test means something: with enough unknown cards the resampled deals differ
    unknown = public.stock_size + sum(public.hand_counts) - sum(len(k) for k in public.known)
    assert unknown < 10 or changed


def _walk(st: State, path: list[int]) -> object:
    plan: Plan = ()
    committed = None
    for index in path:
        assert legal_mask(st, plan)[index], f"index {index} masked out on the way"
        plan, committed = step_plan(st, plan, index)
    return committed


@pytest.mark.parametrize("config", sorted(CONFIGS))
@PROPS
@given(positions)
def test_every_listed_legal_action_is_reachable(config: str, args: tuple[int, int]) -> None:
    st = _position(config, *args)
    if st.is_over:
        return
    for action in st.legal_actions():
        committed = _walk(st, indexes_for(st, action))
        assert committed is not None
        assert signature(committed) == signature(action)  # type: ignore[arg-type]
        assert st.check(committed) is None  # type: ignore[arg-type]


def _random_group_action(st: State, rng: random.Random) -> Action | None:
    """A random meld or take built from the hand (often not in the core's list), or None."""
    from canasta.cards import F_DEUCE, F_JOKER, FACE
    from canasta.env.actions import GROUP_RANKS

    hand = list(st.view(st.turn).hand or ())
    rng.shuffle(hand)
    groups = []
    ranks = list(GROUP_RANKS)
    rng.shuffle(ranks)
    for r in ranks[: rng.randint(1, 3)]:
        nat = [c for c in hand if FACE[c] == r]
        wild = [c for c in hand if FACE[c] in (F_DEUCE, F_JOKER)]
        cards = nat[: rng.randint(0, len(nat))] + wild[: rng.randint(0, min(3, len(wild)))]
        for c in cards:
            hand.remove(c)
        groups.append(Group(r, tuple(cards)))
    if st.phase == "draw":
        return TakePile(tuple(groups)) if st.view(None).pile else None
    if not all(g.cards for g in groups):
        return None
    return Meld(tuple(groups), hand[0] if len(hand) == 1 and rng.random() < 0.5 else None)


def test_every_legal_action_is_reachable_along_whole_hands() -> None:
    """Whole hands of several presets: every listed action that is not a plain draw or discard,
    and random legal melds and takes the core does not list (three of four kings, say), are
    reachable through masked-in indexes."""
    seen: Counter[str] = Counter()
    for config in sorted(CONFIGS):
        for seed in range(6):
            g = Game(CONFIGS[config], seed=seed)
            rng = random.Random(seed)
            st = g.state
            while not st.is_over:
                legal = list(st.legal_actions())
                extra = [a for a in (_random_group_action(st, rng) for _ in range(6)) if a and st.check(a) is None]
                for action in list(legal) + extra:
                    if action.kind in ("draw", "discard"):
                        continue
                    groups = len(getattr(action, "groups", ()))
                    seen[action.kind + ("+" if groups > 1 else "")] += 1
                    committed = _walk(st, indexes_for(st, action))
                    assert committed is not None and signature(committed) == signature(action)  # type: ignore[arg-type]
                preferred = [a for a in legal if a.kind in ("meld", "take", "ask", "answer")]
                g.apply(rng.choice(preferred) if preferred and rng.random() < 0.7 else rng.choice(legal))
    # the walk met every kind of action, several groups at once included
    assert {"meld", "meld+", "take", "take+", "ask", "answer"} <= set(seen), seen


@pytest.mark.parametrize("config", sorted(CONFIGS))
@PROPS
@given(positions, hst.integers(0, 3))
def test_every_masked_in_action_applies(config: str, args: tuple[int, int], depth: int) -> None:
    st = _position(config, *args)
    if st.is_over:
        assert not legal_mask(st).any()
        return
    rng = random.Random(args[0])
    plan: Plan = ()
    for _ in range(depth + 1):
        mask = legal_mask(st, plan)
        assert mask.any(), "no way forward"
        assert mask.shape == (ACTION_COUNT,)
        staged: list[Plan] = []
        for index in np.flatnonzero(mask):
            new_plan, committed = step_plan(st, plan, int(index))
            if committed is not None:
                assert st.check(committed) is None, (index, committed)
                copy = st.copy()
                copy.apply(committed)
            elif index >= GROUP_BASE:
                assert len(new_plan) == len(plan) + 1
                assert legal_mask(st, new_plan)[CLEAR_I]
                staged.append(new_plan)
        if not staged:
            break
        plan = rng.choice(staged)


def test_the_observation_layout_matches_the_vector() -> None:
    for preset in PRESETS:
        e = raw_env(preset)
        e.reset(seed=1)
        obs = e.observe(e.agent_selection)["observation"]
        assert obs.shape == (size(e.settings),) == (sum(n for _, n in layout(e.settings)),)


def test_observation_and_mask_of_others_hold_nothing_of_the_seat_to_act() -> None:
    e = raw_env("classic")
    e.reset(seed=3)
    acting = e.agent_selection
    for agent in e.possible_agents:
        if agent != acting:
            assert not e.observe(agent)["action_mask"].any()
    assert e.observe(acting)["action_mask"].any()


def test_docs_state_the_sizes_of_the_spaces() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "env.md").read_text(encoding="utf-8")
    sizes = {p: size(Settings.preset(p)) for p in ("classic", "two-player", "three-player")}
    assert f"four players ({sizes['classic']} values; two players {sizes['two-player']}, three players {sizes['three-player']}" in doc
    assert f"Discrete({ACTION_COUNT})" in doc and f"ACTION_COUNT ({ACTION_COUNT})" in doc
