"""The state of one hand within a match: deal (R3), turns (R4), checking and applying actions.

Legal-action generation and the going-out / pile-pickup solvers live in :mod:`canasta.legal`;
scoring in :mod:`canasta.scoring`; views in :mod:`canasta.view`.
"""

from __future__ import annotations

from bisect import insort
from typing import TYPE_CHECKING, Any, NamedTuple

from . import legal as _legal
from .actions import Action, Answer, Discard, Group, Meld, TakePile
from .cards import (
    F_BLACK3,
    F_DEUCE,
    F_JOKER,
    F_RED3,
    FACE,
    FACE_TOKEN,
    IS_WILD,
    MELD_FACES,
    NUM_FACES,
    VALUE,
    card_str,
)
from .errors import CanastaError, IllegalAction
from .rules import CANASTA_SIZE, Settings, opening_minimum
from .scoring import HandResult, score_hand

if TYPE_CHECKING:
    from .view import SeatView

_MELD_FACE_SET = frozenset(MELD_FACES)
_BLOCKED = {
    "pile_empty": "the pile is empty",
    "pile_top_wild": "the pile cannot be taken while a wild card is on top",
    "pile_top_three": "the pile cannot be taken while a three is on top",
}
_LIMIT = {
    "too_many_wilds": "a meld holds at most 3 wild cards; your {name} would have {wilds}",
    "wilds_outnumber_naturals": "naturals must outnumber wilds; your {name} would have {naturals} naturals and {wilds} wilds",
    "meld_needs_two_naturals": "a meld needs at least 2 natural cards; your {name} have {naturals}",
}
_NAMES = {f: FACE_TOKEN[f] + "s" for f in range(13)}
_NAMES[F_BLACK3] = "black threes"


class TableMeld(NamedTuple):
    """A meld on the table: its rank (face), cards, and natural/wild counts."""

    rank: int
    cards: tuple[int, ...]
    naturals: int
    wilds: int

    @property
    def is_canasta(self) -> bool:
        """R5.4: seven cards or more."""
        return len(self.cards) >= CANASTA_SIZE

    @property
    def is_natural(self) -> bool:
        """No wild card (a natural canasta, R13.1)."""
        return self.wilds == 0


class Event(NamedTuple):
    """One entry of the hand's history.  ``action`` is None for the deal's red-three exposure.

    ``drawn`` holds the cards that reached the hand from the stock (private to ``seat``);
    ``ndrawn`` their number (public); ``red_threes`` the red threes exposed (public); ``taken``
    the pile cards that went into the hand (public: everyone saw them discarded).
    """

    seat: int
    action: Action | None
    drawn: tuple[int, ...]
    ndrawn: int
    red_threes: tuple[int, ...]
    taken: tuple[int, ...]


class State:
    """A hand in progress (or finished), with the match context the rules need.

    Build one with :meth:`State.deal` or :func:`canasta.position.state_from_position`; a
    :class:`canasta.game.Game` holds the current one.
    """

    __slots__ = (
        "settings", "players", "hand_number", "dealer", "scores", "team_of",
        "hands", "fc", "stock", "pile", "pile_wild", "pile_red3", "pile_black3",
        "side_of", "melds", "canastas", "nmelds", "red3", "melded",
        "turn", "phase", "drew", "turn_melded", "turn_start_melded", "turn_new", "turn_added",
        "ask", "asker", "known", "history", "result", "merged",
    )

    settings: Settings
    players: int
    hand_number: int
    dealer: int
    scores: tuple[int, ...]
    team_of: tuple[int, ...]
    hands: list[list[int]]  # each kept sorted by card code
    fc: list[list[int]]
    stock: list[int]
    pile: list[int]
    pile_wild: int
    pile_red3: int
    pile_black3: int
    side_of: list[int]
    melds: list[list[TableMeld | None]]
    canastas: list[int]
    nmelds: list[int]
    red3: list[list[int]]
    melded: list[bool]
    turn: int
    phase: str
    drew: str | None
    turn_melded: bool
    turn_start_melded: bool
    turn_new: int
    turn_added: bool
    ask: str | None
    asker: int | None
    known: list[list[int]]
    history: list[Event]
    result: HandResult | None
    merged: bool

    # ------------------------------------------------------------------ construction

    @classmethod
    def empty(
        cls, settings: Settings, *, hand_number: int = 1, dealer: int = 0, scores: tuple[int, ...] | None = None
    ) -> State:
        """A state with no cards anywhere (used by deal and position loading)."""
        self = cls.__new__(cls)
        n = settings.players
        self.settings = settings
        self.players = n
        self.hand_number = hand_number
        self.dealer = dealer
        self.team_of = tuple(s % 2 for s in range(4)) if n == 4 else tuple(range(n))
        teams = settings.team_count
        self.scores = tuple(scores) if scores is not None else (0,) * teams
        self.hands = [[] for _ in range(n)]
        self.fc = [[0] * NUM_FACES for _ in range(n)]
        self.stock = []
        self.pile = []
        self.pile_wild = self.pile_red3 = self.pile_black3 = 0
        self.side_of = list(self.team_of)
        self.melds = [[None] * NUM_FACES for _ in range(teams)]
        self.canastas = [0] * teams
        self.nmelds = [0] * teams
        self.red3 = [[] for _ in range(n)]
        self.melded = [False] * n
        self.turn = (dealer + 1) % n
        self.phase = "draw"
        self.drew = None
        self.turn_melded = False
        self.turn_start_melded = False
        self.turn_new = 0
        self.turn_added = False
        self.ask = None
        self.asker = None
        self.known = [[] for _ in range(n)]
        self.history = []
        self.result = None
        self.merged = False
        return self

    @classmethod
    def deal(
        cls,
        settings: Settings,
        deck: list[int],
        *,
        dealer: int = 0,
        hand_number: int = 1,
        scores: tuple[int, ...] | None = None,
    ) -> State:
        """Deal a hand from an explicit deck order (index 0 is the top card), R3."""
        self = cls.empty(settings, hand_number=hand_number, dealer=dealer, scores=scores)
        n = self.players
        stock = list(reversed(deck))
        self.stock = stock
        for _ in range(settings.hand_size):
            for k in range(1, n + 1):
                seat = (dealer + k) % n
                c = stock.pop()
                self.hands[seat].append(c)
                self.fc[seat][FACE[c]] += 1
        # R3.3: turn up the pile until its top is neither wild nor a red three.
        while True:
            c = stock.pop()
            self._push_pile(c)
            if not IS_WILD[c] and FACE[c] != F_RED3:
                break
        # R3.4: expose and replace dealt red threes in turn order.
        for k in range(1, n + 1):
            seat = (dealer + k) % n
            hand = self.hands[seat]
            if not self.fc[seat][F_RED3]:
                continue
            exposed: list[int] = []
            drawn: list[int] = []
            for c in [c for c in hand if FACE[c] == F_RED3]:
                hand.remove(c)
                self.fc[seat][F_RED3] -= 1
                exposed.append(c)
            need = len(exposed)
            while need:
                c = stock.pop()
                if FACE[c] == F_RED3:
                    exposed.append(c)
                    continue
                hand.append(c)
                self.fc[seat][FACE[c]] += 1
                drawn.append(c)
                need -= 1
            self.red3[seat].extend(exposed)
            self.history.append(Event(seat, None, tuple(drawn), len(drawn), tuple(exposed), ()))
        for hand in self.hands:
            hand.sort()
        self.turn_start_melded = False
        return self

    @classmethod
    def new_hand(
        cls,
        settings: Settings,
        *,
        seed: int | str | None = None,
        deck: list[int] | None = None,
        dealer: int = 0,
    ) -> State:
        """Deal a single hand from a seed or an explicit deck order (card codes or strings)."""
        from .game import check_deck, deck_for

        if deck is None:
            if seed is None:
                raise CanastaError("no_deck", "give a seed or a deck")
            deck = deck_for(seed, 1)
        return cls.deal(settings, check_deck(deck), dealer=dealer)

    def copy(self, *, history: bool = True) -> State:
        """An independent copy (``history=False`` shares nothing and drops the history: faster)."""
        new = State.__new__(State)
        new.settings = self.settings
        new.players = self.players
        new.hand_number = self.hand_number
        new.dealer = self.dealer
        new.scores = self.scores
        new.team_of = self.team_of
        new.hands = [h[:] for h in self.hands]
        new.fc = [f[:] for f in self.fc]
        new.stock = self.stock[:]
        new.pile = self.pile[:]
        new.pile_wild = self.pile_wild
        new.pile_red3 = self.pile_red3
        new.pile_black3 = self.pile_black3
        new.side_of = self.side_of[:]
        new.melds = [m[:] for m in self.melds]
        new.canastas = self.canastas[:]
        new.nmelds = self.nmelds[:]
        new.red3 = [r[:] for r in self.red3]
        new.melded = self.melded[:]
        new.turn = self.turn
        new.phase = self.phase
        new.drew = self.drew
        new.turn_melded = self.turn_melded
        new.turn_start_melded = self.turn_start_melded
        new.turn_new = self.turn_new
        new.turn_added = self.turn_added
        new.ask = self.ask
        new.asker = self.asker
        new.known = [k[:] for k in self.known]
        new.history = self.history[:] if history else []
        new.result = self.result
        new.merged = self.merged
        return new

    # ------------------------------------------------------------------ questions

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def to_act(self) -> int:
        """The seat to act (same as ``turn``; during "May I go out?" it is the partner)."""
        return self.turn

    def partner(self, seat: int) -> int:
        return (seat + 2) % 4

    def opened(self, side: int) -> bool:
        return self.nmelds[side] > 0

    def opening_minimum(self, seat: int) -> int:
        """R6.1 minimum for the seat's team (R14: the player's own score in three-player)."""
        return opening_minimum(self.scores[self.team_of[seat]])

    def frozen_causes(self, side: int) -> list[str]:
        """R7: why the pile is frozen for ``side`` (empty list: not frozen)."""
        return self.settings.frozen_causes(
            wild=self.pile_wild > 0,
            red_three=self.pile_red3 > 0,
            black_three=self.pile_black3 > 0,
            opened=self.nmelds[side] > 0,
        )

    def is_frozen_for(self, side: int) -> bool:
        """R7: is the pile frozen for ``side``?"""
        return self.settings.is_frozen(
            wild=self.pile_wild > 0,
            red_three=self.pile_red3 > 0,
            black_three=self.pile_black3 > 0,
            opened=self.nmelds[side] > 0,
        )

    def side_seats(self, side: int) -> list[int]:
        return [s for s in range(self.players) if self.side_of[s] == side]

    def total_cards(self) -> int:
        """Cards accounted for (always 108)."""
        return (
            sum(len(h) for h in self.hands)
            + len(self.stock)
            + len(self.pile)
            + sum(len(m.cards) for ms in self.melds for m in ms if m is not None)
            + sum(len(r) for r in self.red3)
        )

    # ------------------------------------------------------------------ checking

    def check(self, action: Action) -> IllegalAction | None:
        """The reason ``action`` is illegal for the player to act, or None if it is legal."""
        try:
            self._check(action)
        except IllegalAction as e:
            return e
        return None

    def verify(self, action: Action) -> None:
        """Raise :class:`IllegalAction` unless ``action`` is legal."""
        self._check(action)

    def can(self, action: Action) -> bool:
        return self.check(action) is None

    def _check(self, action: Action) -> None:
        phase = self.phase
        kind = getattr(action, "kind", None)
        if phase == "over":
            raise IllegalAction("hand_over", "R10", "the hand is over")
        if phase == "ask":
            if kind != "answer":
                raise IllegalAction("awaiting_answer", "R11", "your partner must first answer 'May I go out?'")
            return
        if kind == "answer":
            raise IllegalAction("no_question", "R11", "nobody asked 'May I go out?'")
        if phase == "draw":
            if kind == "draw":
                if not self.stock:
                    raise IllegalAction("stock_empty", "R12", "the stock is empty: take the pile or decline it")
                return
            if kind == "take":
                assert isinstance(action, TakePile)
                self._check_take(action)
                return
            if kind == "decline":
                if self.stock:
                    raise IllegalAction("cannot_decline", "R12", "you may only decline the pile when the stock is empty")
                if self.take_is_compulsory():
                    raise IllegalAction(
                        "pile_take_compulsory",
                        "R12",
                        "the stock is empty and the pile's top card fits your side's meld: you must take it",
                    )
                return
            if kind in ("meld", "discard", "ask"):
                raise IllegalAction("must_draw_first", "R4", "draw from the stock or take the pile first")
            raise IllegalAction("bad_action", "R4", f"not an action: {action!r}")
        # play phase
        if kind == "meld":
            assert isinstance(action, Meld)
            self._check_groups(action.groups, None, action.discard)
            return
        if kind == "discard":
            assert isinstance(action, Discard)
            self._check_discard(action.card)
            return
        if kind == "ask":
            self._check_ask()
            return
        if kind in ("draw", "take", "decline"):
            raise IllegalAction("already_drew", "R4", "you have already drawn this turn: meld or discard")
        raise IllegalAction("bad_action", "R4", f"not an action: {action!r}")

    def _check_ask(self) -> None:
        if not self.settings.ask_partner:
            raise IllegalAction("ask_disabled", "R11", "'May I go out?' is not played in these rules")
        if self.ask is not None:
            raise IllegalAction("already_asked", "R11", "you have already asked this turn")
        if self.turn_melded:
            raise IllegalAction("ask_before_melding", "R11", "ask before melding anything this turn")
        if _legal.can_go_out(self) is None:
            raise IllegalAction("cannot_go_out_now", "R11", "you may only ask when you could go out now")

    def _check_discard(self, card: int) -> None:
        seat = self.turn
        hand = self.hands[seat]
        if card not in hand:
            raise IllegalAction(
                "card_not_in_hand", "R4", f"{card_str(card)} is not in your hand", details={"card": card_str(card)}
            )
        if self.ask == "yes":
            raise IllegalAction("must_go_out_after_yes", "R11", "your partner said yes: you must go out this turn")
        if len(hand) == 1:
            if self.ask == "no":
                raise IllegalAction("partner_said_no", "R11", "your partner said no: you may not go out this turn")
            side = self.side_of[seat]
            need = self.settings.canastas_to_go_out
            if self.canastas[side] < need:
                raise IllegalAction(
                    "cannot_go_out_without_canasta",
                    "R10",
                    f"your side has {self.canastas[side]} canasta(s); going out needs {need}",
                    details={"canastas": self.canastas[side], "needed": need},
                )

    def _check_take(self, action: TakePile) -> None:
        pile = self.pile
        top = pile[-1] if pile else None
        blocked = self.settings.pile_blocked(top)
        if blocked is not None:
            raise IllegalAction(blocked, "R8", _BLOCKED[blocked])
        assert top is not None
        if len(self.hands[self.turn]) == 1 and len(pile) == 1:
            raise IllegalAction("one_card_cannot_take_one_card_pile", "R8", "with one card in hand you may not take a pile of one card")
        self._check_groups(self._take_groups(action), top, None)

    def _take_groups(self, action: TakePile) -> tuple[Group, ...]:
        """The take's groups with the top card's group present (possibly with no hand cards)."""
        face = FACE[self.pile[-1]]
        for g in action.groups:
            if g.rank == face:
                return action.groups
        return (Group(face, ()),) + tuple(action.groups)

    def _check_groups(self, groups: tuple[Group, ...], top: int | None, discard: int | None) -> None:
        """Check a meld action (``top`` is the pile's top card when taking the pile)."""
        s = self.settings
        seat = self.turn
        hand = self.hands[seat]
        side = self.side_of[seat]
        melds = self.melds[side]
        if self.ask == "pending":
            raise IllegalAction("awaiting_answer", "R11", "wait for your partner's answer")
        if not groups:
            raise IllegalAction("empty_meld", "R4", "a meld action needs at least one group")
        if len(groups) > 15:
            raise IllegalAction("duplicate_rank", "R4", "too many groups")
        used: dict[int, int] = {}
        nused = 0
        seen = 0
        value = 0
        new_canastas = 0
        black3_group = False
        top_face = FACE[top] if top is not None else -1
        for g in groups:
            r = g.rank
            if type(r) is not int or not (r in _MELD_FACE_SET or r == F_BLACK3):
                raise IllegalAction("bad_rank", "R5", "melds are of ranks A, 4-K (black threes only when going out)")
            name = _NAMES[r]
            bit = 1 << r
            if seen & bit:
                raise IllegalAction(
                    "duplicate_rank",
                    "R4",
                    f"two groups of {name} in one action: merge them into one",
                    details={"rank": FACE_TOKEN[r]},
                )
            seen |= bit
            cards = g.cards
            nat = wild = 0
            for c in cards:
                if type(c) is not int or not 0 <= c <= 52:
                    raise IllegalAction("bad_card", "R1", f"not a card: {c!r}")
                f = FACE[c]
                if f == r:
                    nat += 1
                elif f == F_DEUCE or f == F_JOKER:
                    wild += 1
                elif f == F_RED3:
                    raise IllegalAction("red_three_cannot_meld", "R5", "red threes never go in a meld")
                elif f == F_BLACK3:
                    raise IllegalAction(
                        "black_three_cannot_meld",
                        "R10",
                        "black threes meld only as a meld of their own (3 or 4) when going out",
                    )
                else:
                    raise IllegalAction(
                        "card_does_not_match_rank",
                        "R5",
                        f"{card_str(c)} cannot go in a meld of {name}",
                        details={"card": card_str(c), "rank": FACE_TOKEN[r]},
                    )
                used[c] = used.get(c, 0) + 1
                value += VALUE[c]
            nused += len(cards)
            hand_nat = nat
            is_top = r == top_face
            if is_top:
                assert top is not None
                nat += 1
                value += VALUE[top]
            elif not cards:
                raise IllegalAction("empty_group", "R4", f"the group of {name} has no cards", details={"rank": FACE_TOKEN[r]})
            if r == F_BLACK3:
                if not s.black_three_meld_on_going_out:
                    raise IllegalAction("black_three_meld_not_allowed", "R10", "black threes never meld in these rules")
                if wild:
                    raise IllegalAction("black_three_meld_with_wild", "R10", "a black-three meld may not contain wild cards")
                if nat not in (3, 4):
                    raise IllegalAction(
                        "black_three_meld_size",
                        "R10",
                        f"a black-three meld has 3 or 4 black threes, not {nat}",
                        details={"count": nat},
                    )
                black3_group = True
                continue
            m = melds[r]
            if m is not None:
                before = len(m.cards)
                if wild:
                    if not s.wilds_on_canasta and before >= CANASTA_SIZE:
                        raise IllegalAction(
                            "no_wilds_on_canasta",
                            "R5",
                            f"wild cards may not be added to the completed canasta of {name}",
                            details={"rank": FACE_TOKEN[r]},
                        )
                    self._limit(m.naturals + nat, m.wilds + wild, r)
                if before < CANASTA_SIZE <= before + nat + wild:
                    new_canastas += 1
            else:
                size = nat + wild
                if size < 3:
                    raise IllegalAction(
                        "meld_too_small",
                        "R5",
                        f"a meld needs at least 3 cards; your {name} have {size}",
                        details={"rank": FACE_TOKEN[r], "size": size, "minimum": 3},
                    )
                self._limit(nat, wild, r)
                if size >= CANASTA_SIZE:
                    new_canastas += 1
            if is_top:
                if self.is_frozen_for(side):
                    if hand_nat < 2:
                        raise IllegalAction(
                            "pile_frozen_needs_natural_pair",
                            "R8",
                            f"the pile is frozen for your side: you need two natural {name} from your hand",
                            details={"rank": FACE_TOKEN[r], "naturals": hand_nat, "needed": 2,
                                     "causes": self.frozen_causes(side)},
                        )
                elif hand_nat < 2 and not (hand_nat >= 1 and wild >= 1) and m is None:
                    raise IllegalAction(
                        "pile_needs_matching_cards",
                        "R8",
                        f"to take the pile, meld its top card with two natural {name}, "
                        "a natural and a wild, or add it to your side's meld",
                        details={"rank": FACE_TOKEN[r], "naturals": hand_nat, "wilds": wild},
                    )
        if discard is not None:
            if type(discard) is not int or not 0 <= discard <= 52:
                raise IllegalAction("bad_card", "R1", f"not a card: {discard!r}")
            used[discard] = used.get(discard, 0) + 1
        for c, k in used.items():
            if k > 1:
                have = hand.count(c)
                if have < k:
                    raise IllegalAction(
                        "card_not_in_hand",
                        "R4",
                        f"you hold {have} {card_str(c)}, not {k}",
                        details={"card": card_str(c), "held": have, "needed": k},
                    )
            elif c not in hand:
                raise IllegalAction(
                    "card_not_in_hand", "R4", f"{card_str(c)} is not in your hand", details={"card": card_str(c)}
                )
        after = len(hand) - nused
        if top is not None:
            after += len(self.pile) - 1 - self.pile_red3
        if discard is not None:
            if after != 1:
                raise IllegalAction(
                    "discard_only_with_last_card",
                    "R10",
                    "a discard may join a meld action only to go out with your last card",
                )
            final = 0
        else:
            final = after
        goes_out = final == 0
        if not self.nmelds[side]:
            minimum = self.opening_minimum(seat)
            waived = top is None and goes_out and self.drew == "stock" and not self.turn_melded
            if value < minimum and not waived:
                raise IllegalAction(
                    "opening_minimum_not_met",
                    "R6",
                    f"your melds count {value}; your side needs {minimum} to open",
                    details={"count": value, "minimum": minimum},
                )
        need = s.canastas_to_go_out
        have = self.canastas[side] + new_canastas
        if goes_out and have < need:
            raise IllegalAction(
                "cannot_go_out_without_canasta",
                "R10",
                f"your side would have {have} canasta(s); going out needs {need}",
                details={"canastas": have, "needed": need},
            )
        if not goes_out and after < 2 and have < need:
            raise IllegalAction(
                "would_leave_one_card_without_canasta",
                "R10",
                f"until your side has {need} canasta(s) you must keep at least two cards; this leaves {after}",
                details={"canastas": have, "needed": need, "cards_left": after},
            )
        if black3_group and not goes_out:
            raise IllegalAction("black_threes_only_when_going_out", "R10", "black threes meld only in the action that goes out")
        if self.ask == "yes" and not goes_out:
            raise IllegalAction("must_go_out_after_yes", "R11", "your partner said yes: your next action must go out")
        if self.ask == "no":
            if goes_out:
                raise IllegalAction("partner_said_no", "R11", "your partner said no: you may not go out this turn")
            if after < 2:
                raise IllegalAction("must_keep_two_cards_after_no", "R11", "after a 'no' you must keep at least two cards")

    def _limit(self, nat: int, wild: int, rank: int) -> None:
        """R5.2: raise unless a meld of ``nat`` naturals and ``wild`` wilds obeys the wild limit."""
        code = self.settings.wild_limit_error(nat, wild)
        if code is not None:
            message = _LIMIT[code].format(name=_NAMES[rank], naturals=nat, wilds=wild)
            details = {"rank": FACE_TOKEN[rank], "naturals": nat, "wilds": wild}
            raise IllegalAction(code, "R5", message, details=details)

    def opening_count(self, action: Action) -> int:
        """R6.2/R6.3: what a meld or take action counts toward the opening minimum.

        (Well-formed actions only; malformed cards count nothing.)
        """
        total = 0
        if action.kind in ("meld", "take"):
            assert isinstance(action, (Meld, TakePile))
            for g in action.groups:
                total += sum(VALUE[c] for c in g.cards if type(c) is int and 0 <= c <= 52)
            if action.kind == "take" and self.pile:
                total += VALUE[self.pile[-1]]
        return total

    def take_is_compulsory(self) -> bool:
        """R12.1: empty stock, pile not frozen for the side and its top matches a side meld."""
        if self.stock or not self.pile:
            return False
        seat = self.turn
        side = self.side_of[seat]
        top = self.pile[-1]
        if self.is_frozen_for(side) or self.settings.pile_blocked(top) is not None:
            return False
        if self.melds[side][FACE[top]] is None:
            return False
        return self.check(TakePile((Group(FACE[top], ()),))) is None

    # ------------------------------------------------------------------ applying

    def apply(self, action: Action, *, validate: bool = True) -> None:
        """Apply ``action`` for the player to act; raises :class:`IllegalAction` if illegal.

        ``validate=False`` skips the check: only for actions known to be legal (search).
        """
        if validate:
            self._check(action)
        kind = action.kind
        seat = self.turn
        if kind == "draw":
            self._draw(seat, action)
        elif kind == "discard":
            assert isinstance(action, Discard)
            self._discard(seat, action)
        elif kind == "meld":
            assert isinstance(action, Meld)
            self._lay(seat, action.groups, None)
            event = Event(seat, action, (), 0, (), ())
            if action.discard is not None:
                self._remove(seat, action.discard)
                self._push_pile(action.discard)
            self.history.append(event)
            if not self.hands[seat]:
                self._go_out(seat)
        elif kind == "take":
            assert isinstance(action, TakePile)
            self._take(seat, action)
        elif kind == "ask":
            self.ask = "pending"
            self.asker = seat
            self.phase = "ask"
            self.turn = self.partner(seat)
            self.history.append(Event(seat, action, (), 0, (), ()))
        elif kind == "answer":
            assert isinstance(action, Answer)
            self.ask = "yes" if action.yes else "no"
            self.phase = "play"
            self.history.append(Event(seat, action, (), 0, (), ()))
            assert self.asker is not None
            self.turn = self.asker
        elif kind == "decline":
            self.history.append(Event(seat, action, (), 0, (), ()))
            self._end("declined", None, False)
        else:  # pragma: no cover - guarded by _check
            raise IllegalAction("bad_action", "R4", f"not an action: {action!r}")

    def _push_pile(self, c: int) -> None:
        self.pile.append(c)
        if IS_WILD[c]:
            self.pile_wild += 1
        else:
            f = FACE[c]
            if f == F_RED3:
                self.pile_red3 += 1
            elif f == F_BLACK3:
                self.pile_black3 += 1

    def _remove(self, seat: int, c: int) -> None:
        self.hands[seat].remove(c)
        self.fc[seat][FACE[c]] -= 1
        known = self.known[seat]
        if known and c in known:
            known.remove(c)

    def _draw(self, seat: int, action: Action) -> None:
        stock = self.stock
        hand = self.hands[seat]
        fc = self.fc[seat]
        need = self.settings.draw_count
        drawn: list[int] = []
        exposed: list[int] = []
        while need and stock:
            c = stock.pop()
            if FACE[c] == F_RED3:
                self.red3[seat].append(c)
                exposed.append(c)
                if not stock:  # R9.2: a red three as the last stock card ends the hand
                    self.history.append(Event(seat, action, tuple(drawn), len(drawn), tuple(exposed), ()))
                    self._end("red_three_last", None, False)
                    return
                continue
            insort(hand, c)
            fc[FACE[c]] += 1
            drawn.append(c)
            need -= 1
        self.history.append(Event(seat, action, tuple(drawn), len(drawn), tuple(exposed), ()))
        self.phase = "play"
        self.drew = "stock"

    def _discard(self, seat: int, action: Discard) -> None:
        c = action.card
        self._remove(seat, c)
        self._push_pile(c)
        self.history.append(Event(seat, action, (), 0, (), ()))
        if not self.hands[seat]:
            self._go_out(seat)
        else:
            self._next_turn()

    def _lay(self, seat: int, groups: tuple[Group, ...], top: int | None) -> None:
        side = self.side_of[seat]
        melds = self.melds[side]
        hand = self.hands[seat]
        fc = self.fc[seat]
        known = self.known[seat]
        top_face = FACE[top] if top is not None else -1
        for g in groups:
            r = g.rank
            cards = g.cards
            nat = 0
            for c in cards:
                hand.remove(c)
                f = FACE[c]
                fc[f] -= 1
                if f == r:
                    nat += 1
                if known and c in known:
                    known.remove(c)
            wild = len(cards) - nat
            if r == top_face:
                assert top is not None
                cards = (top,) + cards
                nat += 1
            m = melds[r]
            if m is None:
                melds[r] = TableMeld(r, cards, nat, wild)
                self.nmelds[side] += 1
                if len(cards) >= CANASTA_SIZE:
                    self.canastas[side] += 1
                self.turn_new |= 1 << r
            else:
                before = len(m.cards)
                melds[r] = TableMeld(r, m.cards + cards, m.naturals + nat, m.wilds + wild)
                if before < CANASTA_SIZE <= before + len(cards):
                    self.canastas[side] += 1
                if not (self.turn_new >> r) & 1:
                    self.turn_added = True
        self.melded[seat] = True
        self.turn_melded = True

    def _take(self, seat: int, action: TakePile) -> None:
        groups = self._take_groups(action)
        top = self.pile.pop()
        self._lay(seat, groups, top)
        rest = self.pile
        self.pile = []
        self.pile_wild = self.pile_red3 = self.pile_black3 = 0
        hand = self.hands[seat]
        fc = self.fc[seat]
        known = self.known[seat]
        taken: list[int] = []
        exposed: list[int] = []
        for c in rest:
            f = FACE[c]
            if f == F_RED3:  # R8.5: exposed, no replacement
                self.red3[seat].append(c)
                exposed.append(c)
            else:
                hand.append(c)
                fc[f] += 1
                known.append(c)
                taken.append(c)
        hand.sort()
        self.history.append(Event(seat, action, (), 0, tuple(exposed), tuple(taken)))
        self.phase = "play"
        self.drew = "pile"
        if self.players == 3 and not self.merged:
            self._merge_partnership(seat)
        if not hand:
            self._go_out(seat)

    def _merge_partnership(self, taker: int) -> None:
        """R14: the first pile-taker plays alone; the other two now share melds and status."""
        a, b = [s for s in range(3) if s != taker]
        sa, sb = self.side_of[a], self.side_of[b]
        ma, mb = self.melds[sa], self.melds[sb]
        for r in range(NUM_FACES):
            x, y = ma[r], mb[r]
            if y is None:
                continue
            if x is None:
                ma[r] = y
            else:
                ma[r] = TableMeld(r, x.cards + y.cards, x.naturals + y.naturals, x.wilds + y.wilds)
            mb[r] = None
        self.side_of[b] = sa
        self.nmelds[sa] = sum(1 for m in ma if m is not None)
        self.canastas[sa] = sum(1 for m in ma if m is not None and m.is_canasta)
        self.nmelds[sb] = self.canastas[sb] = 0
        self.merged = True

    def _go_out(self, seat: int) -> None:
        side = self.side_of[seat]
        concealed = False
        if not self.turn_start_melded and not self.turn_added:
            melds = self.melds[side]
            bits = self.turn_new
            concealed = any(
                (bits >> r) & 1 and m is not None and m.is_canasta for r, m in enumerate(melds)
            )
        self._end("went_out", seat, concealed)

    def _next_turn(self) -> None:
        n = self.players
        self.turn = (self.turn + 1) % n
        self.phase = "draw"
        self.drew = None
        self.turn_melded = False
        self.turn_start_melded = self.melded[self.turn]
        self.turn_new = 0
        self.turn_added = False
        self.ask = None
        self.asker = None
        if not self.stock:
            if _legal.plan_pile_pickup(self) is None:  # R12.2: nobody can draw: the hand ends at once
                self._end("stock_empty", None, False)

    def _end(self, reason: str, went_out: int | None, concealed: bool) -> None:
        self.phase = "over"
        self.result = score_hand(self, reason, went_out, concealed)

    # ------------------------------------------------------------------ conveniences

    def legal_actions(self) -> list[Action]:
        """A useful set of legal actions for the player to act (see :mod:`canasta.legal`)."""
        return _legal.legal_actions(self)

    def can_go_out(self) -> Meld | Discard | None:
        """A complete going-out action for the player to act, or None."""
        return _legal.can_go_out(self)

    def plan_pile_pickup(self) -> TakePile | None:
        """A legal way to take the pile now (meeting the opening minimum), or None."""
        return _legal.plan_pile_pickup(self)

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may know (``None``: a spectator, no hand at all)."""
        from .view import make_view

        return make_view(self, seat)

    def to_position(self) -> dict[str, Any]:
        from .position import position_to_json

        return position_to_json(self)

    @property
    def is_public_pile_top(self) -> int | None:
        return self.pile[-1] if self.pile else None

    def __repr__(self) -> str:
        return (
            f"<State hand {self.hand_number} turn={self.turn} phase={self.phase} "
            f"stock={len(self.stock)} pile={len(self.pile)}>"
        )
