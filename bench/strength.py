"""Strength table: every preset × pair of neighbouring levels, from the duplicate-deal arena.

    python bench/strength.py [--deals 200] [--expert-deals 20] [--expert-iterations 1000]
                             [--presets classic,two-player] [--pairs normal-beginner,expert-normal]
                             [--seed 1] [--json] [--markdown] [--out rows.json]

Each cell is one ``canasta arena`` run (``run_arena``, one process, seeded): A's mean points
per duplicate deal with its 95% interval, A's deal score, and the Elo difference implied by
the deal score with a 95% interval (normal approximation of the score fraction, turned into
Elo at both ends).  Expert runs on a fixed iteration budget without the clock, so the table
depends only on the arguments, and a mypyc build (``bench/mypyc_build.py``, first on
``PYTHONPATH``) gives the same table faster.  It prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

# appended, not prepended: PYTHONPATH (say, a mypyc build from bench/mypyc_build.py) comes first
sys.path.append(str(Path(__file__).resolve().parent.parent / "src"))

from canasta import PRESETS  # noqa: E402
from canasta.bots.arena import elo_from_score, run_arena  # noqa: E402

PAIRS = ("normal-beginner", "expert-normal")


def cell(a: str, b: str, preset: str, deals: int, seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """One arena run with the Elo interval added."""
    out = run_arena(a, b, preset, deals, 1, seed=seed, options=options, progress=False, quiet=True)
    p = out["deal_win_rate"] or 0.0
    half = 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / deals)
    out["elo_ci95"] = [round(elo_from_score(max(0.0, p - half), deals), 1), round(elo_from_score(min(1.0, p + half), deals), 1)]
    return out


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| preset | A vs B | deals | mean points/deal for A (95% CI) | deal score | Elo from deal score (95% CI) |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lo, hi = r["ci95"]
        elo_lo, elo_hi = r["elo_ci95"]
        opts = r.get("options", {})
        a = r["a"] + (f" ({opts['iterations']} it.)" if r["a"] == "expert" and "iterations" in opts else "")
        lines.append(
            f"| {r['preset']} | {a} vs {r['b']} | {r['deals']:,} | {r['mean_diff']:+.1f} ({lo:+.1f} .. {hi:+.1f}) "
            f"| {r['deal_win_rate']:.1%} | {r['elo']:+.0f} ({elo_lo:+.0f} .. {elo_hi:+.0f}) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--deals", type=int, default=200, help="duplicate deals per cell without Expert")
    p.add_argument("--expert-deals", type=int, default=20, help="duplicate deals per cell with Expert")
    p.add_argument("--expert-iterations", type=int, default=1000)
    p.add_argument("--presets", default=",".join(PRESETS))
    p.add_argument("--pairs", default=",".join(PAIRS))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--out", default=None, help="also write the rows as JSON to this file")
    args = p.parse_args(argv)
    rows: list[dict[str, Any]] = []
    for preset in args.presets.split(","):
        for pair in args.pairs.split(","):
            a, b = pair.split("-")
            expert = "expert" in (a, b)
            options = {"iterations": args.expert_iterations, "time_budget": None} if expert else {}
            deals = args.expert_deals if expert else args.deals
            row = cell(a, b, preset, deals, args.seed, options)
            rows.append(row)
            if not args.json and not args.markdown:
                print(f"{preset:17} {a} vs {b}: {row['mean_diff']:+.1f} points/deal "
                      f"({row['ci95'][0]:+.1f} .. {row['ci95'][1]:+.1f}), {deals} deals, "
                      f"Elo {row['elo']:+.0f} ({row['elo_ci95'][0]:+.0f} .. {row['elo_ci95'][1]:+.0f}), "
                      f"{row['seconds']} s", flush=True)
            if args.out:
                Path(args.out).write_text(json.dumps(rows, indent=1))
    if args.json:
        print(json.dumps(rows))
    if args.markdown:
        print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
