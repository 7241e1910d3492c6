"""A verifiable shuffle: every hand dealt from a seed of its own, committed before it starts.

The dealer of a match (a server) draws a random *secret* of 32 bytes and publishes its SHA-256
(the match commitment) before the first hand.  Hand ``n`` is dealt from its *hand seed*
``HMAC-SHA256(secret, "canasta-hand:n")``; the SHA-256 of that seed (the hand's commitment) is
shown before the hand starts and the seed itself once the hand is over, so anyone can recompute
that hand's deal, while the later hands stay secret.  The secret is revealed when the match is
over: then every hand seed can be checked to come from the one secret committed at the start
(the dealer could not choose a later deal after seeing how the earlier hands went).

The shuffle is a Fisher–Yates shuffle driven by SHA-256 alone (no Mersenne Twister), so that it
can be reimplemented anywhere from ``docs/formats.md``:

>>> secret = "00" * 32
>>> seed = hand_seed(secret, 1)
>>> seed[:16], commitment(seed)[:16]
('4c80f7614d349483', '30cd17f632be1e5e')
>>> [card_str(c) for c in deck_from_seed(seed)[:5]]
['6D', '4C', 'AS', '5H', '5C']

Existing records (dealt from a match seed with :func:`canasta.deal.deck_for`) deal as before:
a match uses this scheme only when it is built as a :class:`FairGame`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any

from .cards import card_str, full_deck
from .deal import deck_for
from .errors import CanastaError, FormatError
from .game import Game, replay_record
from .rules import Settings

__all__ = [
    "SCHEME",
    "FairGame",
    "Verification",
    "commitment",
    "deck_from_seed",
    "fairness_info",
    "first_dealer_from_seed",
    "game_from_record",
    "hand_seed",
    "new_secret",
    "public_record",
    "shown_fairness",
    "verify_record",
]

#: the name of this scheme in records (``fairness.scheme``)
SCHEME = "canasta-commit-1"

_HEX64 = re.compile(r"[0-9a-f]{64}")


def new_secret() -> str:
    """A fresh match secret: 32 random bytes from the operating system, as 64 hex digits."""
    return secrets.token_hex(32)


def _check_hex(value: Any, what: str) -> str:
    if not isinstance(value, str) or not _HEX64.fullmatch(value):
        raise FormatError("bad_fairness", f"{what} must be 64 lowercase hex digits")
    return value


def commitment(value: str) -> str:
    """The commitment to a secret or a hand seed: the SHA-256 of its text, in hex."""
    return hashlib.sha256(value.encode("ascii")).hexdigest()


def hand_seed(secret: str, number: int) -> str:
    """The seed of hand ``number``: HMAC-SHA256 keyed by the secret's text, in hex."""
    key = _check_hex(secret, "the secret").encode("ascii")
    return hmac.new(key, f"canasta-hand:{number}".encode("ascii"), hashlib.sha256).hexdigest()


class _Stream:
    """Uniform integers from the blocks ``SHA-256(label:seed:k)``, k = 0, 1, ... (4 bytes each)."""

    def __init__(self, label: str, seed: str) -> None:
        self._prefix = f"{label}:{seed}:"
        self._block = b""
        self._k = 0

    def _word(self) -> int:
        if len(self._block) < 4:
            self._block += hashlib.sha256(f"{self._prefix}{self._k}".encode("ascii")).digest()
            self._k += 1
        word, self._block = self._block[:4], self._block[4:]
        return int.from_bytes(word, "big")

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` (rejection sampling: no modulo bias)."""
        limit = (1 << 32) - (1 << 32) % n
        while True:
            word = self._word()
            if word < limit:
                return word % n


def deck_from_seed(seed: str) -> list[int]:
    """The deck of a hand (index 0 is the top card): Fisher–Yates over the canonical pack."""
    _check_hex(seed, "a hand seed")
    deck = full_deck()
    stream = _Stream("deck", seed)
    for i in range(len(deck) - 1, 0, -1):
        j = stream.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def first_dealer_from_seed(seed: str, players: int) -> int:
    """R3.1: the first dealer, drawn from the first hand's seed."""
    return _Stream("dealer", _check_hex(seed, "a hand seed")).below(players)


class FairGame(Game):
    """A match whose hands are dealt from hand seeds derived from a secret (see the module).

    >>> g = FairGame(Settings.preset("classic"), secret="00" * 32)
    >>> g.decks[0] == deck_from_seed(hand_seed("00" * 32, 1)), g.seed
    (True, None)
    """

    def __init__(self, settings: Settings | None = None, *, secret: str | None = None) -> None:
        settings = settings or Settings.preset("classic")
        self.secret = _check_hex(secret if secret is not None else new_secret(), "the secret")
        #: each dealt hand's seed and its commitment (they depend on the secret only)
        self._seeds: dict[int, tuple[str, str]] = {}
        first = hand_seed(self.secret, 1)
        super().__init__(
            settings,
            decks=[deck_from_seed(first)],
            first_dealer=first_dealer_from_seed(first, settings.players),
        )

    def _deck(self, number: int) -> list[int]:
        assert self.decks is not None
        while len(self.decks) < number:  # the next hand's deck, only when it is dealt
            self.decks.append(deck_from_seed(hand_seed(self.secret, len(self.decks) + 1)))
        return super()._deck(number)

    def to_record(self) -> dict[str, Any]:
        """The full record, with the secret: for the dealer's own storage only (what may
        leave it is :func:`public_record`)."""
        record = super().to_record()
        hands = []
        for log in self.hands:
            known = self._seeds.get(log.number)
            if known is None:
                seed = hand_seed(self.secret, log.number)
                known = self._seeds[log.number] = (seed, commitment(seed))
            hands.append({"number": log.number, "commitment": known[1], "seed": known[0]})
        record["fairness"] = {
            "scheme": SCHEME,
            "commitment": commitment(self.secret),
            "secret": self.secret,
            "hands": hands,
        }
        return record


def game_from_record(record: Any) -> Game:
    """Replay a stored record: a :class:`FairGame` when it carries a secret, else a Game."""
    game = Game.from_record(record)
    fair = record.get("fairness") if isinstance(record, dict) else None
    if not isinstance(fair, dict) or fair.get("secret") is None:
        return game
    secret = _check_hex(fair["secret"], "the secret")
    for log in game.hands:
        if log.deck != deck_from_seed(hand_seed(secret, log.number)):
            raise FormatError("deal_mismatch", f"hand {log.number} was not dealt from the record's secret")
    # The core replays the record as a Game with explicit decks; the secret only adds the decks
    # of the hands still to come, which is all FairGame changes.
    game.__class__ = FairGame
    assert isinstance(game, FairGame)
    game.secret = secret
    game._seeds = {}
    return game


def fairness_info(game: Game) -> dict[str, Any] | None:
    """What a table shows of the current hand: its commitment, its seed once it is over, and
    the match commitment (its secret once the match is over). None: not a committed deal."""
    if not isinstance(game, FairGame):
        return None
    log = game.hands[-1]
    seed = hand_seed(game.secret, log.number)
    return {
        "scheme": SCHEME,
        "commitment": commitment(game.secret),
        "secret": game.secret if game.is_over else None,
        "hand": log.number,
        "hand_commitment": commitment(seed),
        "hand_seed": seed if log.result is not None else None,
    }


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """What others may see of a record: only the finished hands, each with its deck and
    revealed seed; the secret (or a match seed) only once the match is over.

    A record dealt from a match seed gets explicit decks instead of the seed while the match
    goes on: the seed would tell the hands still to come.
    """
    over = bool(record.get("over"))
    seed = record.get("seed")
    hands = []
    for h in record.get("hands") or []:
        if "result" not in h:
            break
        entry = dict(h)
        if "deck" not in entry and seed is not None and not over:
            entry["deck"] = [card_str(c) for c in deck_for(seed, h["number"])]
        hands.append(entry)
    out = {k: v for k, v in record.items() if k != "fairness"}
    out["hands"] = hands
    if not over:
        out["seed"] = None
    fair = record.get("fairness")
    if isinstance(fair, dict):
        numbers = {h["number"] for h in hands}
        out["fairness"] = {
            "scheme": fair.get("scheme"),
            "commitment": fair.get("commitment"),
            "secret": fair.get("secret") if over else None,
            "hands": [
                {k: v for k, v in e.items() if k in ("number", "commitment", "seed")}
                for e in fair.get("hands") or []
                if isinstance(e, dict) and e.get("number") in numbers
            ],
        }
    return out


def shown_fairness(record: dict[str, Any], max_hands: int = 200) -> dict[str, Any] | None:
    """The fairness part of a record from elsewhere (an imported file) as it may be shown: the
    scheme, the match commitment, the revealed secret and each hand's number, commitment and
    seed, each well formed (a value that is not 64 lowercase hex digits reads as None, a hand
    entry without a commitment is left out), and nothing else, at most ``max_hands`` hands.
    None: the record has no fairness part that reads. Nothing here is verified: that is
    :func:`verify_record`."""
    fair = record.get("fairness")
    scheme = fair.get("scheme") if isinstance(fair, dict) else None
    if not isinstance(fair, dict) or not isinstance(scheme, str) or len(scheme) > 40:
        return None

    def hex64(value: Any) -> str | None:
        return value if isinstance(value, str) and _HEX64.fullmatch(value) else None

    match_commitment = hex64(fair.get("commitment"))
    entries = fair.get("hands")
    if match_commitment is None or not isinstance(entries, list):
        return None
    hands = [
        {"number": e["number"], "commitment": hex64(e.get("commitment")), "seed": hex64(e.get("seed"))}
        for e in entries[:max_hands]
        if isinstance(e, dict) and type(e.get("number")) is int and hex64(e.get("commitment"))
    ]
    return {"scheme": scheme, "commitment": match_commitment, "secret": hex64(fair.get("secret")), "hands": hands}


# ---------------------------------------------------------------------- verification


class Verification:
    """The outcome of :func:`verify_record`: a line per check, and the first failure if any."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.failure: CanastaError | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    def fail(self, code: str, message: str) -> Verification:
        self.failure = CanastaError(code, message)
        return self


def verify_record(record: Any) -> Verification:
    """Check a record's deals against its commitments, then replay it (``canasta verify``)."""
    out = Verification()
    if not isinstance(record, dict):
        return out.fail("bad_record", "not a canasta record")
    fair = record.get("fairness")
    if not isinstance(fair, dict):
        return out.fail(
            "no_commitments", "the record holds no commitments: its deals cannot be verified"
        )
    if fair.get("scheme") != SCHEME:
        return out.fail("bad_fairness", f"unknown fairness scheme {fair.get('scheme')!r} (expected {SCHEME!r})")
    entries = fair.get("hands")
    hands = record.get("hands")
    if not isinstance(entries, list) or not isinstance(hands, list) or not hands:
        return out.fail("bad_fairness", "the record needs 'hands' and 'fairness.hands' lists")
    try:
        match_commitment = _check_hex(fair.get("commitment"), "the match commitment")
        secret = fair.get("secret")
        if secret is not None:
            _check_hex(secret, "the secret")
            if commitment(secret) != match_commitment:
                return out.fail("commitment_mismatch", "the revealed secret does not match the match commitment")
            out.lines.append("match: the revealed secret matches the match commitment")
        by_number = {e.get("number"): e for e in entries if isinstance(e, dict)}
        settings = Settings.from_json(record.get("settings", {}))
        for i, h in enumerate(hands):
            number = h.get("number", i + 1) if isinstance(h, dict) else i + 1
            entry = by_number.get(number)
            if entry is None:
                return out.fail("missing_commitment", f"hand {number}: no commitment in the record")
            committed = _check_hex(entry.get("commitment"), f"hand {number}'s commitment")
            seed = entry.get("seed")
            if seed is None and secret is not None:
                seed = hand_seed(secret, number)
            if seed is None:
                out.lines.append(f"hand {number}: committed, seed not revealed yet")
                continue
            _check_hex(seed, f"hand {number}'s seed")
            if commitment(seed) != committed:
                return out.fail("commitment_mismatch", f"hand {number}: the revealed seed does not match its commitment")
            if secret is not None and hand_seed(secret, number) != seed:
                return out.fail("seed_mismatch", f"hand {number}: the seed does not come from the revealed secret")
            deck = deck_from_seed(seed)
            if not isinstance(h, dict) or "deck" not in h:
                return out.fail("deal_mismatch", f"hand {number}: the record holds no deck to check")
            recorded = h["deck"]
            if [card_str(c) for c in deck] != [c.upper() if isinstance(c, str) else card_str(c) for c in recorded]:
                return out.fail("deal_mismatch", f"hand {number}: the recorded deal is not the deal of its revealed seed")
            if i == 0 and h.get("dealer", record.get("first_dealer")) != first_dealer_from_seed(seed, settings.players):
                return out.fail("deal_mismatch", "hand 1: the first dealer is not the one drawn from its seed")
            out.lines.append(f"hand {number}: the seed matches its commitment and the deal matches the record")
        game, applied = replay_record(record)
    except CanastaError as e:
        return out.fail(e.code, e.message)
    # replay_record checks the results of the hands that end; a record must also not claim a
    # result (or an end of the match) its actions never reach
    for h, log in zip(hands, game.hands, strict=False):
        if "result" in h and (log.result is None or log.result.to_json() != h["result"]):
            return out.fail("result_mismatch", f"hand {log.number}: the actions do not reach the recorded result")
    if "scores" in record and record["scores"] != game.scores or bool(record.get("over")) != game.is_over:
        return out.fail("result_mismatch", "the record's scores or end of match are not what its actions reach")
    out.lines.append(f"replay: {applied} actions are legal and every recorded result matches (scores {game.scores})")
    return out
