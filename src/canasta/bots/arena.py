"""The arena: duplicate deals between two levels, with confidence intervals and Elo.

Every deal is played once per seating, with the same deck, so that both sides hold both sets
of cards and the luck of the deal cancels.  Full matches to the target are played in duplicate
pairs too.  Results depend only on the seed (not on the number of worker processes).

    canasta arena --a expert --b normal --preset classic --deals 200 --workers 2 --seed 1 --json
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any

from ..cards import full_deck
from ..deal import shuffle
from ..game import Game
from ..rules import PRESETS, Settings
from .play import play_hand, play_match
from .players import LEVELS, Player, make_player
from .search import DEFAULT_ITERATIONS


def deal_deck(seed: int, index: int) -> list[int]:
    """The deck of duplicate deal ``index`` of an arena run."""
    deck = full_deck()
    shuffle(random.Random(f"arena:{seed}:deal:{index}"), deck)
    return deck


def seatings(players: int) -> list[list[str]]:
    """Who sits where in each replay of a deal: ``"a"`` or ``"b"`` per seat."""
    if players == 4:
        return [["a", "b", "a", "b"], ["b", "a", "b", "a"]]
    if players == 2:
        return [["a", "b"], ["b", "a"]]
    return [["a" if s == k else "b" for s in range(players)] for k in range(players)]


def _players(
    seating: list[str], a: str, b: str, seed: int, options: dict[str, Any]
) -> list[Player]:
    out: list[Player] = []
    for s, who in enumerate(seating):
        level = a if who == "a" else b
        # Expert's default rollout budget without the wall-clock cap, so results are reproducible
        opts = (
            {"iterations": DEFAULT_ITERATIONS, "time_budget": None, **options}
            if level == "expert"
            else {}
        )
        out.append(make_player(level, seed=seed * 8 + s, **opts))
    return out


def _a_minus_b(deltas: Iterable[int], seating: list[str], team_of: tuple[int, ...]) -> float:
    """A's points minus B's for one played seating (3 players: A minus the mean of B's)."""
    deltas = list(deltas)
    a_pts = [deltas[team_of[s]] for s, w in enumerate(seating) if w == "a"]
    b_pts = [deltas[team_of[s]] for s, w in enumerate(seating) if w == "b"]
    return sum(a_pts) / len(a_pts) - sum(b_pts) / len(b_pts)


def deal_games(
    a: str, b: str, preset: str, seed: int, index: int, options: dict[str, Any]
) -> Iterator[tuple[list[str], Game, list[Player]]]:
    """Every seating of duplicate deal ``index``, as the arena plays it: who sits where, the
    hand dealt from the deal's deck, and the seats' players (seeded per deal and seating)."""
    settings = Settings.preset(preset)
    deck = deal_deck(seed, index)
    for k, seating in enumerate(seatings(settings.players)):
        game = Game(settings, decks=[deck], first_dealer=index % settings.players)
        yield seating, game, _players(seating, a, b, seed * 1_000_003 + index * 7 + k, options)


def _deal_task(job: tuple[str, str, str, int, int, dict[str, Any]]) -> tuple[int, float]:
    index = job[4]
    diffs = []
    for seating, game, bots in deal_games(*job):
        play_hand(game, bots)
        assert game.state.result is not None
        diffs.append(_a_minus_b(game.state.result.team_deltas, seating, game.state.team_of))
    return index, sum(diffs) / len(diffs)


def _match_task(job: tuple[str, str, str, int, int, dict[str, Any]]) -> tuple[int, float]:
    """One full match; matches 2k and 2k+1 share their seed with the seats swapped (with three
    players, groups of three share it, A in each seat once)."""
    a, b, preset, seed, index, options = job
    settings = Settings.preset(preset)
    seats = seatings(settings.players)
    seating = seats[index % len(seats)]
    game = Game(settings, seed=f"arena:{seed}:match:{index // len(seats)}")
    bots = _players(seating, a, b, seed * 1_000_003 + 500_000 + index, options)
    play_match(game, bots)
    return index, match_score(game, seating)


def match_score(game: Game, seating: list[str]) -> float:
    """A's score in a finished match: 1 for a win, ½ for a shared win (or an unfinished match),
    0 for a loss.  With three players, A's final total against each B's (1, ½ or 0 each, the
    mean of the two), so that equal players score one half as in the other presets (whether A's
    total ends highest would give equal players one third).

    >>> g = Game(Settings.preset("three-player"), seed=1)
    >>> g.scores, g.is_over = [5200, 5200, 3100], True
    >>> match_score(g, ["a", "b", "b"]), match_score(g, ["b", "b", "a"])
    (0.75, 0.0)
    """
    team_of = game.state.team_of
    a_teams = {team_of[s] for s, w in enumerate(seating) if w == "a"}
    if not game.is_over:
        return 0.5
    if game.settings.team_count > 2:
        scores = game.scores
        b_teams = {team_of[s] for s, w in enumerate(seating) if w == "b"}
        pairs = [
            1.0 if scores[x] > scores[y] else 0.5 if scores[x] == scores[y] else 0.0
            for x in a_teams
            for y in b_teams
        ]
        return sum(pairs) / len(pairs)
    won = [t for t in game.winners if t in a_teams]
    if won and len(game.winners) > len(won):
        return 0.5  # a shared win (draw)
    return 1.0 if won else 0.0


def _mean_ci(xs: list[float]) -> tuple[float, float, float]:
    n = len(xs)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(xs) / n
    if n < 2:
        return mean, mean, mean
    var = sum((x - mean) ** 2 for x in xs) / (n - 1)
    half = 1.96 * math.sqrt(var / n)
    return mean, mean - half, mean + half


def elo_from_score(p: float, n: int) -> float:
    """Elo difference implied by a score fraction (clamped away from 0 and 1)."""
    if n <= 0:
        return 0.0
    eps = 0.5 / n
    p = min(max(p, eps), 1 - eps)
    return -400.0 * math.log10(1.0 / p - 1.0)


class Progress:
    """A one-line progress bar with an ETA, on stderr."""

    def __init__(self, total: int, label: str, enabled: bool = True) -> None:
        self.total = total
        self.label = label
        self.enabled = enabled and total > 0
        self.start = time.monotonic()
        self.done = 0
        self.last = 0.0
        self.values: list[float] = []

    def step(self, value: float | None = None) -> None:
        self.done += 1
        if value is not None:
            self.values.append(value)
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < 0.2 and self.done < self.total:
            return
        self.last = now
        elapsed = now - self.start
        eta = elapsed / self.done * (self.total - self.done)
        width = 30
        filled = int(width * self.done / self.total)
        bar = "#" * filled + "." * (width - filled)
        mean = f" mean {sum(self.values) / len(self.values):+.3g}" if self.values else ""
        sys.stderr.write(
            f"\r{self.label} [{bar}] {self.done}/{self.total} {elapsed:5.0f}s elapsed, ETA {eta:5.0f}s{mean}"
        )
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _run(task: Any, jobs: list[Any], workers: int, progress: Progress) -> dict[int, float]:
    results: dict[int, float] = {}
    if workers <= 1:
        for job in jobs:
            i, v = task(job)
            results[i] = v
            progress.step(v)
        return results
    ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    with ctx.Pool(workers) as pool:
        for i, v in pool.imap_unordered(task, jobs, chunksize=1):
            results[i] = v
            progress.step(v)
    return results


def run_arena(
    a: str,
    b: str,
    preset: str,
    deals: int,
    workers: int,
    seed: int,
    matches: int = 0,
    json_out: bool = False,
    *,
    options: dict[str, Any] | None = None,
    progress: bool = True,
    quiet: bool = False,
) -> dict[str, Any]:
    """Play ``deals`` duplicate deals (and ``matches`` full matches) of level ``a`` against ``b``.

    Prints the figures (one JSON object with ``json_out``) and returns them as a dict with keys
    ``mean_diff``, ``ci95``, ``deals``, ``match_win_rate``, ``matches``, ``elo`` (and details).
    """
    for level in (a, b):
        if level not in LEVELS:
            raise ValueError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
    options = dict(options or {})
    t0 = time.monotonic()
    jobs = [(a, b, preset, seed, i, options) for i in range(deals)]
    res = _run(_deal_task, jobs, workers, Progress(deals, "deals", progress))
    diffs = [res[i] for i in range(deals)]
    mean, lo, hi = _mean_ci(diffs)
    deal_score = sum(1.0 if d > 0 else 0.5 if d == 0 else 0.0 for d in diffs)
    mjobs = [(a, b, preset, seed, i, options) for i in range(matches)]
    mres = _run(_match_task, mjobs, workers, Progress(matches, "matches", progress))
    wins = [mres[i] for i in range(matches)]
    rate = sum(wins) / matches if matches else None
    pair_ci: list[float] | None = None
    if matches:
        p = sum(wins) / matches
        half = 1.96 * math.sqrt(max(p * (1 - p), 1e-12) / matches)
        match_ci = [max(0.0, p - half), min(1.0, p + half)]
        # the same interval from the duplicate groups (one mean per deck, complete groups only),
        # which counts the seatings of one deck as one observation rather than independent ones
        size = len(seatings(Settings.preset(preset).players))
        groups = [sum(wins[i : i + size]) / size for i in range(0, matches - size + 1, size)]
        if len(groups) >= 2:
            _, g_lo, g_hi = _mean_ci(groups)
            pair_ci = [max(0.0, g_lo), min(1.0, g_hi)]
        elo = elo_from_score(p, matches)
        elo_basis = "matches"
    else:
        match_ci = None
        elo = elo_from_score(deal_score / deals, deals) if deals else 0.0
        elo_basis = "deals"
    out: dict[str, Any] = {
        "a": a,
        "b": b,
        "preset": preset,
        "seed": seed,
        "deals": deals,
        "mean_diff": round(mean, 2),
        "ci95": [round(lo, 2), round(hi, 2)],
        "deal_win_rate": round(deal_score / deals, 4) if deals else None,
        "matches": matches,
        "match_win_rate": None if rate is None else round(rate, 4),
        "match_ci95": None if match_ci is None else [round(x, 4) for x in match_ci],
        "match_ci95_duplicate": None if pair_ci is None else [round(x, 4) for x in pair_ci],
        "elo": round(elo, 1),
        "elo_basis": elo_basis,
        "workers": workers,
        "seconds": round(time.monotonic() - t0, 1),
    }
    if options:
        out["options"] = options
    if not quiet:
        if json_out:
            print(json.dumps(out))
        else:
            print(f"{a} vs {b}, preset {preset}, {deals} duplicate deals (seed {seed})")
            print(f"  mean points/deal for {a}: {mean:+.1f}  (95% CI {lo:+.1f} .. {hi:+.1f})")
            if deals:
                print(f"  deals won by {a}: {deal_score / deals:.1%}")
            if matches and rate is not None and match_ci is not None:
                print(
                    f"  match score of {a}: {rate:.1%} of {matches} matches "
                    f"(95% CI {match_ci[0]:.1%} .. {match_ci[1]:.1%})"
                )
            print(f"  implied Elo difference: {elo:+.0f} (from {elo_basis})")
    return out


def main(argv: list[str] | None = None) -> int:
    """``canasta arena``: measure one level against another."""
    p = argparse.ArgumentParser(
        prog="canasta arena", description=__doc__.splitlines()[0] if __doc__ else None
    )
    p.add_argument("--a", default="expert", choices=LEVELS)
    p.add_argument("--b", default="normal", choices=LEVELS)
    p.add_argument("--preset", default="classic", choices=list(PRESETS))
    p.add_argument("--deals", type=int, default=100)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--matches", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.add_argument("--expert-time", type=float, default=None, help="Expert seconds per decision")
    p.add_argument(
        "--expert-iterations",
        type=int,
        default=None,
        help="Expert search iterations per decision (default 1000)",
    )
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    if args.deals < 0 or args.matches < 0 or args.workers < 1:
        p.error("--deals and --matches must be >= 0 and --workers >= 1")
    options: dict[str, Any] = {}
    if args.expert_time is not None:
        options["time_budget"] = args.expert_time
    if args.expert_iterations is not None:
        options["iterations"] = args.expert_iterations
    run_arena(
        args.a,
        args.b,
        args.preset,
        args.deals,
        args.workers,
        args.seed,
        args.matches,
        args.json,
        options=options,
        progress=not args.no_progress,
    )
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
