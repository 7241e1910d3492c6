"""A uniformly random agent over the legal-action mask, for one hand of every preset.

    pip install 'canasta[rl]'
    python examples/random_agent.py
"""

from __future__ import annotations

import numpy as np

from canasta.env import describe, env

PRESETS = ("classic", "bicycle", "two-player", "two-player-quick", "three-player")


def play(preset: str, seed: int = 0) -> dict[str, float]:
    """One hand with random agents in every seat; returns each agent's reward."""
    e = env(preset=preset)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    steps = 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        if steps < 3:
            print(f"  {agent}: {describe(action)}")
        e.step(action)
        steps += 1
    print(f"  ... {steps} steps; hand scores {info.get('hand_result', {}).get('team_deltas')}")
    return totals


if __name__ == "__main__":
    for name in PRESETS:
        print(name)
        print("  rewards:", play(name))
