"""Expert: information-set Monte Carlo tree search over worlds sampled from the seat's view.

The search follows single-observer ISMCTS (Cowling, Powley and Whitehouse, "Information Set
Monte Carlo Tree Search", 2012).  Every iteration deals one world consistent with the view
(:class:`canasta.Resampler`: the other hands and the stock at random), walks down one tree
shared by all worlds, choosing among the actions available in *this* world by UCB1 with
availability counts (a child's exploration term counts the iterations it could have been
chosen, not its parent's visits), expands one new node, finishes with a Normal rollout and
backs the result up, each node scored for the side of the seat that chose it.

Normal's rules of thumb guide the tree: the root offers only the best few options of Expert's
guide (:data:`GUIDE`, which differs from Normal only in three-player discards), deeper nodes
fewer, the rollout policy's (Normal's), tried best first; and Normal plays the rollouts, cut
after ``rollout_actions`` actions and judged statically: by a linear leaf fitted to how hands
end (:data:`LEAF_WEIGHTS`) where a preset has one, else by the shared hand-made evaluation;
with three players all alone, by a leaf fitted to rank options (:data:`ALONE_LEAF_WEIGHTS`).
The root's answer is its most visited child, unless that child's mean beats the guide's first
choice by less than ``trust`` standard errors: outcomes vary so much between worlds that a
lead on luck is common.  The budget is ``iterations`` and/or ``time_budget`` (seconds);
with a rollout budget alone the choice depends only on the seed and the view.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field, replace

from ..actions import Action
from ..cards import F_RED3, FACE, MELD_FACES
from ..resample import Resampler
from ..rules import PRESETS, Settings
from ..state import State
from ..view import SeatView
from . import evaluate as ev
from .common import decision_rng, own_state, safe
from .evaluate import Memory, frozen_by_cards
from .policy import NORMAL, Policy, Style

#: rollouts play the Normal rules of thumb without memory (the history is dropped for speed)
ROLLOUT = Style()
#: Expert's guide (its choice where it does not search, and the order of the options where it
#: does): Normal's rules of thumb, except that with three players, while all three play alone
#: (R14), it discards without weighing the danger of handing the next player the pile (Normal
#: opponents seldom take it first; +20.7 and +32.8 points a deal on two seeds, the bots
#: README, "Three-player: a guide that does not fear the pile"), nor throws a deuce to freeze
#: the pile against that danger (+6.1 and +2.7 more: "Three-player: no freeze while alone")
GUIDE = replace(NORMAL, alone_danger=0.0)
#: default budget: this many iterations per decision, cut short after this many seconds
DEFAULT_ITERATIONS = 1000
DEFAULT_TIME = 0.9
#: nodes deeper than this many actions below the root are not expanded (rollout only)
MAX_DEPTH = 6
#: points the leaf credits per natural pair held while the pile's own cards freeze it (R7):
#: Normal's own price for keeping such a pair (``pair_wild`` -80); see the bots README,
#: "Expert in bicycle: a natural pair is a key to a pile its cards freeze"
FROZEN_PAIR = 80.0
#: a label for :data:`SEARCHED_PHASES`: the play phase only while two sides are left, that is
#: with three players once a partnership has formed (R14); with two or four players always
PLAY_TWO_SIDES = "play-two-sides"
#: a label for :data:`SEARCHED_PHASES`: the play phase while the stock holds at most
#: :data:`LATE_STOCK` cards, when the rollouts (:attr:`ExpertPlayer.rollout_actions` actions)
#: mostly reach the hand's end instead of the static evaluation
PLAY_LATE = "play-late"
#: see :data:`PLAY_LATE`: with two-card draws (three-player), about the last round of turns
LATE_STOCK = 8
#: a label for :data:`SEARCHED_PHASES`: the play phase while all three players play alone
#: (R14) and the stock holds more than :data:`LATE_STOCK` cards, where the rollouts are judged
#: by the all-alone leaf (:data:`ALONE_LEAF_WEIGHTS`; only in the preset it was fitted for)
PLAY_ALONE = "play-alone"
#: every label :func:`searched` (and ``ExpertPlayer.phases``) understands
PHASE_LABELS = frozenset({"draw", "play", "ask", PLAY_TWO_SIDES, PLAY_LATE, PLAY_ALONE})
#: the decisions Expert searches, by the number of players (the others: the guide's choice).  With
#: three players, searching the draw alone beat searching every decision by 34 and 36 points a
#: deal (two seeds, 300 deals each, 200 iterations): see the bots README, "Expert in
#: three-player: the pile, not the melds"; searching the play phase too once a partnership
#: has formed added 8.5 and 6.8 more (the bots README, "Three-player: against both rivals"),
#: and searching it while the stock is nearly out (:data:`PLAY_LATE`) 9.7 and 10.4 more (the
#: bots README, "Three-player: the last round, and rivals that play their policy"); searching
#: the rest of the play phase (:data:`PLAY_ALONE`) with a leaf fitted for it, 12.0, 6.4 and
#: 17.1 more on three seeds (the bots README, "Three-player: a leaf fitted to rank options by
#: full-hand outcomes")
SEARCHED_PHASES: dict[int, frozenset[str]] = {
    2: frozenset({"draw", "play", "ask"}),
    3: frozenset({"draw", "ask", PLAY_TWO_SIDES, PLAY_LATE, PLAY_ALONE}),
    4: frozenset({"draw", "play", "ask"}),
}
#: options a node below the root offers where another seat chooses, by the number of players
#: (absent: ``ExpertPlayer.inner_candidates``).  With three players the other two seats play
#: the rollout policy's first choice in the tree too, rather than the better for them of its
#: best two: with :data:`PLAY_LATE` +17.3 and +17.8 points a deal, against +9.7 and +10.4 for
#: PLAY_LATE alone and +2.8 and +2.0 for this alone, each against the code of 3 Dec 2026 (the
#: bots README, "Three-player: the last round, and rivals that play their policy")
OTHER_CANDIDATES: dict[int, int] = {3: 1}


def searched(view: SeatView, phases: frozenset[str]) -> bool:
    """Whether a decision at ``view`` is one of ``phases`` (phase names, :data:`PLAY_TWO_SIDES`
    for the play phase while only two sides are left, :data:`PLAY_LATE` for the play phase
    while the stock holds at most :data:`LATE_STOCK` cards, :data:`PLAY_ALONE` for the play
    phase before that while all three play alone, where the all-alone leaf applies)."""
    if view.phase in phases:
        return True
    if view.phase != "play":
        return False
    if PLAY_TWO_SIDES in phases and len(set(view.side_of)) == 2:
        return True
    if PLAY_LATE in phases and view.stock_size <= LATE_STOCK:
        return True
    return PLAY_ALONE in phases and is_alone_play(view)


def is_alone_play(view: SeatView) -> bool:
    """A play decision while all three play alone (R14), the stock over :data:`LATE_STOCK`
    cards, at a table the all-alone leaf was fitted for (:func:`alone_leaf_weights`)."""
    return (
        view.phase == "play"
        and len(set(view.side_of)) == 3
        and view.stock_size > LATE_STOCK
        and alone_leaf_weights(view.settings) is not None
    )


#: per preset: the weights of :func:`canasta.bots.evaluate.side_features` in the fitted leaf,
#: from ``python bench/leaf_fit.py --presets classic,bicycle --hands 20000`` (least squares on
#: how rollout-policy hands ended).  Against the hand-made leaf, at 200 iterations on 200
#: duplicate deals, Expert gained 87 to 161 points a deal over Normal (two seeds, both
#: presets; three of the four gains significant): the bots README, "A fitted leaf".  Presets
#: without weights keep the hand-made leaf.  ``held`` is the sum of the six features after it,
#: so those seven weights mean something only together (the fit's ridge splits them)
LEAF_WEIGHTS: dict[str, tuple[float, ...]] = {
    "classic": (
        1.034, 0.2588, 0.8565, 2.1824, 4.0406, -1.2426, 0.519, 1.445, 0.1414, 7.5769, -30.7565,
        -197.439, 516.7049, 93.3269, 22.8329, 0.053, -0.5788, 1.7742, 4.2221, -0.2194, 9.2996,
        -23.3178, 0.0977, 0.0424, -0.4643,
    ),
    "bicycle": (
        0.991, 0.2352, 1.2234, 1.6243, 1.6559, 0.0771, 1.1907, 2.2449, 1.2478, -2.9414, -27.8853,
        -164.2571, 577.5651, 43.9158, 3.95, 0.2296, -0.4069, -0.0742, 4.8518, 1.3485, 10.1569,
        -5.1144, -0.1642, -0.3065, 0.5646,
    ),
}


def leaf_weights(settings: Settings) -> tuple[float, ...] | None:
    """The fitted leaf's weights for a table of these settings, or None (the hand-made leaf).

    Only for a preset as it was fitted: a house rule that changes the game (more canastas to
    go out, black threes that freeze, another hand size...) keeps the hand-made leaf; the
    match target, the tie rule and the partner's question leave a hand's play alone.
    """
    weights = LEAF_WEIGHTS.get(settings.name)
    base = PRESETS.get(settings.name)
    if weights is None or base is None:
        return None
    same = replace(settings, target=base.target, tie=base.tie, ask_partner=base.ask_partner)
    return weights if same == base else None


#: the weights of :func:`canasta.bots.evaluate.alone_features` in the all-alone leaf, which
#: judges the rollouts of :data:`PLAY_ALONE` decisions that end with all three still alone:
#: from ``python bench/alone_fit.py --hands 5000 --seed 2 --p 0.04 --k 4`` (ridge regression
#: within each decision, so that it ranks the options by how whole hands end rather than
#: judging the deal).  Each weight means something only with the others: several features are
#: equal for a side of one player, and ``pile_size``, the same for all three, cancels (0.0)
ALONE_LEAF_WEIGHTS: tuple[float, ...] = (
        0.284218, -0.255896, 0.428094, -0.0577206, -1.38447, 3.55638, 0.539495, 0.276922,
        0.0155579, -23.1044, 140.557, -116.733, 55.1516, -28.9801, 3.1447, 0.0261112, -0.016355,
        -0.209672, -0.211624, -1.09155, -2.77534, 16.5849, 0.74784, -0.0146426, -1.27173,
        0.020691, 0.0351363, 0.0286974, -0.0259377, -0.00219381, -0.601384, -0.0097901, 0.0,
        -35.039, 55.1516, 32.7412, -12.4424, 136.07, 56.0692, -2.32248, 38.5312, 11.2644,
        0.106126, 0.19149, 1.21727, 0.0322724, -0.0510719, -47.0088, -9.26267, -249.007, 38.7265,
        4.63066, 14.394, 11.2398, 14.6765,
)
#: the preset :data:`ALONE_LEAF_WEIGHTS` were fitted for
ALONE_LEAF_PRESET = "three-player"


def alone_leaf_weights(settings: Settings) -> tuple[float, ...] | None:
    """:data:`ALONE_LEAF_WEIGHTS` for a table of these settings, or None.

    As :func:`leaf_weights`: only the rules the weights were fitted for, up to the match
    target, the tie rule and the partner's question.
    """
    base = PRESETS.get(ALONE_LEAF_PRESET)
    if base is None or settings.name != ALONE_LEAF_PRESET:
        return None
    same = replace(settings, target=base.target, tie=base.tie, ask_partner=base.ask_partner)
    return ALONE_LEAF_WEIGHTS if same == base else None


def alone_scores(state: State, weights: tuple[float, ...]) -> list[float]:
    """Each side's worth by the all-alone leaf (three sides of one player each)."""
    return [
        sum(w * x for w, x in zip(weights, ev.alone_features(state, sd), strict=True))
        for sd in range(3)
    ]


def alone_against(scores: list[float], side: int) -> float:
    """A side's worth (of :func:`alone_scores`) minus the mean of the other two sides' worth:
    as a three-player match score counts each rival (the leaf was fitted to this difference)."""
    mine = scores[side]
    return mine - (sum(scores) - mine) / 2.0


def alone_result(state: State, seat: int, weights: tuple[float, ...]) -> float:
    """The all-alone leaf for a seat, as the search judges a rollout that ends all alone."""
    return alone_against(alone_scores(state, weights), state.side_of[seat])


def pair_evidence(memory: Memory, seat: int, players: int) -> list[tuple[int, int, float]]:
    """(seat, face, strength) for every other seat the public history says holds no pair of a face.

    The strength is :meth:`Memory.no_pair`: the case made by the seat letting the pile go with
    that face on top, or throwing the face, faded by its draws since.  Normal discards by it;
    the sampled worlds must agree, or a card the next player just refused looks as dangerous
    as any.
    """
    out: list[tuple[int, int, float]] = []
    for s in range(players):
        if s == seat:
            continue
        for f in MELD_FACES:
            p = memory.no_pair(s, f)
            if p > 0.0:
                out.append((s, f, p))
    return out


def respect_evidence(
    world: State, evidence: list[tuple[int, int, float]], rng: random.Random
) -> None:
    """Break up the sampled pairs the history speaks against, each with the evidence's strength.

    A hidden copy of the face beyond the first goes to a random place in the stock in exchange
    for a stock card of another face (never a red three, which would have been exposed), so
    the world keeps every count the view shows.  Copies publicly known to be held stay.
    """
    stock = world.stock
    if not stock:
        return
    # faces each seat should not pair: a card swapped in must not make such a pair either
    faces: dict[int, set[int]] = {}
    for s, f, _ in evidence:
        faces.setdefault(s, set()).add(f)
    for s, f, p in evidence:
        fc = world.fc[s]
        if fc[f] < 2:
            continue
        spare = [c for c in world.known[s] if FACE[c] == f]  # public: these stay
        if len(spare) >= 2 or rng.random() >= p:
            continue
        hand = world.hands[s]
        keep = max(1, len(spare))
        for i, c in enumerate(hand):
            if fc[f] <= keep:
                break
            if FACE[c] != f:
                continue
            if c in spare:
                spare.remove(c)
                continue
            avoid = faces[s]
            for _ in range(16):
                j = rng.randrange(len(stock))
                new = stock[j]
                g = FACE[new]
                if g != f and g != F_RED3 and not (fc[g] and g in avoid):
                    stock[j] = c
                    hand[i] = new
                    fc[f] -= 1
                    fc[g] += 1
                    break
        hand.sort()


def pile_keys(state: State, side: int, by_cards: bool = False) -> int:
    """Natural pairs a side holds while the pile is frozen for it: the keys to the pile (R8).

    With ``by_cards``, only while the pile's cards freeze it (:func:`frozen_by_cards`).
    """
    if not state.pile or not state.is_frozen_for(side):
        return 0
    if by_cards and not frozen_by_cards(state):
        return 0
    return ev.pair_faces(state, side)


def side_result(
    state: State,
    seat: int,
    hands: bool = True,
    keys: float = 0.0,
    pair_key: float = 0.0,
    frozen_pair: float = 0.0,
    weights: tuple[float, ...] | None = None,
    mean_rivals: bool = False,
) -> float:
    """The seat's side score minus the best other side's, at the end of (or during) a hand.

    With ``mean_rivals``, minus the mean of the other players' (the other teams') totals
    instead, as a pairwise match score counts them: the same with two teams; with three
    players (R14) the other two sides' mean while all three play alone, and once a
    partnership has formed, a partner counts half its partnership's lead (against the partner,
    whose total gains the same, the hand counts for nothing) and the lone player all of it.

    During a hand (a truncated rollout) the static evaluation judges: the table, canasta
    chances and the cards held, by :func:`canasta.bots.evaluate.hand_worth` with ``hands``
    (else every card held counts as penalty, the evaluation before 2 Dec 2026).  With
    ``keys``, a frozen pile counts for each side in proportion to its natural pairs, the only
    way to take it (``keys`` of the pile's value per pair, at most all of it): the static
    evaluation otherwise counts a pair for nothing, so melding it with a wild looks free.
    ``pair_key`` adds that many points per such pair whatever the pile holds now (the pile a
    pair will take is mostly still to come).  ``frozen_pair`` adds that many points per pair
    only while the pile's own cards freeze it (:func:`frozen_by_cards`): a side that has not
    opened unfreezes the pile by opening, so there its pairs are no keys worth keeping.
    With ``weights`` (:data:`LEAF_WEIGHTS`), a side's worth is instead the weighted sum of its
    :func:`canasta.bots.evaluate.side_features`, fitted on how whole hands ended.
    """
    if state.result is not None:
        final = {s.side: float(s.total) for s in state.result.sides}
        return _against_rivals(state, seat, final, mean_rivals)
    scores: dict[int, float] = {}
    if weights is not None:
        for sd in set(state.side_of):
            f = ev.side_features(state, sd)
            scores[sd] = sum(w * x for w, x in zip(weights, f, strict=True))
        return _against_rivals(state, seat, scores, mean_rivals)
    # truncated rollout: table value, canasta chances, minus the cards held
    # frozen by its cards, the pile is frozen for every side: asked once, not per side
    by_cards = bool(frozen_pair) and frozen_by_cards(state)
    for sd in set(state.side_of):
        seats = [s for s in range(state.players) if state.side_of[s] == sd]
        if hands:
            held = sum(ev.hand_worth(state, s) for s in seats)
        else:
            held = -float(sum(ev.hand_penalty(state, s) for s in seats))
        scores[sd] = (
            ev.side_table_score(state, sd) + 0.5 * ev.side_potential(state, sd, hands) + held
        )
        if keys or pair_key:
            pairs = pile_keys(state, sd)
            if pairs:
                scores[sd] += min(1.0, keys * pairs) * ev.pile_value(state) + pair_key * pairs
        if by_cards:
            scores[sd] += frozen_pair * pile_keys(state, sd)
    return _against_rivals(state, seat, scores, mean_rivals)


def _against_rivals(state: State, seat: int, scores: dict[int, float], mean: bool) -> float:
    """The seat's side's worth (``scores`` per side) minus what it is judged against.

    Without ``mean``: the best other side's worth.  With ``mean``: the mean over the other
    teams, the holders of a cumulative score, each worth its side's score.  With two teams
    that is the other side; with three players (R14) a partner is a rival too: its total gains
    what the seat's gains, so against the partner a hand counts for nothing, and the seat is
    judged by half its partnership's lead over the lone player (the lone player by all of it,
    against each partner).
    """
    side_of = state.side_of
    mine = scores[side_of[seat]]
    if not mean:
        return mine - max(v for sd, v in scores.items() if sd != side_of[seat])
    team_of = state.team_of
    me = team_of[seat]
    rivals = {team_of[s]: scores[side_of[s]] for s in range(state.players) if team_of[s] != me}
    return mine - sum(rivals.values()) / len(rivals)


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


@dataclass(eq=False, kw_only=True)
class ExpertPlayer:
    """ISMCTS guided by Normal's rules of thumb, with Normal rollouts cut short and judged
    statically.

    Every setting but the seed is a keyword.  With neither ``iterations`` nor ``time_budget``
    the budget is :data:`DEFAULT_ITERATIONS` iterations, cut short after :data:`DEFAULT_TIME`
    seconds.
    """

    level: str = field(default="expert", init=False, repr=False)

    seed: int | None = field(default=None, kw_only=False)
    #: seconds per decision (None: no clock; the choice then depends only on the seed and view)
    time_budget: float | None = None
    #: iterations (sampled worlds) per decision (None: as many as the time allows)
    iterations: int | None = None
    #: options the root offers (the guide's best first) and options deeper nodes offer where
    #: the searching seat chooses (and other seats, without an OTHER_CANDIDATES entry)
    candidates: int = 6
    inner_candidates: int = 2
    #: options a deeper node offers where another seat chooses (None: by the number of
    #: players, :data:`OTHER_CANDIDATES`, else ``inner_candidates``)
    other_candidates: int | None = None
    #: UCB1 exploration weight, in points of the side's score difference
    exploration: float = 250.0
    #: standard errors by which the search's favourite must beat the guide's first choice (0: off)
    trust: float = 1.0
    #: how the hand-made leaf judges a rollout cut short (these four do not apply where the
    #: fitted leaf does): with the worth of the cards held (False: as penalty only), and what
    #: its natural pairs are worth while the pile is frozen:
    hand_worth: bool = True
    #: the share of a frozen pile's value credited per natural pair held (see
    #: :func:`side_result`; 0: the pile counts for nobody)
    keys: float = 0.0
    #: points credited per natural pair held while the pile is frozen for its side (0: off)
    pair_key: float = 0.0
    #: points credited per natural pair held while the pile's own cards freeze it (0: off, the
    #: evaluation before 2 Dec 2026)
    frozen_pair: float = FROZEN_PAIR
    #: judge a rollout cut short by the fitted linear leaves (:data:`LEAF_WEIGHTS`,
    #: :data:`ALONE_LEAF_WEIGHTS`) where they have weights (False: the hand-made evaluation
    #: above everywhere, and the :data:`PLAY_ALONE` decisions, searched for their leaf, are the
    #: guide's choice again)
    fitted: bool = True
    #: judge a side against the mean of the other players' totals, not the best other side: with
    #: three players (R14) a player gains by beating either rival, as the three-player match
    #: score counts it, and a partner's total gains what its own does (see :func:`side_result`;
    #: False: the best rival, before 3 Dec 2026; with two teams both are the same)
    mean_rivals: bool = True
    #: rollout length: Normal's actions before the static evaluation judges the position
    rollout_actions: int = 12
    #: sample worlds that agree with the public evidence of who holds no pair (see
    #: :func:`respect_evidence`; off: the hidden cards uniformly; measured no better)
    evidence: bool = False
    #: the phases whose decisions are searched (None: :data:`SEARCHED_PHASES` for the
    #: number of players; see :func:`searched`); in the others Expert plays its guide's choice
    #: (:data:`GUIDE`)
    phases: frozenset[str] | None = None
    #: iterations (sampled worlds) of the last decision (for benchmarks)
    last_iterations: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.phases is not None:
            unknown = sorted(set(self.phases) - PHASE_LABELS)
            if unknown:
                raise ValueError(f"unknown phases for Expert to search: {', '.join(unknown)}")
        if self.time_budget is None and self.iterations is None:
            self.iterations, self.time_budget = DEFAULT_ITERATIONS, DEFAULT_TIME
        self.guide = Policy(GUIDE)
        self.rollout = Policy(ROLLOUT)

    def choose(self, view: SeatView) -> Action:
        self.last_iterations = 0
        if len(view.legal) == 1:
            return view.legal[0]
        rng = decision_rng(self.seed, view)
        memory = Memory.from_history(view.history, view.players)
        phases = self.phases if self.phases is not None else SEARCHED_PHASES[view.players]
        if not self.fitted:  # searched without its leaf, the all-alone play measured worse
            phases = phases - {PLAY_ALONE}
        if not searched(view, phases):  # the guide's choice, as a player of its style makes it
            own = own_state(view)
            return safe(view, own, self.guide.choose(own, rng, memory))
        sampler = Resampler(view)
        state = sampler.sample(random.Random(0))
        options = self._options(state, self.guide, memory, self.candidates)
        if not options:
            return view.legal[0]
        if len(options) == 1:
            return options[0]
        seat = view.seat or 0
        evidence = pair_evidence(memory, seat, view.players) if self.evidence else []
        alone_root = PLAY_ALONE in phases and is_alone_play(view)
        alone = alone_leaf_weights(view.settings) if alone_root else None
        best = self.search(sampler, seat, options, rng, evidence=evidence, alone=alone)
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

    def search(
        self,
        sampler: Resampler,
        seat: int,
        options: list[Action],
        rng: random.Random,
        *,
        evidence: list[tuple[int, int, float]] | None = None,
        alone: tuple[float, ...] | None = None,
    ) -> Action:
        """ISMCTS from the root's ``options``; returns the most visited one.

        ``evidence`` (from :func:`pair_evidence`) shapes every sampled world.  With ``alone``
        (:data:`ALONE_LEAF_WEIGHTS`), a rollout that ends with all three still playing alone
        is judged by the all-alone leaf (:func:`alone_result`, always against the rivals'
        mean); one that ends after a partnership formed, or at the hand's end, as any other.
        """
        root = _Node(seat)
        for a in options:
            root.children[a] = _Node(seat)
        budget = self.iterations if self.iterations is not None else 10**9
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
        roll = self.rollout
        c = self.exploration
        inner = self.inner_candidates
        other = self.other_candidates
        if other is None:
            other = OTHER_CANDIDATES.get(sampler.view.players, inner)
        limit = self.rollout_actions
        hands = self.hand_worth
        keys = self.keys
        pair_key = self.pair_key
        frozen_pair = self.frozen_pair
        weights = leaf_weights(sampler.view.settings) if self.fitted else None
        mean_rivals = self.mean_rivals
        done = 0
        path: list[_Node] = []
        while done < budget:
            world = sampler.sample(rng, history=False)
            if evidence:
                respect_evidence(world, evidence, rng)
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
                        u = child.total / child.visits + c * math.sqrt(
                            math.log(child.avail) / child.visits
                        )
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
                cands = self._options(world, roll, None, inner if world.turn == seat else other)
                if not cands:
                    break
            n = 0
            while not world.is_over and n < limit:
                world.apply(roll.choose(world), validate=False)
                n += 1
            results: dict[int, float] = {}
            # the all-alone leaf scores the three sides once for every node on the path
            solo = (
                alone_scores(world, alone)
                if alone is not None and not world.is_over and len(set(world.side_of)) == 3
                else None
            )
            for nd in path:
                r = results.get(nd.actor)
                if r is None and solo is not None:
                    r = results[nd.actor] = alone_against(solo, world.side_of[nd.actor])
                if r is None:
                    r = results[nd.actor] = side_result(
                        world, nd.actor, hands, keys, pair_key, frozen_pair, weights, mean_rivals
                    )
                nd.visits += 1
                nd.total += r
                nd.squares += r * r
            done += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_iterations = done
        return options[self._pick(root, options)]

    def _pick(self, root: _Node, options: list[Action]) -> int:
        """The most visited option, unless the evidence against the guide's first choice is weak.

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
