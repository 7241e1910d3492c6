"""One learning seat against the built-in computer players.

The opponents (and, in the four-player game, the partner) are ``canasta.bots`` players: they
choose a core action from their seat's view, and :func:`canasta.env.indexes_for` turns it into
the environment's action indexes (stage each group, then commit).  Here the "learner" is
random; plug in your policy where it says so.

    pip install 'canasta[rl]'
    python examples/vs_bots.py [--preset two-player] [--level normal] [--hands 5]
"""

from __future__ import annotations

import argparse

import numpy as np

from canasta.bots import make_player
from canasta.env import env, indexes_for


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--preset", default="two-player")
    p.add_argument("--level", default="normal", choices=["random", "beginner", "normal", "expert"])
    p.add_argument("--hands", type=int, default=5)
    args = p.parse_args()
    e = env(preset=args.preset)
    raw = e.unwrapped
    learner = "player_0"
    bots = {a: make_player(args.level, seed=i) for i, a in enumerate(e.possible_agents) if a != learner}
    rng = np.random.default_rng(0)
    total = 0.0
    for hand in range(args.hands):
        e.reset(seed=hand)
        hand_reward = 0.0
        queue: list[int] = []  # a bot's pending indexes (its staged groups, then the commit)
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, _ = e.last()
            if agent == learner:
                hand_reward += reward
            if terminated or truncated:
                e.step(None)
                continue
            if agent == learner:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))  # your policy here
            else:
                if not queue:
                    seat = raw.seat(agent)
                    core = bots[agent].choose(raw.core_state.view(seat))
                    queue = indexes_for(raw.core_state, core)
                action = queue.pop(0)
            e.step(action)
        total += hand_reward
        print(f"hand {hand + 1}: learner's reward {hand_reward:+.0f}, hand scores {raw.game.scores}")
    print(f"learner's total reward over {args.hands} hands: {total:+.0f}")


if __name__ == "__main__":
    main()
