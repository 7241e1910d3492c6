"""Decision latency of the computer players, from realistic positions (one core).

    python bench/bots.py [--decisions 500] [--expert-decisions 500] [--json]

Positions come from Normal-vs-Normal hands over every preset (only decisions with more than
one legal option are kept; a single option is answered instantly and would flatter the
figures).  Each level then decides every position; the script prints p50, p95 and max in ms,
and Expert's rollouts per decision.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from canasta import PRESETS, Game, Settings  # noqa: E402
from canasta.bots import make_player  # noqa: E402
from canasta.view import SeatView  # noqa: E402


def positions(count: int, seed: int = 1) -> list[SeatView]:
    """Views at decision points with a real choice, spread over every preset."""
    out: list[SeatView] = []
    presets = list(PRESETS)
    i = 0
    while len(out) < count:
        preset = presets[i % len(presets)]
        settings = Settings.preset(preset, ask_partner=(preset == "classic" and i % 2 == 1))
        game = Game(settings, seed=f"bench:{seed}:{i}")
        bots = [make_player("normal", seed=i * 10 + s) for s in range(settings.players)]
        st = game.state
        while not st.is_over and len(out) < count:
            view = st.view(st.turn)
            if len(view.legal) > 1:
                out.append(view)
            game.apply(bots[st.turn].choose(view))
        i += 1
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))
    return xs[k]


def measure(level: str, views: list[SeatView], **options: object) -> tuple[dict[str, float], list[int]]:
    bot = make_player(level, seed=5, **options)
    times: list[float] = []
    iters: list[int] = []
    for v in views:
        t = time.perf_counter()
        bot.choose(v)
        times.append((time.perf_counter() - t) * 1000)
        if hasattr(bot, "last_iterations"):
            iters.append(bot.last_iterations)  # type: ignore[attr-defined]
    stats = {
        "p50_ms": round(pct(times, 0.50), 2),
        "p95_ms": round(pct(times, 0.95), 2),
        "max_ms": round(max(times), 2),
    }
    return stats, iters


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--decisions", type=int, default=500)
    p.add_argument("--expert-decisions", type=int, default=500)
    p.add_argument("--expert-time", type=float, default=None, help="search by time only (seconds)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    options: dict[str, object] = {}
    if args.expert_time is not None:
        options = {"time_budget": args.expert_time, "iterations": None}
    views = positions(max(args.decisions, args.expert_decisions))
    out: dict[str, object] = {}
    for level in ("beginner", "normal"):
        out[level], _ = measure(level, views[: args.decisions])
    expert, iters = measure("expert", views[: args.expert_decisions], **options)
    out["expert"] = expert
    searched = [k for k in iters if k > 0]
    out["expert_iterations_per_decision"] = round(statistics.mean(searched), 1) if searched else 0
    out["expert_iterations_p5"] = pct(searched, 0.05) if searched else 0
    out["decisions"] = {"beginner": args.decisions, "normal": args.decisions, "expert": args.expert_decisions}
    if args.json:
        print(json.dumps(out))
    else:
        for level in ("beginner", "normal", "expert"):
            s = out[level]
            assert isinstance(s, dict)
            print(f"{level:9} p50 {s['p50_ms']:8.2f} ms   p95 {s['p95_ms']:8.2f} ms   max {s['max_ms']:8.2f} ms")
        print(f"expert rollouts per searched decision: {out['expert_iterations_per_decision']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
