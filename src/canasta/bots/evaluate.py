"""The shared evaluation every computer player uses.

All functions read a :class:`canasta.State` from the point of view of one seat and only ever
look at that seat's own hand plus public information (melds, the pile, red threes, card counts,
cards publicly known to be held, the stock size).  A bot builds such a state from its view with
:class:`canasta.Resampler`; the hidden cards the sample invents are never read here, so a
decision cannot depend on them.  The exceptions read every hand of a side, and serve Expert's
search, which judges whole sampled worlds: :func:`hand_worth`, :func:`side_potential` with
``hands``, :func:`side_features` and :func:`alone_features`.

The pieces: card values and keep values, meld progress and canasta chances, the pile's value,
the danger of a discard, the risk of being caught with cards in hand, and a static estimate of
a side's hand score.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..actions import Discard, Draw, Meld, TakePile
from ..cards import F_BLACK3, F_DEUCE, F_JOKER, F_RED3, FACE, IS_WILD, MELD_FACES, NUM_FACES, VALUE
from ..rules import CANASTA_SIZE, Settings

if TYPE_CHECKING:
    from ..hand import Event
    from ..state import State, TableMeld

#: copies of each face in the 108-card pack
FACE_COPIES: tuple[int, ...] = tuple(
    4 if f in (F_BLACK3, F_JOKER, F_RED3) else 8 for f in range(NUM_FACES)
)
#: average value of an unseen card (used to estimate hidden hand penalties)
AVG_CARD = 9.0
_MELD_SET = frozenset(MELD_FACES)


@dataclass(slots=True)
class Memory:
    """What a player remembers from the public history of the hand (Normal and above)."""

    #: per seat, per face: how many times the seat discarded that face this hand
    discarded: list[list[int]] = field(default_factory=list)
    #: per seat, per face: how many times the seat let the pile go with that face on top
    passed: list[list[int]] = field(default_factory=list)
    #: per seat, per face: how strongly the public history says the seat held no pair of that
    #: face (0..1), and the seat's stock cards drawn when that was last seen (see ``no_pair``)
    evidence: list[list[float]] = field(default_factory=list)
    evidence_at: list[list[int]] = field(default_factory=list)
    #: per seat: cards drawn from the stock so far this hand (public counts)
    drawn: list[int] = field(default_factory=list)

    #: the pile's top card and size after the events read (to read on from there)
    top: int | None = None
    size: int = 0

    @staticmethod
    def from_history(history: Sequence[Event], players: int) -> Memory:
        """Scan a hand's public history (events from a view or a state)."""
        memory = Memory(
            [[0] * NUM_FACES for _ in range(players)],
            [[0] * NUM_FACES for _ in range(players)],
            [[0.0] * NUM_FACES for _ in range(players)],
            [[0] * NUM_FACES for _ in range(players)],
            [0] * players,
        )
        memory.scan(history, 0)
        return memory

    def scan(self, history: Sequence[Event], start: int) -> None:
        """Read on from event ``start`` of ``history``, of which this memory has read exactly
        the events before ``start``."""
        discarded, passed, evidence, evidence_at, drawn = (
            self.discarded, self.passed, self.evidence, self.evidence_at, self.drawn
        )
        top, size = self.top, self.size
        for i in range(start, len(history)):
            e = history[i]
            a = e.action
            seat = e.seat
            if a is None:
                drawn[seat] += e.ndrawn
                continue
            if isinstance(a, Discard) or (isinstance(a, Meld) and a.discard is not None):
                c = a.card if isinstance(a, Discard) else a.discard
                assert c is not None
                f = FACE[c]
                discarded[seat][f] += 1
                # a player who throws a face seldom keeps a pair of it
                if evidence[seat][f] < 0.6:
                    evidence[seat][f] = 0.6
                evidence_at[seat][f] = drawn[seat]
                top = c
                size += 1
            elif isinstance(a, TakePile):
                top = None
                size = 0
            elif isinstance(a, Draw):
                if top is not None and not IS_WILD[top]:
                    f = FACE[top]
                    passed[seat][f] += 1
                    # letting a pile of three or more go says more than letting one card go
                    evidence[seat][f] = max(evidence[seat][f] * 0.5, 0.85 if size >= 3 else 0.4)
                    evidence_at[seat][f] = drawn[seat]
                drawn[seat] += e.ndrawn
        self.top, self.size = top, size

    def no_pair(self, seat: int, face: int) -> float:
        """0..1: the public history's case that ``seat`` holds no natural pair of ``face`` now.

        The case fades as the seat draws new cards from the stock since it was made.
        """
        if not self.evidence:
            return 0.0
        e = self.evidence[seat][face]
        if not e:
            return 0.0
        fade: float = 0.5 ** ((self.drawn[seat] - self.evidence_at[seat][face]) / 6.0)
        return e * fade


def seen_faces(st: State, seat: int) -> list[int]:
    """Per face: copies the seat can place (own hand, melds, pile, red threes, known cards)."""
    seen = list(st.fc[seat])
    for ms in st.melds:
        for m in ms:
            if m is not None:
                for c in m.cards:
                    seen[FACE[c]] += 1
    for c in st.pile:
        seen[FACE[c]] += 1
    for s, k in enumerate(st.known):
        if s != seat:
            for c in k:
                seen[FACE[c]] += 1
    for r in st.red3:
        seen[F_RED3] += len(r)
    return seen


def unseen_faces(st: State, seat: int) -> list[int]:
    """Per face: copies the seat cannot place (in other hands or the stock)."""
    seen = seen_faces(st, seat)
    return [max(0, FACE_COPIES[f] - seen[f]) for f in range(NUM_FACES)]


def meld_points(m: TableMeld, settings: Settings) -> int:
    """A meld's card values plus its canasta bonus."""
    pts = sum(VALUE[c] for c in m.cards)
    if m.is_canasta:
        pts += settings.canasta_bonus(m.wilds)
    return pts


def canasta_chance(size: int, in_hand: int, unseen: int, stock: int) -> float:
    """A rough chance that a meld of ``size`` (plus ``in_hand`` naturals) becomes a canasta."""
    total = size + in_hand
    if total >= CANASTA_SIZE:
        return 1.0
    missing = CANASTA_SIZE - total
    supply = unseen + 1.5  # wilds help too
    if supply < missing:
        return 0.05
    time = min(1.0, stock / 40.0)
    return max(0.05, min(0.95, (0.9 - 0.13 * missing) * (0.4 + 0.6 * time)))


def side_table_score(st: State, side: int) -> int:
    """What a side's table is worth now: melds, canastas and red threes (no hand penalty)."""
    pts = 0
    opened = False
    for m in st.melds[side]:
        if m is not None:
            opened = True
            pts += meld_points(m, st.settings)
    reds = sum(len(st.red3[s]) for s in range(st.players) if st.side_of[s] == side)
    return pts + st.settings.red_three_bonus(reds, opened)


def side_potential(st: State, side: int, hands: bool = False) -> float:
    """Expected extra value of a side's unfinished melds (canasta chances times the bonus).

    With ``hands`` (a full state: Expert's sampled worlds), the naturals the side's players
    hold for each meld count toward its canasta.
    """
    pot = 0.0
    stock = len(st.stock)
    seats = [s for s in range(st.players) if st.side_of[s] == side] if hands else []
    for f, m in enumerate(st.melds[side]):
        if m is not None and not m.is_canasta:
            held = sum(st.fc[s][f] for s in seats)
            ch = canasta_chance(len(m.cards), held, 4, stock)
            pot += ch * (400 if m.wilds == 0 else 300)
    return pot


def hand_worth(st: State, seat: int) -> float:
    """What the cards in a seat's hand are worth while the hand goes on (full state only).

    Only penalty at the end of the hand, they are mostly future melds before it: a card that
    joins the side's meld, a face held three times, a wild count for part of their value; a
    pair for nothing; a single and a black three as penalty.  The closer the opponents look to
    going out (:func:`threat`), the more the whole hand counts as penalty.  Without this, a
    taken pile looks like a loss until its cards are melded.
    """
    side = st.side_of[seat]
    melds = st.melds[side]
    opened = bool(st.nmelds[side])
    fc = st.fc[seat]
    worth = 0.0
    penalty = 0
    for c in st.hands[seat]:
        v = VALUE[c]
        penalty += v
        f = FACE[c]
        if IS_WILD[c]:
            worth += 0.5 * v
        elif f == F_BLACK3:
            worth -= v
        elif melds[f] is not None:
            worth += 0.6 * v
        elif fc[f] >= 3:
            worth += (0.4 if opened else 0.2) * v
        elif fc[f] == 1:
            worth -= v
    risk = threat(st, seat)
    return (1.0 - risk) * worth - risk * penalty


def hand_estimate(st: State, side: int, viewer: int) -> float:
    """Estimated penalty held by a side's players (exact for the viewer's own hand)."""
    pen = 0.0
    for s in range(st.players):
        if st.side_of[s] != side:
            continue
        if s == viewer:
            pen += sum(VALUE[c] for c in st.hands[s])
        else:
            known = st.known[s]
            pen += sum(VALUE[c] for c in known) + AVG_CARD * (len(st.hands[s]) - len(known))
    return pen


def opponents(st: State, seat: int) -> list[int]:
    """Seats on another side than ``seat``."""
    side = st.side_of[seat]
    return [s for s in range(st.players) if st.side_of[s] != side]


def threat(st: State, seat: int) -> float:
    """0..1: how close the opponents look to going out (penalty risk for cards held)."""
    need = st.settings.canastas_to_go_out
    best = 0.0
    for o in opponents(st, seat):
        side = st.side_of[o]
        have = st.canastas[side]
        n = len(st.hands[o])
        if have >= need:
            t = 0.6 if n <= 4 else 0.4 if n <= 7 else 0.25
        else:
            big = max((len(m.cards) for m in st.melds[side] if m is not None), default=0)
            t = 0.2 if big >= 5 and have + 1 >= need else 0.05
        best = max(best, t)
    stock = len(st.stock)
    if stock < 12:
        best = max(best, 0.5)
    return best


def pile_value(st: State) -> float:
    """What the pile (plus a card about to go on top) is worth to whoever takes it."""
    v = 0.0
    for c in st.pile:
        f = FACE[c]
        if IS_WILD[c]:
            v += 35
        elif f == F_RED3:
            v += 100
        elif f == F_BLACK3:
            v += 1
        else:
            v += 12 + VALUE[c] * 0.3
    return v


def take_probability(
    st: State, taker: int, face: int, unseen: list[int], memory: Memory | None
) -> float:
    """Chance that ``taker`` could (and would) take the pile if ``face`` were on top."""
    if face not in _MELD_SET:
        return 0.0
    side = st.side_of[taker]
    frozen = st.is_frozen_for(side)
    known = sum(1 for c in st.known[taker] if FACE[c] == face)
    if known >= 2:
        p = 0.97
    elif not frozen and st.melds[side][face] is not None:
        p = 0.97
    else:
        n = len(st.hands[taker]) - len(st.known[taker])
        u = unseen[face]
        pool = max(1, sum(unseen) - unseen[F_RED3])
        q = min(1.0, u / pool)
        # P(at least two of ``face`` among n cards) and P(at least one), binomial estimate.
        p0 = (1 - q) ** n
        p1 = n * q * (1 - q) ** max(0, n - 1)
        need_two = 1 - p0 - p1
        if known == 1:
            need_two = 1 - p0
        p = need_two
        if not frozen:
            w = (unseen[F_DEUCE] + unseen[F_JOKER]) / pool
            has_wild = 1 - (1 - w) ** n
            one = (1 - p0) if known == 0 else 1.0
            p = max(p, one * has_wild)
        if not st.nmelds[side]:
            p *= 0.6  # the opening minimum often stops them
    if memory is not None and known < 2:
        if st.players == 2:
            # two players: the pile is the game, so read the one opponent's history closely
            # (what they threw, what piles they let go, and how much they drew since)
            if not (not frozen and st.melds[side][face] is not None):
                p *= 1.0 - memory.no_pair(taker, face)
        elif memory.discarded[taker][face] + memory.passed[taker][face]:
            p *= 0.35
    return p


def hand_penalty(st: State, seat: int) -> int:
    """Card values in the seat's hand."""
    return sum(VALUE[c] for c in st.hands[seat])


def frozen_by_cards(st: State) -> bool:
    """R7: does the pile's own content freeze it, for every side, until it is taken?

    A wild card or a red three in the pile, or a black three where the settings make black
    threes freeze (bicycle); not the freeze of a side that has not opened, which its opening
    meld lifts.
    """
    return st.settings.is_frozen(st.pile_wild, st.pile_red3, st.pile_black3, 1)


def pair_faces(st: State, side: int) -> int:
    """Faces of which one of the side's players holds a natural pair or more (full state):
    the keys to a frozen pile (R8)."""
    faces: set[int] = set()
    for s in range(st.players):
        if st.side_of[s] == side:
            fc = st.fc[s]
            for f in MELD_FACES:
                if fc[f] >= 2:
                    faces.add(f)
    return len(faces)


#: the features of :func:`side_features`, in order (the fitted leaf's weights follow it)
SIDE_FEATURES: tuple[str, ...] = (
    "table",
    "potential",
    "held",
    "wild",
    "black3",
    "on_meld",
    "triple",
    "pair",
    "single",
    "cards",
    "canastas",
    "goal_met",
    "goal_near_out",
    "opened",
    "frozen_pairs",
    "pile_if_drawing",
    "held_if_they_can_go_out",
    "held_late",
    "wild_late",
    "pair_late",
    "on_meld_late",
    "cards_late",
    "potential_late",
    "pile_if_drawing_late",
    "single_late",
)


def side_features(st: State, side: int) -> list[float]:
    """What a side has now, as numbers (full state: Expert's sampled worlds), for a linear leaf.

    The table and canasta chances; the card values its players hold, by what they are for (a
    wild, a black three, a card for the side's meld, a face held three times, a pair, a
    single) and how many cards; canastas and whether the side can go out (and how close its
    nearest player is to it); the natural pairs held while the pile's own cards freeze it
    (R7); the pile while one of the side's players is to draw; the cards held while an
    opponent side can go out;
    and the stage of the hand (the stock running out) times the values that change with it.
    ``bench/leaf_fit.py`` fits the weights on the outcomes of whole hands.
    """
    seats = [s for s in range(st.players) if st.side_of[s] == side]
    melds = st.melds[side]
    held = wild = black3 = on_meld = triple = pair = single = 0.0
    cards = 0
    fewest = 99
    for s in seats:
        fc = st.fc[s]
        hand = st.hands[s]
        cards += len(hand)
        fewest = min(fewest, len(hand))
        for c in hand:
            v = float(VALUE[c])
            held += v
            f = FACE[c]
            if IS_WILD[c]:
                wild += v
            elif f == F_BLACK3:
                black3 += v
            elif melds[f] is not None:
                on_meld += v
            elif fc[f] >= 3:
                triple += v
            elif fc[f] == 2:
                pair += v
            else:
                single += v
    settings = st.settings
    need = settings.canastas_to_go_out
    met = 1.0 if st.canastas[side] >= need else 0.0
    they_can = any(o != side and st.canastas[o] >= need for o in set(st.side_of))
    pairs = float(pair_faces(st, side)) if st.pile and frozen_by_cards(st) else 0.0
    # 0 at the deal of four players (108 - 44 - 1 upcard: about 60 cards in the stock), 1 when
    # the stock is empty; the fitted weights are per preset, so the scale is theirs
    late = 1.0 - min(1.0, len(st.stock) / 60.0)
    potential = side_potential(st, side, True)
    drawing = pile_value(st) if (st.side_of[st.turn] == side and st.phase == "draw") else 0.0
    return [
        float(side_table_score(st, side)),
        potential,
        held,
        wild,
        black3,
        on_meld,
        triple,
        pair,
        single,
        float(cards),
        float(st.canastas[side]),
        met,
        met / (1.0 + fewest),
        1.0 if st.nmelds[side] else 0.0,
        pairs,
        drawing,
        held if they_can else 0.0,
        held * late,
        wild * late,
        pair * late,
        on_meld * late,
        cards * late,
        potential * late,
        drawing * late,
        single * late,
    ]


#: the names of :func:`alone_features`: :data:`SIDE_FEATURES`, then these
ALONE_FEATURES: tuple[str, ...] = (
    *SIDE_FEATURES,
    "pile_if_next",
    "pile_key",
    "pile_key_if_next",
    "pile_takable",
    "pile_takable_if_next",
    "pairs_by_pile_size",
    "pairs_by_pile_value",
    "pile_size",
    "nearness_to_out",
    "nearness_to_out_if_met",
    "melds_of_five_up",
    "melds",
    "canastas_late",
    "goal_met_late",
    "goal_met_few_cards",
    "wilds",
    "pairs",
    "cards_squared",
    "held_by_nearest_rival_out",
    "cards_if_a_rival_met",
    "pile_takable_late",
    "pile_key_late",
    "melds_of_five_up_late",
    "melds_late",
    "opened_late",
    "longest_meld",
    "longest_meld_late",
    "pairs_late",
    "triples",
    "nearness_to_out_late",
)


def alone_features(st: State, side: int) -> list[float]:
    """:func:`side_features` and more, for a side of one player while all three play alone (R14).

    Where every side is one player, the pile and the race to go out decide more than with
    partners: whether the player can take the pile now (a natural pair of its top card, the
    key to a frozen pile, or a meld or wild to take an unfrozen one, R8) and whether it is the
    next to draw; its pairs against the pile's size and value; how near it is to going out and
    how near each rival that can go out is (their cards held against the nearest); the sizes
    and number of its melds (``longest_meld``: of those not yet canastas); and stage
    interactions.  ``bench/alone_fit.py`` fits the weights
    (:data:`canasta.bots.search.ALONE_LEAF_WEIGHTS`) to rank options by how whole hands end.
    ``pile_takable`` is a feature, not the rule: it does not ask the core about a stop card on
    top or the last-card cases (R8), as :func:`take_probability` does not; the weights were
    fitted to it as it is.
    """
    f = side_features(st, side)
    seat = st.side_of.index(side)
    fc = st.fc[seat]
    hand = st.hands[seat]
    n = len(hand)
    nxt = st.turn if st.phase == "draw" else (st.turn + 1) % st.players
    next_ = 1.0 if nxt == seat else 0.0
    pile = st.pile
    size = float(len(pile))
    worth = pile_value(st) if pile else 0.0
    wilds = 0
    held = 0.0
    for c in hand:
        held += VALUE[c]
        if IS_WILD[c]:
            wilds += 1
    melds = st.melds[side]
    key = takable = 0.0
    if pile:
        top = FACE[pile[-1]]
        if top in MELD_FACES:
            if fc[top] >= 2:
                key = takable = 1.0
            elif not st.is_frozen_for(side) and (
                melds[top] is not None or (fc[top] >= 1 and wilds > 0)
            ):
                takable = 1.0
    pairs = triples = 0
    for g in MELD_FACES:
        if melds[g] is None:
            if fc[g] >= 2:
                pairs += 1
            if fc[g] >= 3:
                triples += 1
    big = count = longest = 0
    for m in melds:
        if m is not None:
            count += 1
            if not m.is_canasta:
                if len(m.cards) >= 5:
                    big += 1
                longest = max(longest, len(m.cards))
    need = st.settings.canastas_to_go_out
    threat = rival_met = 0.0
    for o in range(st.players):
        if st.side_of[o] != side and st.canastas[st.side_of[o]] >= need:
            rival_met = 1.0
            threat = max(threat, 1.0 / (1.0 + len(st.hands[o])))
    late = 1.0 - min(1.0, len(st.stock) / 60.0)
    canastas = float(st.canastas[side])
    met = 1.0 if st.canastas[side] >= need else 0.0
    near = 1.0 / (1.0 + n)
    f.extend(
        (
            next_ * worth,
            key * worth,
            key * next_ * worth,
            takable * worth,
            takable * next_ * worth,
            pairs * size,
            pairs * worth,
            size,
            near,
            met * near,
            float(big),
            float(count),
            canastas * late,
            met * late,
            met * (1.0 if n <= 4 else 0.0),
            float(wilds),
            float(pairs),
            float(n * n),
            held * threat,
            n * rival_met,
            takable * worth * late,
            key * worth * late,
            big * late,
            count * late,
            (1.0 if st.nmelds[side] else 0.0) * late,
            float(longest),
            longest * late,
            pairs * late,
            float(triples),
            near * late,
        )
    )
    return f
