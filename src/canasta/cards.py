"""Cards as small ints, their faces and values (R1), and the two-character notation.

A card is a code ``0..52``: ``rank * 4 + suit`` for the 52 suited cards (ranks ``A23456789TJQK``,
suits ``CDHS``) and ``52`` for a joker.  The two decks hold two copies of each suited card and
four jokers; copies are indistinguishable, so a code names the card completely.

>>> card_str(parse_card("KH"))
'KH'
>>> VALUE[parse_card("JK")], VALUE[parse_card("AS")], VALUE[parse_card("3C")]
(50, 20, 5)
"""

from __future__ import annotations

from typing import Final

from .errors import FormatError

RANK_CHARS: Final = "A23456789TJQK"
SUIT_CHARS: Final = "CDHS"
JOKER: Final = 52
NUM_CODES: Final = 53
DECK_SIZE: Final = 108

# Faces: what matters to the rules.  Faces 0..12 follow RANK_CHARS (face 2 is a black three);
# jokers and red threes get faces of their own.
F_ACE: Final = 0
F_DEUCE: Final = 1
F_BLACK3: Final = 2
F_JOKER: Final = 13
F_RED3: Final = 14
NUM_FACES: Final = 15

#: faces that may form an ordinary meld (R5.1): A, 4..K
MELD_FACES: Final[tuple[int, ...]] = (0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
#: the rank token of a face, as written in groups (``"3"`` is a black-three meld)
FACE_TOKEN: Final[tuple[str, ...]] = tuple(RANK_CHARS) + ("JK", "3R")
TOKEN_FACE: Final[dict[str, int]] = {t: f for f, t in enumerate(FACE_TOKEN[:13])}
#: the meld ranks as a table shows them, highest first: A, K, Q, … 4
MELD_TOKENS: Final[tuple[str, ...]] = (FACE_TOKEN[F_ACE],) + tuple(FACE_TOKEN[f] for f in reversed(MELD_FACES[1:]))

_FACE_VALUE: Final = (20, 20, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 50, 0)


def _face(code: int) -> int:
    if code == JOKER:
        return F_JOKER
    rank, suit = divmod(code, 4)
    if rank == 2 and suit in (1, 2):
        return F_RED3
    return rank


#: face of each code
FACE: Final[tuple[int, ...]] = tuple(_face(c) for c in range(NUM_CODES))
#: R1 value of each code (red threes are bonus cards: 0 here, see R9/R13)
VALUE: Final[tuple[int, ...]] = tuple(_FACE_VALUE[FACE[c]] for c in range(NUM_CODES))


def value_of(cards: list[int] | tuple[int, ...]) -> int:
    """R1: the total value of some cards (a plain loop: cheaper than ``sum`` over a generator)."""
    total = 0
    for c in cards:
        total += VALUE[c]
    return total


#: is the face wild (2 or joker)
WILD_FACE: Final[tuple[bool, ...]] = tuple(f in (F_DEUCE, F_JOKER) for f in range(NUM_FACES))
IS_WILD: Final[tuple[bool, ...]] = tuple(WILD_FACE[FACE[c]] for c in range(NUM_CODES))
#: copies of each code in the 108-card pack
COPIES: Final[tuple[int, ...]] = tuple(4 if c == JOKER else 2 for c in range(NUM_CODES))

_STR: Final = tuple(RANK_CHARS[c // 4] + SUIT_CHARS[c % 4] for c in range(52)) + ("JK",)
#: the notation of every card code (``CARD_TEXT[c] == card_str(c)``), for loops over many cards
CARD_TEXT: Final[tuple[str, ...]] = _STR
_PARSE: Final = {s: c for c, s in enumerate(_STR)}


def card_str(code: int) -> str:
    """The two-character notation of a card code."""
    return _STR[code]


def parse_card(text: str) -> int:
    """Parse ``"KH"``, ``"TD"``, ``"JK"`` (case-insensitive) into a card code."""
    if not isinstance(text, str):
        raise FormatError("bad_card", f"a card must be a string like 'KH', not {text!r}")
    code = _PARSE.get(text.strip().upper())
    if code is None:
        raise FormatError(
            "bad_card",
            f"'{text}' is not a card: use rank A23456789TJQK + suit CDHS, or JK for a joker",
        )
    return code


def parse_cards(items: object) -> list[int]:
    """Parse a list of card strings (or one comma/space separated string)."""
    if isinstance(items, str):
        items = [t for t in items.replace(",", " ").split() if t]
    if not isinstance(items, (list, tuple)):
        raise FormatError("bad_cards", "cards must be a list of card strings")
    return [parse_card(t) for t in items]


def parse_rank(token: str) -> int:
    """Parse a meld rank token (``A 4..9 T J Q K`` or ``3``) into a face."""
    if not isinstance(token, str):
        raise FormatError("bad_rank", f"a rank must be a string, not {token!r}")
    face = TOKEN_FACE.get(token.strip().upper().replace("10", "T"))
    if face is None or face not in MELD_FACES and face != F_BLACK3:
        raise FormatError("bad_rank", f"'{token}' is not a meld rank: use A 4 5 6 7 8 9 T J Q K or 3")
    return face


def full_deck() -> list[int]:
    """The 108 codes in a fixed canonical order (two copies of each suited card, four jokers)."""
    return [c for c in range(52) for _ in range(2)] + [JOKER] * 4


def _sort_key(code: int) -> tuple[int, int]:
    face = FACE[code]
    order = 20 if face == F_JOKER else 19 if face == F_DEUCE else (13 if face == F_ACE else face)
    return (order, code % 4)


#: :func:`sort_key` of every card code, for ``sorted(cards, key=SORT_KEYS.__getitem__)``
SORT_KEYS: Final[tuple[tuple[int, int], ...]] = tuple(_sort_key(c) for c in range(NUM_CODES))


def sort_key(code: int) -> tuple[int, int]:
    """Sort by rank (jokers and 2s last), then suit."""
    return SORT_KEYS[code]


def _stage(code: int) -> tuple[str, ...]:
    face = FACE[code]
    if IS_WILD[code]:
        return MELD_TOKENS
    if face == F_RED3:
        return ()
    return (FACE_TOKEN[face],)


_STAGE: Final[tuple[tuple[str, ...], ...]] = tuple(_stage(c) for c in range(NUM_CODES))


def stage_targets(code: int) -> tuple[str, ...]:
    """R5.1, R5.2, R10.4: the rank tokens of the melds a card may go into.

    A natural goes into a meld of its own rank, a wild card into any ordinary meld, a black
    three only into the black-three meld of going out; a red three into none.

    >>> stage_targets(parse_card("KH")), stage_targets(parse_card("3S")), stage_targets(parse_card("3H"))
    (('K',), ('3',), ())
    >>> len(stage_targets(parse_card("JK"))), stage_targets(parse_card("2C"))[:3]
    (11, ('A', 'K', 'Q'))
    """
    return _STAGE[code]
