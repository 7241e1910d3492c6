"""Decision latency of the computer players, from realistic positions (one core).

    python bench/bots.py [--decisions 500] [--expert-decisions 500] [--json]
                         [--expert-time T] [--expert-iterations K]

Positions come from Normal-vs-Normal hands over every preset (only decisions with more than
one legal option are kept; a single option is answered instantly and would flatter the
figures).  Each level then decides every position; the script prints p50, p95 and max in ms
(wall clock), and for Expert per preset the p95 latency and the iterations per searched
decision (p5, p50).  Expert runs with its defaults (1,000 iterations, cut at 0.9 s) unless told.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

# appended, not prepended: PYTHONPATH (say, a mypyc build from bench/mypyc_build.py) comes first
sys.path.append(str(Path(__file__).resolve().parent.parent / "src"))

from canasta import PRESETS, Game, Settings  # noqa: E402
from canasta.bots import make_player  # noqa: E402
from canasta.view import SeatView  # noqa: E402


def positions(count: int, seed: int = 1) -> list[SeatView]:
    """Views at decision points with a real choice, spread over every preset."""
    out: list[SeatView] = []
    presets = list(PRESETS)
    per = [0] * len(presets)
    i = 0
    # the same number of positions from each preset (hands differ in length between presets)
    while len(out) < count:
        k = i % len(presets)
        want = count // len(presets) + (1 if k < count % len(presets) else 0)
        if per[k] < want:
            got = _hand_positions(presets[k], i, seed, want - per[k])
            per[k] += len(got)
            out.extend(got)
        i += 1
    return out


def _hand_positions(preset: str, i: int, seed: int, limit: int) -> list[SeatView]:
    settings = Settings.preset(preset, ask_partner=(preset == "classic" and i % 2 == 1))
    game = Game(settings, seed=f"bench:{seed}:{i}")
    bots = [make_player("normal", seed=i * 10 + s) for s in range(settings.players)]
    st = game.state
    out: list[SeatView] = []
    j = 0
    while not st.is_over and len(out) < limit:
        view = st.view(st.turn)
        if len(view.legal) > 1:
            # every third real decision: a few positions still spread over the whole hand
            if j % 3 == i % 3:
                out.append(view)
            j += 1
        game.apply(bots[st.turn].choose(view))
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))
    return xs[k]


def measure(
    level: str, views: list[SeatView], **options: object
) -> tuple[dict[str, float], list[int], list[float]]:
    """Latency figures, and per view the iterations (Expert) and the time in ms."""
    bot = make_player(level, seed=5, **options)
    times: list[float] = []
    iters: list[int] = []
    for v in views:
        t = time.perf_counter()
        bot.choose(v)
        times.append((time.perf_counter() - t) * 1000)
        iters.append(getattr(bot, "last_iterations", 0))
    stats = {
        "p50_ms": round(pct(times, 0.50), 2),
        "p95_ms": round(pct(times, 0.95), 2),
        "max_ms": round(max(times), 2),
    }
    return stats, iters, times


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--decisions", type=int, default=500)
    p.add_argument("--expert-decisions", type=int, default=500)
    p.add_argument("--expert-time", type=float, default=None, help="search by time only (seconds)")
    p.add_argument("--expert-iterations", type=int, default=None, help="search by iterations only")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    options: dict[str, object] = {}
    if args.expert_time is not None:
        options = {"time_budget": args.expert_time, "iterations": None}
    if args.expert_iterations is not None:
        options = {"time_budget": options.get("time_budget"), "iterations": args.expert_iterations}
    views = positions(max(args.decisions, args.expert_decisions))
    out: dict[str, object] = {}
    for level in ("beginner", "normal"):
        out[level], _, _ = measure(level, views[: args.decisions])
    expert_views = positions(args.expert_decisions)
    expert, iters, times = measure("expert", expert_views, **options)
    out["expert"] = expert
    searched = [k for k in iters if k > 0]
    out["expert_iterations_per_decision"] = round(statistics.mean(searched), 1) if searched else 0
    out["expert_iterations_p5"] = pct(searched, 0.05) if searched else 0
    out["expert_iterations_p50"] = pct(searched, 0.50) if searched else 0
    by_preset: dict[str, object] = {}
    for preset in PRESETS:
        mine = [i for i, v in enumerate(expert_views) if v.settings.name == preset]
        if not mine:
            continue
        ms = [times[i] for i in mine]
        done = [iters[i] for i in mine if iters[i] > 0]
        by_preset[preset] = {
            "decisions": len(mine),
            "searched": len(done),
            "p50_ms": round(pct(ms, 0.50), 2),
            "p95_ms": round(pct(ms, 0.95), 2),
            "iterations_p5": pct(done, 0.05) if done else 0,
            "iterations_p50": pct(done, 0.50) if done else 0,
        }
    out["expert_by_preset"] = by_preset
    probe = make_player("expert", seed=5, **options)
    out["expert_options"] = {k: getattr(probe, k, None) for k in ("iterations", "time_budget")}
    out["decisions"] = {"beginner": args.decisions, "normal": args.decisions, "expert": args.expert_decisions}
    if args.json:
        print(json.dumps(out))
    else:
        for level in ("beginner", "normal", "expert"):
            s = out[level]
            assert isinstance(s, dict)
            print(f"{level:9} p50 {s['p50_ms']:8.2f} ms   p95 {s['p95_ms']:8.2f} ms   max {s['max_ms']:8.2f} ms")
        print(f"expert iterations per searched decision: mean {out['expert_iterations_per_decision']}, "
              f"p5 {out['expert_iterations_p5']}, p50 {out['expert_iterations_p50']}")
        for preset, row in by_preset.items():
            print(f"  {preset:17} {row}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
