"""Where one level's points a deal come from: hands sorted by who first took the pile and who
went out, and how often each level could take the pile first and did.

    python bench/expert_breakdown.py --preset three-player --deals 300 --seed 2
                                     [--a expert --b normal] [--iterations 200] [--workers 2]
                                     [--json]

The arena's duplicate deals (the same decks, seatings and player seeds as ``canasta arena``
and ``bench/expert_split.py``, so the overall mean is the arena's points a deal): every hand
is one seating of one deal, and its figure is A's points minus the mean of B's (as the arena
counts it).  The hands are sorted by who first took the pile (``a``, ``b`` or ``none``) and
who went out (``a``, ``b`` on A's side, that is a partner, ``b`` or ``none``: the stock ran
out); each row gives the hands, their share, their mean figure and what they add to the mean
a deal.  Before the first take of a hand, every draw decision where taking the pile was legal
is counted by the level deciding, the pile's size and whether it took.  With three players
the first take decides the partnership (R14), so this says which part of the game A's edge
comes from.  Expert plays ``--iterations`` without the clock.  It prints figures and asserts
nothing.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

# appended, not prepended: PYTHONPATH (say, a mypyc build from bench/mypyc_build.py) comes first
sys.path.append(str(Path(__file__).resolve().parent.parent / "src"))

from canasta import PRESETS  # noqa: E402
from canasta.bots.arena import _a_minus_b, deal_games  # noqa: E402
from canasta.bots.players import LEVELS  # noqa: E402

#: pile sizes of the take counts: (label, smallest size)
PILE_BUCKETS = (("0-3", 0), ("4-7", 4), ("8-11", 8), ("12+", 12))


def bucket(size: int) -> str:
    return [label for label, low in PILE_BUCKETS if size >= low][-1]


def deal(job: tuple[str, str, str, int, int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Every seating of one duplicate deal, as ``run_arena`` plays it, with what happened."""
    hands = []
    for seating, game, bots in deal_games(*job):
        st = game.state
        first: int | None = None
        chances: list[tuple[str, str, bool]] = []
        while not st.is_over:
            seat = st.turn
            view = st.view(seat)
            action = bots[seat].choose(view)
            if first is None and st.phase == "draw" and any(x.kind == "take" for x in view.legal):
                chances.append((seating[seat], bucket(len(st.pile)), action.kind == "take"))
            if first is None and action.kind == "take":
                first = seat
            game.apply(action)
        result = st.result
        assert result is not None
        out = result.went_out
        if out is None:
            went_out = "none"
        elif seating[out] == "a":
            went_out = "a"
        else:
            a_sides = {st.side_of[s] for s, w in enumerate(seating) if w == "a"}
            went_out = "b-partner" if st.side_of[out] in a_sides else "b"
        hands.append(
            {
                "first_take": "none" if first is None else seating[first],
                "went_out": went_out,
                "diff": _a_minus_b(result.team_deltas, seating, st.team_of),
                "chances": chances,
            }
        )
    return hands


def breakdown(
    a: str, b: str, preset: str, deals: int, seed: int, options: dict[str, Any], workers: int = 1
) -> dict[str, Any]:
    """The figures of ``deals`` duplicate deals (see the module's docstring)."""
    t0 = time.monotonic()
    jobs = [(a, b, preset, seed, i, options) for i in range(deals)]
    if workers <= 1:
        played = [deal(job) for job in jobs]
    else:
        with concurrent.futures.ProcessPoolExecutor(workers) as pool:
            played = list(pool.map(deal, jobs, chunksize=2))
    hands = [h for per_deal in played for h in per_deal]
    n = len(hands)
    groups: dict[tuple[str, str], list[float]] = {}
    takes: Counter[tuple[str, str, bool]] = Counter()
    for h in hands:
        groups.setdefault((h["first_take"], h["went_out"]), []).append(h["diff"])
        takes.update(tuple(c) for c in h["chances"])
    rows = [
        {
            "first_take": ft,
            "went_out": wo,
            "hands": len(xs),
            "share": round(len(xs) / n, 4),
            "mean": round(sum(xs) / len(xs), 1),
            "adds": round(sum(xs) / n, 1),
        }
        for (ft, wo), xs in sorted(groups.items(), key=lambda kv: -len(kv[1]))
    ]
    take_rows = [
        {
            "level": a if who == "a" else b,
            "pile": label,
            "chances": takes[(who, label, True)] + takes[(who, label, False)],
            "taken": takes[(who, label, True)],
        }
        for who in ("a", "b")
        for label, _ in PILE_BUCKETS
        if takes[(who, label, True)] + takes[(who, label, False)]
    ]
    return {
        "a": a,
        "b": b,
        "preset": preset,
        "seed": seed,
        "deals": deals,
        "hands": n,
        "mean_diff": round(sum(h["diff"] for h in hands) / n, 2) if n else 0.0,
        "rows": rows,
        "takes": take_rows,
        "options": options,
        "seconds": round(time.monotonic() - t0, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--a", default="expert")
    p.add_argument("--b", default="normal")
    p.add_argument("--preset", default="three-player")
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--iterations", type=int, default=200, help="Expert's iterations (no clock)")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.preset not in PRESETS:
        p.error(f"unknown preset {args.preset!r}; choose one of {', '.join(PRESETS)}")
    for level in (args.a, args.b):
        if level not in LEVELS:
            p.error(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    if args.deals < 1 or args.iterations < 1 or args.workers < 1:
        p.error("--deals, --iterations and --workers must be at least 1")
    options = {"iterations": args.iterations} if "expert" in (args.a, args.b) else {}
    out = breakdown(args.a, args.b, args.preset, args.deals, args.seed, options, args.workers)
    if args.json:
        print(json.dumps(out))
        return 0
    print(
        f"{out['a']} vs {out['b']}, {out['preset']}, seed {out['seed']}, {out['deals']} deals, "
        f"{out['hands']} hands: {out['mean_diff']:+.1f} points a deal, {out['seconds']} s"
    )
    print("first take  went out    hands  share   mean    adds")
    for r in out["rows"]:
        print(
            f"{r['first_take']:<11} {r['went_out']:<10} {r['hands']:>5} {r['share']:>6.1%}"
            f" {r['mean']:>+7.1f} {r['adds']:>+7.1f}"
        )
    print("could take the pile first, by pile size:")
    for r in out["takes"]:
        print(f"  {r['level']:<8} {r['pile']:<5} {r['taken']:>5} of {r['chances']:>5}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
