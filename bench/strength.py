"""Strength table: every preset × pair of neighbouring levels, from the duplicate arena.

    python bench/strength.py [--deals 200] [--expert-deals 20] [--expert-iterations 1000]
                             [--matches 0] [--expert-matches 0]
                             [--presets classic,two-player] [--pairs normal-beginner,expert-normal]
                             [--seed 1] [--workers 1] [--json] [--markdown] [--out rows.json]

Each cell is one ``canasta arena`` run (``run_arena``, seeded; ``--workers`` processes share
its deals and matches, which changes nothing but the time: every deal and match is seeded by
its own number): A's mean points per duplicate deal with its 95% interval, A's deal score,
and the Elo difference implied by the deal score with a 95% interval (normal approximation of
the score fraction, turned into Elo at both ends).  With ``--matches N`` (``--expert-matches N`` for the cells with Expert)
the cell also plays N full matches to the target in duplicate groups (the same shuffles with
the seats swapped) and adds A's match score with its 95% interval and the Elo from the match
score, both ends turned into Elo the same way; ``--deals 0`` plays matches only.  Expert runs
on a fixed iteration budget without the clock, so the table depends only on the arguments,
and a mypyc build (``bench/mypyc_build.py``, first on ``PYTHONPATH``) gives the same table
faster.  It prints figures and asserts nothing.
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


def _elo_interval(lo: float, hi: float, n: int) -> list[float]:
    return [round(elo_from_score(lo, n), 1), round(elo_from_score(hi, n), 1)]


def cell(
    a: str,
    b: str,
    preset: str,
    deals: int,
    seed: int,
    options: dict[str, Any],
    matches: int = 0,
    workers: int = 1,
) -> dict[str, Any]:
    """One arena run with the Elo intervals added (from the deal score, and from the match score)."""
    out = run_arena(
        a,
        b,
        preset,
        deals,
        workers,
        seed=seed,
        matches=matches,
        options=options,
        progress=False,
        quiet=True,
    )
    if deals:
        p = out["deal_win_rate"]
        half = 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / deals)
        out["deal_elo"] = round(elo_from_score(p, deals), 1)
        out["elo_ci95"] = _elo_interval(max(0.0, p - half), min(1.0, p + half), deals)
    else:
        out["deal_elo"] = out["elo_ci95"] = None
    if matches:
        out["match_elo"] = round(elo_from_score(out["match_win_rate"], matches), 1)
        out["match_elo_ci95"] = _elo_interval(*out["match_ci95"], matches)
        dup = out["match_ci95_duplicate"]
        out["match_elo_ci95_duplicate"] = None if dup is None else _elo_interval(*dup, matches)
    else:
        out["match_elo"] = out["match_elo_ci95"] = out["match_elo_ci95_duplicate"] = None
    return out


def _or_dash(row: dict[str, Any], key: str, text: str) -> str:
    return "—" if row.get(key) is None else text


def markdown(rows: list[dict[str, Any]]) -> str:
    """The rows as a markdown table; the match columns only when some cell played matches."""
    with_matches = any(r.get("matches") for r in rows)
    head = "| preset | A vs B | deals | mean points/deal for A (95% CI) | deal score | Elo from deal score (95% CI) |"
    rule = "|---|---|---|---|---|---|"
    if with_matches:
        head += " matches | match score (95% CI) | Elo from match score (95% CI) |"
        rule += "---|---|---|"
    lines = [head, rule]
    for r in rows:
        opts = r.get("options", {})
        a = r["a"] + (
            f" ({opts['iterations']} it.)" if r["a"] == "expert" and "iterations" in opts else ""
        )
        line = f"| {r['preset']} | {a} vs {r['b']} | {r['deals']:,} | "
        if r["deals"]:
            lo, hi = r["ci95"]
            elo_lo, elo_hi = r["elo_ci95"]
            line += (
                f"{r['mean_diff']:+.1f} ({lo:+.1f} .. {hi:+.1f}) | {r['deal_win_rate']:.1%} "
                f"| {r['deal_elo']:+.0f} ({elo_lo:+.0f} .. {elo_hi:+.0f}) |"
            )
        else:
            line += "— | — | — |"
        if with_matches:
            if r.get("matches"):
                m_lo, m_hi = r["match_ci95"]
                e_lo, e_hi = r["match_elo_ci95"]
                line += (
                    f" {r['matches']:,} | {r['match_win_rate']:.1%} ({m_lo:.1%} .. {m_hi:.1%}) "
                    f"| {r['match_elo']:+.0f} ({e_lo:+.0f} .. {e_hi:+.0f}) |"
                )
            else:
                line += " 0 | — | — |"
        lines.append(line)
    return "\n".join(lines)


def _line(r: dict[str, Any]) -> str:
    """One cell as a line of text (the default output)."""
    parts = [f"{r['preset']:17} {r['a']} vs {r['b']}:"]
    if r["deals"]:
        parts.append(
            f"{r['mean_diff']:+.1f} points/deal ({r['ci95'][0]:+.1f} .. {r['ci95'][1]:+.1f}), {r['deals']} deals, "
            f"deal Elo {r['deal_elo']:+.0f} ({r['elo_ci95'][0]:+.0f} .. {r['elo_ci95'][1]:+.0f}),"
        )
    if r["matches"]:
        parts.append(
            f"match score {r['match_win_rate']:.1%} of {r['matches']}, "
            f"match Elo {r['match_elo']:+.0f} ({r['match_elo_ci95'][0]:+.0f} .. {r['match_elo_ci95'][1]:+.0f}),"
        )
    parts.append(f"{r['seconds']} s")
    return " ".join(parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--deals", type=int, default=200, help="duplicate deals per cell without Expert")
    p.add_argument(
        "--expert-deals", type=int, default=20, help="duplicate deals per cell with Expert"
    )
    p.add_argument("--expert-iterations", type=int, default=1000)
    p.add_argument(
        "--matches", type=int, default=0, help="duplicate full matches per cell without Expert"
    )
    p.add_argument(
        "--expert-matches", type=int, default=0, help="duplicate full matches per cell with Expert"
    )
    p.add_argument("--presets", default=",".join(PRESETS))
    p.add_argument("--pairs", default=",".join(PAIRS))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=1, help="processes (the same table, sooner)")
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
            matches = args.expert_matches if expert else args.matches
            row = cell(a, b, preset, deals, args.seed, options, matches, max(1, args.workers))
            rows.append(row)
            if not args.json and not args.markdown:
                print(_line(row), flush=True)
            if args.out:
                Path(args.out).write_text(json.dumps(rows, indent=1))
    if args.json:
        print(json.dumps(rows))
    if args.markdown:
        print(markdown(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
