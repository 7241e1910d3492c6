"""Research environment speed: prints figures, asserts nothing.

    python bench/env.py [--json] [--seconds S] [--preset P]

env_steps_per_s      environment steps (staging, committing, drawing, discarding) per second,
                     a uniformly random agent over the legal-action mask, one core
hands_per_s          whole hands (episodes) per second with that agent
steps_per_hand       mean environment steps per hand
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from canasta.env import env


def run(preset: str, seconds: float, seed: int = 1) -> dict[str, float]:
    e = env(preset=preset)
    rng = np.random.default_rng(seed)
    steps = hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        e.reset(seed=seed + hands)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        hands += 1
    elapsed = time.perf_counter() - start
    return {
        "preset": preset,  # type: ignore[dict-item]
        "env_steps_per_s": round(steps / elapsed),
        "hands_per_s": round(hands / elapsed, 2),
        "steps_per_hand": round(steps / hands, 1),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", action="store_true")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--preset", default="classic")
    args = p.parse_args()
    out = run(args.preset, args.seconds)
    if args.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:16} {v}")


if __name__ == "__main__":
    main()
