"""Actions: small immutable values with a text and a JSON form that round-trip exactly.

>>> a = action_from_text("meld K:KH,KS,KD 9:9C,9D,JK discard 5C")
>>> action_to_text(a)
'meld K:KH,KS,KD 9:9C,9D,JK discard 5C'
>>> action_from_json(action_to_json(a)) == a
True
"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from .cards import (
    F_DEUCE,
    FACE,
    FACE_TOKEN,
    JOKER,
    NUM_CODES,
    NUM_FACES,
    card_str,
    parse_card,
    parse_rank,
)
from .errors import FormatError


class Group(NamedTuple):
    """Cards from the hand for one rank: a new meld or an addition to the side's meld."""

    rank: int
    cards: tuple[int, ...]


class Draw(NamedTuple):
    """Draw ``draw_count`` cards from the stock (R4.1)."""

    kind: str = "draw"


class TakePile(NamedTuple):
    """Take the pile: the top card joins the group of its rank (R8)."""

    groups: tuple[Group, ...]
    kind: str = "take"


class Meld(NamedTuple):
    """Lay one or more groups at once (R4); ``discard`` only when going out with the last card."""

    groups: tuple[Group, ...]
    discard: int | None = None
    kind: str = "meld"


class Discard(NamedTuple):
    """Discard one card, ending the turn (or going out with the last card)."""

    card: int
    kind: str = "discard"


class Ask(NamedTuple):
    """Ask the partner "May I go out?" (R11)."""

    kind: str = "ask"


class Answer(NamedTuple):
    """The partner's binding answer (R11)."""

    yes: bool
    kind: str = "answer"


class Decline(NamedTuple):
    """Decline the pile with an empty stock, ending the hand (R12.2)."""

    kind: str = "decline"


Action = Draw | TakePile | Meld | Discard | Ask | Answer | Decline

DRAW: Final = Draw()
ASK: Final = Ask()
YES: Final = Answer(True)
NO: Final = Answer(False)
DECLINE: Final = Decline()
#: the discard action of each card code, shared (actions are immutable)
DISCARDS: Final[tuple[Discard, ...]] = tuple(Discard(c) for c in range(53))


# One-group actions (a meld or a pile take of one rank: its naturals from the hand, in code
# order, then at most one wild) are built once and shared.  Their key is
# ``(rank * 81 + suits) * 6 + wild``: ``suits`` counts the naturals of each suit in base 3
# (``SUIT_WEIGHT``; two copies of a card at most), ``wild`` is ``WILD_SLOT`` of the wild card
# (0 none, 1..4 a deuce by suit, 5 a joker).
SUIT_WEIGHT: Final[tuple[int, ...]] = (1, 3, 9, 27)
WILD_SLOT: Final[tuple[int, ...]] = tuple(
    1 + c % 4 if FACE[c] == F_DEUCE else 5 if c == JOKER else 0 for c in range(NUM_CODES)
)
#: how many one-group keys there are
GROUP_KEYS: Final = NUM_FACES * 81 * 6


def group_of_key(key: int) -> Group:
    """The group a one-group key stands for (see ``SUIT_WEIGHT``).

    >>> key = (9 * 81 + SUIT_WEIGHT[1] + 2 * SUIT_WEIGHT[3]) * 6 + WILD_SLOT[JOKER]
    >>> _group_text(group_of_key(key))
    'T:TD,TS,TS,JK'
    """
    rank, rest = divmod(key, 81 * 6)
    suits, slot = divmod(rest, 6)
    cards: list[int] = []
    for suit in range(4):
        cards.extend([4 * rank + suit] * ((suits // SUIT_WEIGHT[suit]) % 3))
    if slot:
        cards.append(JOKER if slot == 5 else 4 * F_DEUCE + slot - 1)
    return Group(rank, tuple(cards))


#: the shared one-group actions: the meld of key ``k`` at ``2k``, the pile take at ``2k + 1``
_ONE_GROUP: Final[list[Meld | TakePile | None]] = [None] * (2 * GROUP_KEYS)


def one_group(key: int, take: bool) -> Meld | TakePile:
    """The meld (or, with ``take``, the pile take) of the one group ``key`` stands for, shared."""
    i = 2 * key + take
    action = _ONE_GROUP[i]
    if action is None:
        groups = (group_of_key(key),)
        action = _ONE_GROUP[i] = TakePile(groups) if take else Meld(groups)
    return action


def group(rank: str, cards: str | list[str]) -> Group:
    """Build a group from notation: ``group("K", "KH,KS")``."""
    from .cards import parse_cards

    return Group(parse_rank(rank), tuple(parse_cards(cards)))


def _group_text(g: Group) -> str:
    token = FACE_TOKEN[g.rank]
    if not g.cards:
        return token
    return token + ":" + ",".join(card_str(c) for c in g.cards)


def action_to_text(action: Action) -> str:
    """The short text form of an action."""
    kind = action.kind
    if kind == "meld":
        assert isinstance(action, Meld)
        text = " ".join(["meld"] + [_group_text(g) for g in action.groups])
        if action.discard is not None:
            text += " discard " + card_str(action.discard)
        return text
    if kind == "take":
        assert isinstance(action, TakePile)
        return " ".join(["take"] + [_group_text(g) for g in action.groups])
    if kind == "discard":
        assert isinstance(action, Discard)
        return "discard " + card_str(action.card)
    if kind == "answer":
        assert isinstance(action, Answer)
        return "yes" if action.yes else "no"
    return kind


def _parse_group_text(token: str) -> Group:
    rank, _, cards = token.partition(":")
    parsed = tuple(parse_card(c) for c in cards.split(",") if c) if cards else ()
    return Group(parse_rank(rank), parsed)


def action_from_text(text: str) -> Action:
    """Parse the text form of an action; :class:`FormatError` if malformed."""
    if not isinstance(text, str):
        raise FormatError("bad_action", "an action must be a string or an object")
    words = text.split()
    if not words:
        raise FormatError("bad_action", "empty action")
    verb, rest = words[0].lower(), words[1:]
    simple: dict[str, Action] = {"draw": DRAW, "ask": ASK, "yes": YES, "no": NO, "decline": DECLINE}
    if verb in simple:
        if rest:
            raise FormatError("bad_action", f"'{verb}' takes no arguments")
        return simple[verb]
    if verb == "discard":
        if len(rest) != 1:
            raise FormatError("bad_action", "discard needs exactly one card, e.g. 'discard 5C'")
        return Discard(parse_card(rest[0]))
    if verb in ("meld", "take"):
        discard = None
        if "discard" in rest:
            i = rest.index("discard")
            if verb == "take" or i != len(rest) - 2:
                raise FormatError("bad_action", "'discard CARD' may only end a meld action")
            discard = parse_card(rest[-1])
            rest = rest[:i]
        groups = tuple(_parse_group_text(t) for t in rest)
        if verb == "take":
            return TakePile(groups)
        if not groups:
            raise FormatError("bad_action", "a meld needs at least one group like 'K:KH,KS,KD'")
        return Meld(groups, discard)
    raise FormatError("bad_action", f"unknown action '{verb}'")


def _group_json(g: Group) -> dict[str, Any]:
    return {"rank": FACE_TOKEN[g.rank], "cards": [card_str(c) for c in g.cards]}


def action_to_json(action: Action) -> dict[str, Any]:
    """The JSON form of an action."""
    kind = action.kind
    if kind == "meld":
        assert isinstance(action, Meld)
        out: dict[str, Any] = {"type": "meld", "groups": [_group_json(g) for g in action.groups]}
        if action.discard is not None:
            out["discard"] = card_str(action.discard)
        return out
    if kind == "take":
        assert isinstance(action, TakePile)
        return {"type": "take", "groups": [_group_json(g) for g in action.groups]}
    if kind == "discard":
        assert isinstance(action, Discard)
        return {"type": "discard", "card": card_str(action.card)}
    if kind == "answer":
        assert isinstance(action, Answer)
        return {"type": "answer", "yes": action.yes}
    return {"type": kind}


def _parse_groups(data: Any) -> tuple[Group, ...]:
    if not isinstance(data, list):
        raise FormatError("bad_action", "'groups' must be a list")
    if len(data) > 20:
        raise FormatError("bad_action", "too many groups")
    out = []
    for g in data:
        if not isinstance(g, dict) or "rank" not in g:
            raise FormatError("bad_action", "each group needs a 'rank' and 'cards'")
        cards = g.get("cards", [])
        if not isinstance(cards, list) or len(cards) > 120:
            raise FormatError("bad_action", "a group's 'cards' must be a list of cards")
        out.append(Group(parse_rank(g["rank"]), tuple(parse_card(c) for c in cards)))
    return tuple(out)


def action_from_json(data: Any) -> Action:
    """Parse the JSON form of an action (a text form string is accepted too)."""
    if isinstance(data, str):
        return action_from_text(data)
    if not isinstance(data, dict):
        raise FormatError("bad_action", "an action must be an object with a 'type'")
    kind = data.get("type")
    if kind == "draw":
        return DRAW
    if kind == "ask":
        return ASK
    if kind == "decline":
        return DECLINE
    if kind == "answer":
        yes = data.get("yes")
        if not isinstance(yes, bool):
            raise FormatError("bad_action", "an answer needs 'yes': true or false")
        return YES if yes else NO
    if kind == "discard":
        return Discard(parse_card(data.get("card")))  # type: ignore[arg-type]
    if kind == "take":
        return TakePile(_parse_groups(data.get("groups", [])))
    if kind == "meld":
        discard = data.get("discard")
        groups = _parse_groups(data.get("groups"))
        if not groups:
            raise FormatError("bad_action", "a meld needs at least one group")
        return Meld(groups, None if discard is None else parse_card(discard))
    raise FormatError("bad_action", f"unknown action type {kind!r}")
