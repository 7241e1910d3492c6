"""Expert: information-set Monte Carlo tree search over worlds sampled from the seat's view.

The search follows single-observer ISMCTS (Cowling, Powley and Whitehouse, "Information Set
Monte Carlo Tree Search", 2012).  Every iteration deals one world consistent with the view
(:class:`canasta.Resampler`: the other hands and the stock at random), walks down one tree
shared by all worlds, choosing among the actions available in *this* world by UCB1 with
availability counts (a child's exploration term counts the iterations it could have been
chosen, not its parent's visits), expands one new node, finishes with a Normal rollout and
backs the result up, each node scored for the side of the seat that chose it.

Normal guides the tree: a node offers only the Normal policy's best few options (the root
more, deeper nodes fewer), tried best first; and Normal plays the rollouts, cut after
``rollout_actions`` actions and judged by the shared static evaluation.  The root's answer
is its most visited child, unless that child's mean beats Normal's first choice by less than
``trust`` standard errors: outcomes vary so much between worlds that a lead on luck is common.  The budget is ``iterations`` and/or ``time_budget`` (seconds);
with a rollout budget alone the choice depends only on the seed and the view.
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
#: default budget: this many iterations per decision, cut short after this many seconds
DEFAULT_ITERATIONS = 1000
DEFAULT_TIME = 0.9
#: options the root offers (Normal's best first) and options deeper nodes offer
DEFAULT_CANDIDATES = 6
INNER_CANDIDATES = 2
#: rollout length (actions) before the static evaluation judges the position
DEFAULT_ROLLOUT_ACTIONS = 12
#: nodes deeper than this many actions below the root are not expanded (rollout only)
MAX_DEPTH = 6
#: UCB1 exploration weight, in points of the side's score difference
EXPLORATION = 250.0
#: standard errors by which the search's favourite must beat Normal's first choice (0: off)
TRUST = 1.0


def side_result(state: State, seat: int, hands: bool = True) -> float:
    """The seat's side score minus the best other side's, at the end of (or during) a hand.

    During a hand (a truncated rollout) the static evaluation judges: the table, canasta
    chances and the cards held, by :func:`canasta.bots.evaluate.hand_worth` with ``hands``
    (else every card held counts as penalty, the evaluation before 2 Dec 2026).
    """
    side = state.side_of[seat]
    if state.result is not None:
        mine = 0.0
        best = -1e9
        for s in state.result.sides:
            if s.side == side:
                mine = float(s.total)
            else:
                best = max(best, float(s.total))
        return mine - best
    # truncated rollout: table value, canasta chances, minus the cards held
    scores: dict[int, float] = {}
    for sd in set(state.side_of):
        seats = [s for s in range(state.players) if state.side_of[s] == sd]
        if hands:
            held = sum(ev.hand_worth(state, s) for s in seats)
        else:
            held = -float(sum(ev.hand_penalty(state, s) for s in seats))
        scores[sd] = ev.side_table_score(state, sd) + 0.5 * ev.side_potential(state, sd, hands) + held
    mine = scores.pop(side)
    return mine - max(scores.values())


class _Node:
    """One node of the search tree: the action that led here and its statistics."""

    __slots__ = ("actor", "avail", "children", "squares", "total", "visits")

    def __init__(self, actor: int) -> None:
        #: the seat that chose the action leading to this node (its side owns ``total``)
        self.actor = actor
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        self.squares = 0.0
        self.children: dict[Action, _Node] = {}


class ExpertPlayer:
    """ISMCTS guided by Normal, with Normal rollouts cut short and judged statically."""

    level = "expert"

    def __init__(
        self,
        seed: int | None = None,
        *,
        time_budget: float | None = None,
        iterations: int | None = None,
        candidates: int = DEFAULT_CANDIDATES,
        inner_candidates: int = INNER_CANDIDATES,
        rollout_actions: int = DEFAULT_ROLLOUT_ACTIONS,
        exploration: float = EXPLORATION,
        trust: float = TRUST,
        hand_worth: bool = True,
    ) -> None:
        self.seed = seed
        if time_budget is None and iterations is None:
            iterations, time_budget = DEFAULT_ITERATIONS, DEFAULT_TIME
        self.time_budget = time_budget
        self.iterations = iterations
        self.candidates = candidates
        self.inner_candidates = inner_candidates
        self.rollout_actions = rollout_actions
        self.exploration = exploration
        self.trust = trust
        #: judge truncated rollouts with the worth of the cards held (False: as penalty only)
        self.hand_worth = hand_worth
        self.guide = Policy(NORMAL)
        self.rollout = Policy(ROLLOUT)
        #: iterations (sampled worlds) of the last decision (for benchmarks)
        self.last_iterations = 0

    def choose(self, view: SeatView) -> Action:
        self.last_iterations = 0
        if len(view.legal) == 1:
            return view.legal[0]
        rng = decision_rng(self.seed, view)
        sampler = Resampler(view)
        state = sampler.sample(random.Random(0))
        memory = Memory.from_history(view.history, view.players)
        options = self._options(state, self.guide, memory, self.candidates)
        if not options:
            return view.legal[0]
        if len(options) == 1:
            return options[0]
        best = self.search(sampler, view.seat or 0, options, rng)
        return safe(view, state, best)

    @staticmethod
    def _options(state: State, policy: Policy, memory: Memory | None, k: int) -> list[Action]:
        """The policy's best ``k`` distinct legal options, best first."""
        options: list[Action] = []
        for _, a in policy.rank(state, None, memory):
            if a not in options and state.check(a) is None:
                options.append(a)
                if len(options) >= k:
                    break
        return options

    def search(self, sampler: Resampler, seat: int, options: list[Action], rng: random.Random) -> Action:
        """ISMCTS from the root's ``options``; returns the most visited one."""
        root = _Node(seat)
        for a in options:
            root.children[a] = _Node(seat)
        budget = self.iterations if self.iterations is not None else 10**9
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
        roll = self.rollout
        c = self.exploration
        inner = self.inner_candidates
        limit = self.rollout_actions
        hands = self.hand_worth
        done = 0
        path: list[_Node] = []
        while done < budget:
            world = sampler.sample(rng, history=False)
            node = root
            path.clear()
            cands: list[Action] = options
            depth = 0
            while True:
                # choose among the children available in this world (UCB1 with availability)
                best: _Node | None = None
                best_a: Action | None = None
                best_u = -math.inf
                fresh: tuple[Action, _Node] | None = None
                for a in cands:
                    child = node.children.get(a)
                    if child is None:
                        if fresh is None and depth < MAX_DEPTH:
                            fresh = (a, _Node(world.turn))
                        continue
                    child.avail += 1
                    if child.visits == 0:
                        u = math.inf
                    else:
                        u = child.total / child.visits + c * math.sqrt(math.log(child.avail) / child.visits)
                    if u > best_u:
                        best_u, best, best_a = u, child, a
                if best is not None and best.visits == 0:
                    pass  # an untried root option first
                elif fresh is not None:
                    best_a, best = fresh
                    node.children[best_a] = best
                    best.avail = 1
                if best is None or best_a is None:
                    break
                world.apply(best_a, validate=False)
                path.append(best)
                node = best
                depth += 1
                if best.visits == 0 or world.is_over:
                    break
                cands = self._options(world, roll, None, inner)
                if not cands:
                    break
            n = 0
            while not world.is_over and n < limit:
                world.apply(roll.choose(world), validate=False)
                n += 1
            results: dict[int, float] = {}
            for nd in path:
                r = results.get(nd.actor)
                if r is None:
                    r = results[nd.actor] = side_result(world, nd.actor, hands)
                nd.visits += 1
                nd.total += r
                nd.squares += r * r
            done += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        return options[self._pick(root, options)]

    def _pick(self, root: _Node, options: list[Action]) -> int:
        """The most visited option, unless the evidence against Normal's first choice is weak.

        Outcomes vary a lot from world to world, so an option can lead on luck; the guide's
        first choice stands unless the leader's mean beats it by ``trust`` standard errors.
        """
        kids = [root.children[a] for a in options]
        i_best = max(range(len(options)), key=lambda i: (kids[i].visits, -i))
        if i_best == 0 or self.trust <= 0:
            return i_best
        a, b = kids[i_best], kids[0]
        if b.visits < 2 or a.visits < 2:
            return i_best

        def mean_var(n: _Node) -> tuple[float, float]:
            m = n.total / n.visits
            var = max(0.0, n.squares / n.visits - m * m)
            return m, var / (n.visits - 1)

        ma, va = mean_var(a)
        mb, vb = mean_var(b)
        return i_best if ma - mb > self.trust * math.sqrt(va + vb) else 0
