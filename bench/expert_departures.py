"""Judge Expert's departures from Normal by playing each hand to its end.

    python bench/expert_departures.py --preset bicycle --departures 60 --seed 2 --iterations 200
                                      [--worlds 48] [--option rollout_actions=24 ...] [--json]

Normal plays every seat of a hand; at each decision of seat 0 with a real choice, Expert
(``--iterations``, ``--option`` settings) decides too.  Where Expert leaves Normal's choice,
both actions are judged on the same ``--worlds`` worlds sampled from the seat's view: the
hand played to its end by the rollout policy (Normal without memory, as in Expert's
rollouts, but not cut short), scored as the seat's side minus the other sides' mean (as
Expert judges; with two sides that is the other side).  The
figure is Expert's action minus Normal's, per departure (mean and 95% interval, overall and
by the kinds of the two actions): a negative mean says Expert's own judgement (rollouts cut
after ``rollout_actions`` and the static evaluation) prefers plays that lose once the hand is
finished.  The game goes on with Normal's choice.  It prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

# appended, not prepended: PYTHONPATH (say, a mypyc build from bench/mypyc_build.py) comes first
sys.path.append(str(Path(__file__).resolve().parent.parent / "src"))

from canasta import Game, Resampler, Settings  # noqa: E402
from canasta.actions import Action  # noqa: E402
from canasta.bots.arena import _mean_ci  # noqa: E402
from canasta.bots.players import make_player  # noqa: E402
from canasta.bots.policy import Policy, Style  # noqa: E402
from canasta.bots.search import ExpertPlayer, side_result  # noqa: E402
from canasta.view import SeatView  # noqa: E402

ROLLOUT = Policy(Style())


def judge(view: SeatView, action: Action, worlds: int, seed: int) -> float:
    """Mean side result of ``action`` over sampled worlds, each hand played to its end."""
    sampler = Resampler(view)
    rng = random.Random(seed)
    total = 0.0
    seat = view.seat or 0
    for _ in range(worlds):
        world = sampler.sample(rng, history=False)
        world.apply(action, validate=False)
        n = 0
        while not world.is_over and n < 2000:
            world.apply(ROLLOUT.choose(world), validate=False)
            n += 1
        total += side_result(world, seat, mean_rivals=True)
    return total / worlds


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--preset", default="bicycle")
    p.add_argument("--departures", type=int, default=60)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--worlds", type=int, default=48)
    p.add_argument(
        "--option", action="append", default=[], help="an ExpertPlayer setting, name=value"
    )
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", default=None, help="also write the figures and every departure here")
    args = p.parse_args(argv)
    options: dict[str, Any] = {"iterations": args.iterations, "time_budget": None}
    for item in args.option:
        name, _, value = item.partition("=")
        low = value.lower()
        options[name] = low == "true" if low in ("true", "false") else float(value)
        if name in ("rollout_actions", "candidates", "inner_candidates"):
            options[name] = int(float(value))
    settings = Settings.preset(args.preset)
    t0 = time.monotonic()
    rows: list[dict[str, Any]] = []
    decisions = 0
    deal = 0
    while len(rows) < args.departures and deal < 10_000:
        game = Game(settings, seed=f"departures:{args.seed}:{deal}")
        normals = [make_player("normal", seed=deal * 8 + s) for s in range(settings.players)]
        expert = ExpertPlayer(deal * 8, **options)
        st = game.state
        while not st.is_over and len(rows) < args.departures:
            view = st.view(st.turn)
            normal = normals[st.turn].choose(view)
            if st.turn == 0 and len(view.legal) > 1:
                decisions += 1
                mine = expert.choose(view)
                if mine != normal:
                    key = len(rows) + 1000 * args.seed  # the same worlds judge both actions
                    d = judge(view, mine, args.worlds, key) - judge(view, normal, args.worlds, key)
                    rows.append(
                        {
                            "phase": view.phase,
                            "kinds": f"{normal.kind}->{mine.kind}",
                            "delta": d,
                            "pile": len(view.pile),
                            "normal": str(normal),
                            "expert": str(mine),
                        }
                    )
            game.apply(normal)
        deal += 1
    out: dict[str, Any] = {
        "preset": args.preset,
        "seed": args.seed,
        "options": options,
        "worlds": args.worlds,
        "decisions": decisions,
        "departures": len(rows),
        "seconds": round(time.monotonic() - t0, 1),
        "rows": rows,
    }
    groups: dict[str, list[float]] = {"all": [r["delta"] for r in rows]}
    for r in rows:
        groups.setdefault(r["kinds"], []).append(r["delta"])
    out["delta"] = {}
    for k, v in groups.items():
        mean, lo, hi = _mean_ci(v)
        out["delta"][k] = {"n": len(v), "mean": round(mean, 1), "ci95": [round(lo, 1), round(hi, 1)]}
    if args.out:
        Path(args.out).write_text(json.dumps(out))
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"{args.preset} seed {args.seed} {options}: {len(rows)} departures in {decisions} "
            f"decisions, {out['seconds']} s; Expert minus Normal per decision "
            f"{sum(r['delta'] for r in rows) / max(1, decisions):+.1f}"
        )
        for k, v in out["delta"].items():
            print(
                f"  {k}: n {v['n']}, Expert minus Normal {v['mean']:+.1f} ({v['ci95'][0]:+.1f} .. {v['ci95'][1]:+.1f})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
