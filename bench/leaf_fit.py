"""Fit Expert's linear leaf: what a side's position is worth, learned from how hands end.

    python bench/leaf_fit.py --presets classic,bicycle --hands 20000 [--seed 1] [--json]

For each preset, plays ``--hands`` hands with the rollout policy in every seat (the policy
Expert's rollouts play), from shuffled decks and varied match scores (so the opening minimums
vary).  About one position in twelve is kept: its :func:`canasta.bots.evaluate.side_features`
for each side, and, once the hand is over, its final hand score for each side.  Least squares
(a light ridge) on the side-against-side differences gives one weight per feature: a side's
worth is the weighted sum, and the leaf is the seat's side minus the other sides' mean, as
Expert judges (with two sides, simply minus the other side).  A second set of hands (another
seed) is held out: the script prints the share of the outcome's variance that each leaf
explains there (``r2``), the fitted one and (with two sides, where they aim at the same
target) the hand-made one (``search.side_result`` as Expert plays it), and the weights to
paste into ``search.LEAF_WEIGHTS``.
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

from canasta.bots.evaluate import SIDE_FEATURES, side_features  # noqa: E402
from canasta.bots.policy import Policy  # noqa: E402
from canasta.bots.search import ROLLOUT, ExpertPlayer, side_result  # noqa: E402
from canasta.cards import full_deck  # noqa: E402
from canasta.rules import PRESETS, Settings  # noqa: E402
from canasta.state import State  # noqa: E402

#: a position kept: the side of each seat then, each side's features, and the hand-made leaf
#: for seat 0 (against the best other side)
Row = tuple[list[int], dict[int, list[float]], float]
#: ... and, once the hand has ended, the hand score each seat adds to its total
Sample = tuple[list[int], dict[int, list[float]], float, list[float]]


def play(preset: str, hands: int, seed: int, keep: float = 0.08) -> list[Sample]:
    settings = Settings.preset(preset)
    policy = Policy(ROLLOUT)
    rng = random.Random(f"leaf:{preset}:{seed}")
    # the hand-made leaf as Expert's defaults play it
    e = ExpertPlayer(0)
    hand_made = (e.hand_worth, e.keys, e.pair_key, e.frozen_pair)
    out: list[Sample] = []
    for i in range(hands):
        deck = full_deck()
        rng.shuffle(deck)
        scores = tuple(rng.choice((0, 0, 1600, 3200)) for _ in range(settings.team_count))
        st = State.deal(settings, deck, dealer=i % settings.players, scores=scores)
        rows: list[Row] = []
        n = 0
        while not st.is_over and n < 5000:
            if rng.random() < keep:
                feats = {sd: side_features(st, sd) for sd in set(st.side_of)}
                rows.append((st.side_of[:], feats, side_result(st, 0, *hand_made)))
            st.apply(policy.choose(st), validate=False)
            n += 1
        assert st.result is not None
        totals = [0.0] * settings.players
        for sc in st.result.sides:
            for seat in sc.seats:
                totals[seat] = float(sc.total)
        out.extend((side_of, feats, static, totals) for side_of, feats, static in rows)
    return out


def pairs(samples: list[Sample]) -> list[tuple[list[float], float, float]]:
    """Seat 0's side against each other side of the moment (one seat of it): the features'
    difference, the difference of what the two seats scored, and the hand-made leaf (against
    the best other side, so exact with two sides).  With three players a partnership formed
    later in the hand (R14) scores the same for both partners."""
    rows = []
    for side_of, feats, static, totals in samples:
        mine = side_of[0]
        done = {mine}
        for seat, sd in enumerate(side_of):
            if sd in done:
                continue
            done.add(sd)
            x = [a - b for a, b in zip(feats[mine], feats[sd], strict=True)]
            rows.append((x, totals[0] - totals[seat], static))
    return rows


def least_squares(rows: list[tuple[list[float], float, float]], ridge: float = 1e-3) -> list[float]:
    """Weights minimising the squared error plus a light ridge (``ridge`` times each diagonal
    term of the normal equations; Gauss-Jordan with pivoting).  Features that add up to another
    (``held`` and its six parts) get weights that mean something only together."""
    k = len(rows[0][0])
    a = [[0.0] * (k + 1) for _ in range(k)]
    for x, y, _ in rows:
        for i in range(k):
            xi = x[i]
            if xi:
                ai = a[i]
                for j in range(k):
                    ai[j] += xi * x[j]
                ai[k] += xi * y
    for i in range(k):
        a[i][i] += ridge * a[i][i] + 1e-6
    for c in range(k):
        p = max(range(c, k), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        for r in range(k):
            if r != c and a[r][c]:
                f = a[r][c] / a[c][c]
                for j in range(c, k + 1):
                    a[r][j] -= f * a[c][j]
    return [a[i][k] / a[i][i] for i in range(k)]


def explained(
    rows: list[tuple[list[float], float, float]], w: list[float], two_sides: bool = True
) -> dict[str, float | None]:
    """The share of the outcome's variance each leaf explains.  The hand-made leaf judges a
    seat against the best other side, the same target only with two sides (else None)."""
    ys = [y for _, y, _ in rows]
    mean = sum(ys) / len(ys)
    var = sum((y - mean) ** 2 for y in ys) / len(ys)
    fit = sum((sum(a * b for a, b in zip(w, x, strict=True)) - y) ** 2 for x, y, _ in rows)
    made = sum((s - y) ** 2 for _, y, s in rows)
    return {
        "positions": len(rows),
        "r2_fitted": round(1 - fit / len(rows) / var, 4),
        "r2_hand_made": round(1 - made / len(rows) / var, 4) if two_sides else None,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--presets", default="classic,bicycle")
    p.add_argument("--hands", type=int, default=20000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if not 10 <= args.hands <= 200_000:
        p.error("--hands 10..200000")
    presets = [x for x in args.presets.split(",") if x]
    if not presets or any(x not in PRESETS for x in presets):
        p.error(f"--presets: choose from {', '.join(PRESETS)}")
    report: dict[str, Any] = {}
    for preset in presets:
        t0 = time.monotonic()
        train = pairs(play(preset, args.hands, args.seed))
        held_out = pairs(play(preset, max(10, args.hands // 4), args.seed + 1000))
        w = least_squares(train)
        two = Settings.preset(preset).team_count == 2
        report[preset] = {
            "hands": args.hands,
            "seconds": round(time.monotonic() - t0, 1),
            "train": explained(train, w, two),
            "held_out": explained(held_out, w, two),
            "weights": dict(zip(SIDE_FEATURES, (round(v, 4) for v in w), strict=True)),
        }
    if args.json:
        print(json.dumps(report))
    else:
        for preset, r in report.items():
            print(f"{preset}: {r['hands']} hands, {r['seconds']} s; held out {r['held_out']}")
            print(f'    "{preset}": (' + ", ".join(str(v) for v in r["weights"].values()) + "),")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
