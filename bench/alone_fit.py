"""Fit Expert's all-alone leaf: how its options rank by the way whole hands end.

    python bench/alone_fit.py --hands 5000 --seed 2 --p 0.04 --k 4 [--lam 0.001] [--json]

Needs numpy (``pip install -e '.[rl]'``).  Three-player Normal self-play (the rollout policy
Expert's search plays), from shuffled decks and varied match scores.  At a play decision while
all three play alone and the stock holds more than ``search.LATE_STOCK`` cards (the decisions
Expert searches as ``search.PLAY_ALONE``), with chance ``--p``, the position branches: for each
of ``--k`` reshuffles of the stock (shared by the options), each of the guide's best six
options is played, then 12 to 18 rollout actions (as the search's tree and rollout do); if all
three still play alone, every player's :func:`canasta.bots.evaluate.alone_features` are kept,
and the hand is played on to its end for the label: each player's hand score.

The fit is a ridge regression (``--lam``, on standardised features) of the brancher's result
against the other two's mean, *within* each branch point and reshuffle (each group's mean taken
out): the leaf learns how the options rank against each other, not how good the deal is, which
is all a search at one decision asks of it.  One group in five is held out: the script prints
the correlation, on those groups, of each option's leaf value with its hand outcome, for the
fitted leaf and for the hand-made one, and the weights to paste into
``search.ALONE_LEAF_WEIGHTS``.  The shipped weights came from the command line above.
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

import numpy as np  # noqa: E402

from canasta.bots.evaluate import ALONE_FEATURES, alone_features  # noqa: E402
from canasta.bots.policy import Policy  # noqa: E402
from canasta.bots.search import GUIDE, LATE_STOCK, ROLLOUT, ExpertPlayer, side_result  # noqa: E402
from canasta.cards import full_deck  # noqa: E402
from canasta.rules import Settings  # noqa: E402
from canasta.state import State  # noqa: E402


def _alone(st: State) -> bool:
    return len(set(st.side_of)) == 3


def samples(hands: int, seed: int, p: float, k: int, seconds: float) -> dict[str, Any]:
    """Branch points from Normal self-play: per sample, every player's features (X, 3 × n),
    every player's hand score (Y, 3), the brancher (B), the group (G: one branch point and one
    reshuffle), the option's rank in the guide's order (O) and the hand-made leaf (S)."""
    settings = Settings.preset("three-player")
    roll = Policy(ROLLOUT)
    guide = Policy(GUIDE)
    rng = random.Random(f"alone:{seed}")
    # the hand-made leaf as Expert judges three players
    e = ExpertPlayer(0)
    made = (e.hand_worth, e.keys, e.pair_key, e.frozen_pair)
    xs: list[list[list[float]]] = []
    ys: list[list[float]] = []
    bs: list[int] = []
    gs: list[int] = []
    os_: list[int] = []
    ss: list[float] = []
    group = 0
    t0 = time.monotonic()
    played = 0
    for i in range(hands):
        if time.monotonic() - t0 > seconds:
            break
        played += 1
        deck = full_deck()
        rng.shuffle(deck)
        scores = tuple(rng.choice((0, 0, 1600, 3200)) for _ in range(settings.team_count))
        st = State.deal(settings, deck, dealer=i % 3, scores=scores)
        n = 0
        while not st.is_over and n < 5000:
            if (
                st.phase == "play"
                and _alone(st)
                and len(st.stock) > LATE_STOCK
                and rng.random() < p
            ):
                options = ExpertPlayer._options(st, guide, None, 6)
                me = st.turn
                if len(options) > 1:
                    for _ in range(k):
                        base = st.copy(history=False)
                        rng.shuffle(base.stock)
                        steps = 12 + rng.randrange(7)
                        for rank, option in enumerate(options):
                            w = base.copy(history=False)
                            w.apply(option, validate=False)
                            j = 0
                            while not w.is_over and j < steps:
                                w.apply(roll.choose(w), validate=False)
                                j += 1
                            if w.is_over or not _alone(w):
                                continue
                            features = [alone_features(w, w.side_of[s]) for s in range(3)]
                            static = side_result(w, me, *made, None, True)
                            q = 0
                            while not w.is_over and q < 5000:
                                w.apply(roll.choose(w), validate=False)
                                q += 1
                            assert w.result is not None
                            totals = [0.0, 0.0, 0.0]
                            for side in w.result.sides:
                                for s in side.seats:
                                    totals[s] = float(side.total)
                            xs.append(features)
                            ys.append(totals)
                            bs.append(me)
                            gs.append(group)
                            os_.append(rank)
                            ss.append(static)
                        group += 1
            st.apply(roll.choose(st), validate=False)
            n += 1
    return {
        "X": np.array(xs).reshape(len(xs), 3, len(ALONE_FEATURES)),
        "Y": np.array(ys).reshape(len(ys), 3),
        "B": np.array(bs, dtype=int),
        "G": np.array(gs, dtype=int),
        "O": np.array(os_, dtype=int),
        "S": np.array(ss),
        "hands": played,
        "groups": group,
    }


def against_others(d: dict[str, Any]) -> tuple[Any, Any]:
    """Per sample: the brancher's features and result minus the other two players' mean."""
    x, y, b = d["X"], d["Y"], d["B"]
    idx = np.arange(len(b))
    xb, yb = x[idx, b], y[idx, b]
    return xb - (x.sum(1) - xb) / 2, yb - (y.sum(1) - yb) / 2


def demean(v: Any, groups: Any) -> Any:
    """``v`` (rows) less its group's mean."""
    _, inv = np.unique(groups, return_inverse=True)
    count = np.bincount(inv)
    if v.ndim == 1:
        return v - (np.bincount(inv, v) / count)[inv]
    means = np.stack([np.bincount(inv, v[:, j]) / count for j in range(v.shape[1])], 1)
    return v - means[inv]


def ridge(x: Any, y: Any, lam: float) -> Any:
    """Ridge regression on standardised columns, weights returned on the original scale."""
    sd = x.std(0) + 1e-9
    xs = x / sd
    a = xs.T @ xs + lam * len(x) * np.eye(x.shape[1])
    return np.linalg.solve(a, xs.T @ y) / sd


def fit(d: dict[str, Any], lam: float) -> dict[str, Any]:
    """The within-group fit on four groups in five; the held-out fifth's correlations."""
    g = d["G"]
    test = (g % 5) == 0
    x, y = against_others(d)
    xd, yd = demean(x, g), demean(y, g)
    w = ridge(xd[~test], yd[~test], lam)
    fitted = demean(x[test] @ w, g[test])
    made = demean(d["S"], g)[test]
    return {
        "samples": int(len(g)),
        "groups": int(len(np.unique(g))),
        "held_out_corr_fitted": round(float(np.corrcoef(fitted, yd[test])[0, 1]), 3),
        "held_out_corr_hand_made": round(float(np.corrcoef(made, yd[test])[0, 1]), 3),
        "weights": [float(f"{v:.6g}") for v in w],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--hands", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--p", type=float, default=0.04, help="chance a decision branches")
    parser.add_argument("--k", type=int, default=4, help="reshuffles per branch point")
    parser.add_argument("--lam", type=float, default=1e-3, help="ridge weight")
    parser.add_argument("--seconds", type=float, default=3600.0, help="stop playing after")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    t0 = time.monotonic()
    data = samples(args.hands, args.seed, args.p, args.k, args.seconds)
    out = fit(data, args.lam)
    out.update(hands=data["hands"], seconds=round(time.monotonic() - t0, 1))
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            if key != "weights":
                print(f"{key}: {value}")
        print("ALONE_LEAF_WEIGHTS = (" + ", ".join(repr(v) for v in out["weights"]) + ")")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
