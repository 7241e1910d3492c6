"""Engine speed benchmark: prints figures, asserts nothing.

    python bench/engine.py [--json] [--seconds S] [--compiled build/mypyc]

Times are CPU seconds of this process (one core).  ``mode`` says which core ran: ``pure``
(the default install) or ``compiled`` (a mypyc build, ``bench/mypyc_build.py``, found first
on ``PYTHONPATH``).  ``--compiled DIR`` runs the figures again on that build in a child
process and prints both modes.

random_hands_per_s   full classic four-player hands, uniformly random legal play, one core
legal_actions_per_s  legal-action generations on positions from random play
apply_per_s          checked applications of legal actions
resample_per_s       states sampled from a seat's view (Resampler, prepared once per view)
rollouts_per_s       copy a mid-hand state, resample, play random to the end of the hand
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time

import canasta.legal
from canasta import Game, Resampler, Settings, State

MODE = "compiled" if not canasta.legal.__file__.endswith(".py") else "pure"


def random_hand(settings: Settings, seed: int, rng: random.Random) -> int:
    state = Game(settings, seed=seed).state
    n = 0
    while state.phase != "over":
        actions = state.legal_actions()
        state.apply(actions[rng.randrange(len(actions))], validate=False)
        n += 1
    return n


def positions(count: int, seed: int = 1) -> list[State]:
    """Mid-hand positions from random play (a mix of draw and play phases)."""
    rng = random.Random(seed)
    settings = Settings.preset("classic")
    out: list[State] = []
    s = 0
    while len(out) < count:
        s += 1
        state = Game(settings, seed=s).state
        stop = rng.randrange(5, 120)
        for _ in range(stop):
            if state.is_over:
                break
            acts = state.legal_actions()
            state.apply(rng.choice(acts), validate=False)
        if not state.is_over:
            out.append(state)
    return out


def timed(fn, seconds: float) -> tuple[int, float]:  # type: ignore[no-untyped-def]
    # CPU time of this process: on a shared machine other processes do not skew the figures
    clock = time.process_time
    n = 0
    start = clock()
    end = start + seconds
    while clock() < end:
        n += fn()
    return n, clock() - start


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--json", action="store_true")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--compiled", default=None, help="also run on this mypyc build (a PYTHONPATH directory)")
    args = p.parse_args()
    out = figures(args.seconds)
    both: dict[str, dict[str, float | str]] = {MODE: out}
    if args.compiled:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(args.compiled)}
        child = subprocess.run(
            [sys.executable, __file__, "--json", "--seconds", str(args.seconds)],
            env=env, capture_output=True, text=True, check=True,
        )
        other = json.loads(child.stdout)
        both[str(other["mode"])] = other
    if args.json:
        print(json.dumps(out if len(both) == 1 else both))
    else:
        for mode, figs in both.items():
            print(f"-- {mode}")
            for k, v in figs.items():
                print(f"{k:28} {v:>12,.1f}" if isinstance(v, float) else f"{k:28} {v:>12}")


def figures(seconds: float) -> dict[str, float | str]:
    """Every figure of the module docstring, for the core that is imported."""
    settings = Settings.preset("classic")
    rng = random.Random(42)
    out: dict[str, float | str] = {"mode": MODE}

    seeds = iter(range(10**9))
    actions_per_hand: list[int] = []

    def one_hand() -> int:
        actions_per_hand.append(random_hand(settings, next(seeds), rng))
        return 1

    n, dt = timed(one_hand, seconds)
    out["random_hands_per_s"] = round(n / dt, 1)
    out["actions_per_random_hand"] = round(sum(actions_per_hand) / len(actions_per_hand), 1)

    pos = positions(300)

    def gen() -> int:
        for st in pos:
            st.legal_actions()
        return len(pos)

    n, dt = timed(gen, seconds)
    out["legal_actions_per_s"] = round(n / dt, 1)

    pairs = [(st, a) for st in pos for a in st.legal_actions()[:3]]

    # apply_per_s: fresh copies are made outside the clock, then only the applications are timed
    clock = time.process_time
    applied = 0
    spent = 0.0
    while spent < seconds:
        fresh = [(st.copy(history=False), a) for st, a in pairs]
        t = clock()
        for st, a in fresh:
            st.apply(a)
        spent += clock() - t
        applied += len(fresh)
    out["apply_per_s"] = round(applied / spent, 1)
    copy_n, copy_dt = timed(lambda: sum(1 for st in pos if st.copy(history=False)), 1.0)
    out["copy_per_s"] = round(copy_n / copy_dt, 1)

    samplers = [Resampler(st.view(st.turn)) for st in pos[:100]]

    rng = random.Random(43)  # each figure's random stream starts afresh: the same work in every run

    def sample() -> int:
        for r in samplers:
            r.sample(rng, history=False)
        return len(samplers)

    n, dt = timed(sample, seconds)
    out["resample_per_s"] = round(n / dt, 1)

    rng = random.Random(44)

    def rollout() -> int:
        for r in samplers[:20]:
            st = r.sample(rng, history=False)
            while st.phase != "over":
                acts = st.legal_actions()
                st.apply(acts[rng.randrange(len(acts))], validate=False)
        return 20

    n, dt = timed(rollout, seconds)
    out["rollouts_per_s"] = round(n / dt, 1)
    return out


if __name__ == "__main__":
    main()
