"""Where Expert's departures from Normal win or cost: Expert searching only some decisions.

    python bench/expert_split.py --preset bicycle --deals 40 --seed 2 --iterations 200
                                 [--search draw,play,ask] [--option trust=2 ...] [--json]
                                 [--out run.json] [--against baseline.json]

Expert against Normal on duplicate deals (``run_arena``, one process), but Expert searches only
the decisions of the phases in ``--search`` and plays its guide's first choice in the others
(Normal's rules of thumb, ``search.GUIDE``), so comparing runs on the same deals shows which
kind of departure gains or loses points.  It also counts, per phase, the decisions searched
and those where Expert left Normal's choice (by the kinds of Normal's and Expert's actions);
``--against`` an earlier ``--out`` of the same deals gives the paired difference per deal
with its 95% interval.  ``--option name=value`` passes an
:class:`~canasta.bots.search.ExpertPlayer` setting (numbers or true/false).  It prints
figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

# appended, not prepended: PYTHONPATH (say, a mypyc build from bench/mypyc_build.py) comes first
sys.path.append(str(Path(__file__).resolve().parent.parent / "src"))

from canasta.actions import Action  # noqa: E402
from canasta.bots import arena  # noqa: E402
from canasta.bots.players import make_player  # noqa: E402
from canasta.bots.search import PHASE_LABELS, ExpertPlayer, searched  # noqa: E402
from canasta.view import SeatView  # noqa: E402

PHASES = ("draw", "play", "ask")
#: per (phase, Normal's kind, Expert's kind): decisions; (phase, "searched"): searched decisions
COUNTS: Counter[tuple[str, ...]] = Counter()


class SplitExpert:
    """Expert in the phases it searches, its guide's first choice in the others (Normal's,
    but for three-player discards before anyone takes the pile: ``search.GUIDE``).

    A wrapper, not a subclass: the mypyc build's compiled classes cannot be subclassed here.
    """

    level = "expert"

    def __init__(self, seed: int | None, phases: frozenset[str], **options: Any) -> None:
        # the wrapper's phases, not Expert's own default (SEARCHED_PHASES), which would narrow
        # them with three players
        self.expert = ExpertPlayer(seed, phases=phases, **options)
        self.normal = make_player("normal", seed)
        self.phases = phases

    def choose(self, view: SeatView) -> Action:
        best = self.expert.choose(view)  # the guide's choice where it does not search
        if len(view.legal) > 1 and searched(view, self.phases):
            normal = self.normal.choose(view)
            COUNTS[(view.phase, "searched")] += 1
            if best != normal:
                COUNTS[(view.phase, normal.kind, best.kind)] += 1
        return best


def _option(value: str) -> bool | int | float:
    """An option's value: true/false, a whole number (for integer settings), else a float."""
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    try:
        return int(value)
    except ValueError:
        return float(value)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--preset", default="bicycle")
    p.add_argument("--deals", type=int, default=40)
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument(
        "--search",
        default=",".join(PHASES),
        help="phases Expert searches (draw, play, ask, play-two-sides: the play phase while"
        " two sides are left, with three players once a partnership has formed, or play-late:"
        " the play phase while the stock holds at most search.LATE_STOCK cards, or play-alone:"
        " before that, while all three play alone, judged by the all-alone leaf)",
    )
    p.add_argument(
        "--option", action="append", default=[], help="an ExpertPlayer setting, name=value"
    )
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", default=None, help="write the figures and per-deal results here")
    p.add_argument(
        "--against", default=None, help="an --out file of the same deals: paired difference"
    )
    args = p.parse_args(argv)
    phases = frozenset(x for x in args.search.split(",") if x)
    unknown = phases - PHASE_LABELS
    if unknown:
        p.error(f"--search: unknown phase(s) {', '.join(sorted(unknown))}")
    options: dict[str, Any] = {"iterations": args.iterations, "time_budget": None}
    for item in args.option:
        name, _, value = item.partition("=")
        options[name] = _option(value)

    def player(level: str, seed: int | None = None, **opts: Any) -> Any:
        if level != "expert":
            return make_player(level, seed, **opts)
        return SplitExpert(seed, phases, **opts)

    arena.make_player = player  # type: ignore[assignment]
    t0 = time.monotonic()
    diffs = [
        arena._deal_task(("expert", "normal", args.preset, args.seed, i, options))[1]
        for i in range(args.deals)
    ]
    mean, lo, hi = arena._mean_ci(diffs)
    out: dict[str, Any] = {
        "preset": args.preset,
        "seed": args.seed,
        "deals": args.deals,
        "options": options,
        "search": sorted(phases),
        "mean_diff": round(mean, 1),
        "ci95": [round(lo, 1), round(hi, 1)],
        "deals_won": round(
            sum(1.0 if d > 0 else 0.5 if d == 0 else 0.0 for d in diffs) / len(diffs), 4
        ),
        "seconds": round(time.monotonic() - t0, 1),
        "departures": {" ".join(k): v for k, v in sorted(COUNTS.items())},
        "diffs": diffs,
    }
    if args.against:
        base = json.loads(Path(args.against).read_text())["diffs"]
        d_mean, d_lo, d_hi = arena._mean_ci([x - y for x, y in zip(diffs, base, strict=True)])
        out["paired"] = [round(d_mean, 1), round(d_lo, 1), round(d_hi, 1)]
    if args.out:
        Path(args.out).write_text(json.dumps(out))
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"{args.preset} seed {args.seed}, {args.deals} deals, Expert searches "
            f"{','.join(sorted(phases))} {options}: {mean:+.1f} points/deal ({lo:+.1f} .. {hi:+.1f}), "
            f"deals won {out['deals_won']:.1%}, {out['seconds']} s"
        )
        if "paired" in out:
            print(
                f"  paired against {args.against}: {out['paired'][0]:+.1f} ({out['paired'][1]:+.1f} .. {out['paired'][2]:+.1f})"
            )
        for k, v in out["departures"].items():
            print(f"  {k}: {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
