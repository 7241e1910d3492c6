"""A match: hands dealt from a seed or explicit decks, dealer rotation, targets and ties (R3, R13).

>>> from canasta import Game, Settings
>>> g = Game(Settings.preset("classic"), seed=7)
>>> g.state.phase, len(g.state.hands[0])
('draw', 11)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import Action, action_from_json, action_to_text
from .cards import card_str
from .deal import check_deck, deck_for, first_dealer_for
from .errors import CanastaError, FormatError, IllegalAction
from .results import HandResult
from .rules import Settings
from .state import State

__all__ = ["Game", "HandLog", "ReplayError", "check_deck", "deck_for", "first_dealer_for", "replay_record"]

RECORD_FORMAT = "canasta-record"
RECORD_VERSION = 1


@dataclass
class HandLog:
    """One hand of a match: how it was dealt, what was played, how it scored."""

    number: int
    dealer: int
    deck: list[int]
    actions: list[Action] = field(default_factory=list)
    result: HandResult | None = None


def match_won(winners: Sequence[int], teams: int) -> list[bool]:
    """Per team, whether it won a finished match with these ``winners``: alone, or sharing the
    win with some but not all of the others (R13.3, R14: three players, two of them level at
    the top). A tie of every team is a draw, not a win."""
    return [team in winners and len(winners) < teams for team in range(teams)]


class Game:
    """A match of Canasta: the current hand's :class:`State` plus scores and history."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        seed: int | str | None = None,
        decks: list[list[int]] | None = None,
        first_dealer: int | None = None,
    ) -> None:
        self.settings = settings or Settings.preset("classic")
        self.settings.validate()
        if seed is None and not decks:
            seed = random.SystemRandom().randrange(2**63)
        self.seed = seed
        self.decks = [check_deck(d) for d in decks] if decks else None
        n = self.settings.players
        if first_dealer is None:
            first_dealer = first_dealer_for(seed, n) if seed is not None else 0
        if not 0 <= first_dealer < n:
            raise FormatError("bad_dealer", f"dealer must be a seat 0..{n - 1}")
        self.scores = [0] * self.settings.team_count
        self.hands: list[HandLog] = []
        #: the notation of each finished hand's deck and actions (see :meth:`_hand_texts`)
        self._texts: dict[int, tuple[HandLog, int, list[str] | None, list[str]]] = {}
        self.is_over = False
        self.winners: list[int] = []
        self._deal(1, first_dealer)

    # ------------------------------------------------------------------ dealing

    def _deck(self, number: int) -> list[int]:
        if self.decks is not None:
            if number > len(self.decks):
                if self.seed is None:
                    raise CanastaError("no_deck", f"no deck given for hand {number}")
                return deck_for(self.seed, number)
            return list(self.decks[number - 1])
        assert self.seed is not None
        return deck_for(self.seed, number)

    def _deal(self, number: int, dealer: int) -> None:
        deck = self._deck(number)
        self.state = State.deal(self.settings, deck, dealer=dealer, hand_number=number, scores=tuple(self.scores))
        self.hands.append(HandLog(number, dealer, deck))
        if self.state.is_over:  # pragma: no cover - cannot happen with 108 cards
            self._finish_hand()

    def next_hand(self) -> State:
        """Deal the next hand (the deal passes one seat to the left, R3.1)."""
        if not self.state.is_over:
            raise CanastaError("hand_in_progress", "the current hand is not over")
        if self.is_over:
            raise CanastaError("match_over", "the match is over")
        last = self.hands[-1]
        self._deal(last.number + 1, (last.dealer + 1) % self.settings.players)
        return self.state

    # ------------------------------------------------------------------ playing

    def apply(self, action: Action, *, validate: bool = True) -> None:
        """Apply an action to the current hand; raises :class:`IllegalAction`.

        ``validate=False`` skips the check: only for an action known to be legal (one of
        ``state.legal_actions()`` in this very position).
        """
        if self.state.is_over:
            raise IllegalAction("hand_over", "R10", "the hand is over: deal the next hand")
        self.state.apply(action, validate=validate)
        self.hands[-1].actions.append(action)
        if self.state.is_over:
            self._finish_hand()

    def _finish_hand(self) -> None:
        result = self.state.result
        assert result is not None
        self.hands[-1].result = result
        for team, delta in enumerate(result.team_deltas):
            self.scores[team] += delta
        s = self.settings
        if s.target == "one_hand":
            top = max(result.team_deltas)
            self.winners = [t for t, d in enumerate(result.team_deltas) if d == top]
            self.is_over = True
            return
        assert isinstance(s.target, int)
        if max(self.scores) >= s.target:
            top = max(self.scores)
            leaders = [t for t, v in enumerate(self.scores) if v == top]
            if len(leaders) == 1 or s.tie == "draw":
                self.winners = leaders
                self.is_over = True

    def won(self, team: int) -> bool:
        """Did ``team`` win the finished match? See :func:`match_won`."""
        return self.is_over and match_won(self.winners, len(self.scores))[team]

    @property
    def hand_number(self) -> int:
        return self.state.hand_number

    # ------------------------------------------------------------------ records

    def to_record(self) -> dict[str, Any]:
        """The versioned JSON record of the match so far (replays exactly)."""
        hands = []
        for log in self.hands:
            entry: dict[str, Any] = {"number": log.number, "dealer": log.dealer}
            with_deck = self.seed is None or (self.decks is not None and log.number <= len(self.decks))
            deck, actions = self._hand_texts(log, with_deck)
            if deck is not None:
                entry["deck"] = list(deck)
            entry["actions"] = list(actions)
            if log.result is not None:
                entry["result"] = log.result.to_json()
            hands.append(entry)
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "settings": self.settings.to_json(),
            "seed": self.seed,
            "first_dealer": self.hands[0].dealer,
            "hands": hands,
            "scores": list(self.scores),
            "over": self.is_over,
            "winners": list(self.winners),
        }

    def _hand_texts(self, log: HandLog, with_deck: bool) -> tuple[list[str] | None, list[str]]:
        """The notation of ``log``'s actions, and of its deck ``with_deck`` (else None). A
        finished hand no longer changes, so its notation is written once and kept (a server
        saves the record when a hand ends and again when the next is dealt: the earlier hands
        then cost nothing again); the hand being played is written afresh each time. The
        caller copies the lists it hands out."""
        cached = self._texts.get(log.number)
        if cached is None or cached[0] is not log or cached[1] != len(log.actions):
            cached = (log, len(log.actions), None, [action_to_text(a) for a in log.actions])
        deck = cached[2]
        if with_deck and deck is None:
            deck = [card_str(c) for c in log.deck]
            cached = (log, cached[1], deck, cached[3])
        if log.result is not None:
            self._texts[log.number] = cached
        return deck if with_deck else None, cached[3]

    @classmethod
    def from_record(cls, record: Any, *, verify: bool = True) -> Game:
        """Replay a record hand by hand; results must match when ``verify``."""
        return replay_record(record, verify=verify)[0]


class ReplayError(CanastaError):
    """An illegal action in a replayed record: ``hand`` and ``index`` locate it."""

    def __init__(self, hand: int, index: int, error: IllegalAction, action_text: str) -> None:
        super().__init__(error.code, f"hand {hand}, action {index} ({action_text}): {error.message}")
        self.hand = hand
        self.index = index
        self.error = error


def replay_record(record: Any, *, verify: bool = True) -> tuple[Game, int]:
    """Replay a record; returns the game and the number of actions applied."""
    if not isinstance(record, dict) or record.get("format") != RECORD_FORMAT:
        raise FormatError("bad_record", f"not a canasta record (expected format '{RECORD_FORMAT}')")
    if record.get("version") != RECORD_VERSION:
        raise FormatError("bad_record_version", f"unsupported record version {record.get('version')!r}")
    settings = Settings.from_json(record.get("settings", {}))
    hands = record.get("hands")
    if not isinstance(hands, list) or not hands:
        raise FormatError("bad_record", "a record needs a non-empty 'hands' list")
    seed = record.get("seed")
    if seed is not None and not isinstance(seed, (int, str)):
        raise FormatError("bad_record", "seed must be an integer or a string")
    decks: list[list[int]] = []
    for i, h in enumerate(hands):
        if not isinstance(h, dict):
            raise FormatError("bad_record", f"hand {i + 1} must be an object")
        if "deck" in h:
            decks.append(check_deck(h["deck"]))
        elif seed is None:
            raise FormatError("bad_record", f"hand {i + 1} has no deck and the record has no seed")
        else:
            decks.append(deck_for(seed, i + 1))
    first = hands[0].get("dealer", record.get("first_dealer"))
    if first is not None and (type(first) is not int):
        raise FormatError("bad_record", "dealer must be a seat number")
    explicit = any("deck" in h for h in hands)
    game = Game(settings, seed=seed, decks=decks if explicit else None, first_dealer=first)
    applied = 0
    for i, h in enumerate(hands):
        if i > 0:
            game.next_hand()
        actions = h.get("actions", [])
        if not isinstance(actions, list):
            raise FormatError("bad_record", f"hand {i + 1}: 'actions' must be a list")
        for j, raw in enumerate(actions):
            action = action_from_json(raw)
            try:
                game.apply(action)
            except IllegalAction as e:
                raise ReplayError(i + 1, j, e, action_to_text(action)) from e
            applied += 1
        if verify and "result" in h and game.hands[-1].result is not None:
            if game.hands[-1].result.to_json() != h["result"]:
                raise FormatError("result_mismatch", f"hand {i + 1} replays to a different result than recorded")
    if verify and "scores" in record and game.scores != record["scores"] and game.state.is_over:
        raise FormatError("result_mismatch", "the record replays to different scores than recorded")
    return game, applied
