"""Expert: determinized Monte Carlo search over states sampled from the seat's view.

For each decision the Normal policy proposes its best few options.  The search deals many
plausible worlds consistent with the view (:class:`canasta.Resampler`), plays each option in
every world (common random numbers: all options meet the same worlds), finishes the hand with
fast rule-of-thumb rollouts, and keeps the option with the best average score difference for
its side.  The budget is a time limit and/or a number of rollouts per decision.
"""

from __future__ import annotations

import math
import random
import time

from ..actions import Action
from ..resample import Resampler
from ..state import State
from ..view import SeatView
from . import evaluate as ev
from .common import decision_rng, safe
from .evaluate import Memory
from .policy import NORMAL, Policy, Style

#: rollouts play the Normal rules of thumb without memory (the history is dropped for speed)
ROLLOUT = Style()
#: default budget: this many rollouts per decision, cut short after this many seconds
DEFAULT_ITERATIONS = 200
DEFAULT_TIME = 0.9
DEFAULT_CANDIDATES = 5
#: rollout length cap (actions); the rest is judged by the static evaluation
ROLLOUT_ACTIONS = 400


def side_result(state: State, seat: int) -> float:
    """The seat's side score minus the best other side's, at the end of (or during) a hand."""
    side = state.side_of[seat]
    if state.result is not None:
        mine = 0.0
        best = -1e9
        for s in state.result.sides:
            if s.side == side:
                mine = s.total
            else:
                best = max(best, s.total)
        return mine - best
    # truncated rollout: table value, canasta chances, minus the cards held
    scores: dict[int, float] = {}
    for sd in set(state.side_of):
        pen = sum(ev.hand_penalty(state, s) for s in range(state.players) if state.side_of[s] == sd)
        scores[sd] = ev.side_table_score(state, sd) + 0.5 * ev.side_potential(state, sd) - pen
    mine = scores.pop(side)
    return mine - max(scores.values())


class ExpertPlayer:
    """Determinized Monte Carlo over Normal's candidate actions, with Normal-style rollouts."""

    level = "expert"

    def __init__(
        self,
        seed: int | None = None,
        *,
        time_budget: float | None = None,
        iterations: int | None = None,
        candidates: int = DEFAULT_CANDIDATES,
    ) -> None:
        self.seed = seed
        if time_budget is None and iterations is None:
            iterations, time_budget = DEFAULT_ITERATIONS, DEFAULT_TIME
        self.time_budget = time_budget
        self.iterations = iterations
        self.candidates = candidates
        self.guide = Policy(NORMAL)
        self.rollout = Policy(ROLLOUT)
        #: rollouts of the last decision (for benchmarks)
        self.last_iterations = 0

    def choose(self, view: SeatView) -> Action:
        self.last_iterations = 0
        if len(view.legal) == 1:
            return view.legal[0]
        rng = decision_rng(self.seed, view)
        sampler = Resampler(view)
        state = sampler.sample(random.Random(0))
        memory = Memory.from_history(view.history, view.players)
        ranked = self.guide.rank(state, None, memory)
        options: list[Action] = []
        for _, a in ranked:
            if a not in options and state.check(a) is None:
                options.append(a)
            if len(options) >= self.candidates:
                break
        if not options:
            return view.legal[0]
        if len(options) == 1:
            return options[0]
        best = self.search(sampler, view.seat or 0, options, rng)
        return safe(view, state, best)

    def search(self, sampler: Resampler, seat: int, options: list[Action], rng: random.Random) -> Action:
        """The option with the best mean result over sampled worlds (successive halving).

        The budget is split into rounds; in each round every surviving option is played in the
        same fresh worlds, then the worse half is dropped.  A time limit ends the search early.
        """
        k = len(options)
        totals = [0.0] * k
        counts = [0] * k
        alive = list(range(k))
        start = time.perf_counter()
        tb = self.time_budget
        budget = self.iterations if self.iterations is not None else 10**9
        rounds = max(1, math.ceil(math.log2(k)))
        done = 0
        roll = self.rollout
        stop = False
        deadline: float | None = None
        for r in range(rounds):
            last = r == rounds - 1
            share = (budget - done) // (rounds - r)
            worlds = max(1, share // len(alive)) if not last else max(1, (budget - done) // len(alive))
            # with a time budget each round also gets its share of the time
            deadline = None if tb is None else start + tb * (r + 1) / rounds
            for _ in range(worlds):
                world = sampler.sample(rng, history=False)
                for i in alive:
                    s = world.copy(history=False)
                    s.apply(options[i], validate=False)
                    n = 0
                    while not s.is_over and n < ROLLOUT_ACTIONS:
                        s.apply(roll.choose(s), validate=False)
                        n += 1
                    totals[i] += side_result(s, seat)
                    counts[i] += 1
                    done += 1
                if deadline is not None and time.perf_counter() >= deadline:
                    stop = last
                    break
            if stop or len(alive) <= 1:
                break
            if not last:
                alive.sort(key=lambda i: -(totals[i] / counts[i]))
                alive = alive[: max(1, (len(alive) + 1) // 2)]
        self.last_iterations = done
        best = max(alive, key=lambda i: (totals[i] / max(1, counts[i]), -i))
        return options[best]
