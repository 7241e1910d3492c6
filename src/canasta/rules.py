"""Rule settings (R2): one frozen dataclass, named presets, validated overrides."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Final

from .cards import F_BLACK3, F_RED3, FACE, IS_WILD, NUM_CODES
from .errors import SettingsError

TARGETS: Final[tuple[int | str, ...]] = (5000, 2500, 1500, "one_hand")
#: R2: the values the adjustable settings may take (a whole-number range as (lowest, highest))
HAND_SIZES: Final = (5, 15)
CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    "draw_count": (1, 2),
    "canastas_to_go_out": (1, 2, 3),
    "black_three": ("stop", "freeze"),
    "wild_limit": ("classic", "outnumber"),
    "tie": ("play_on", "draw"),
}
FLAGS: Final = ("wilds_on_canasta", "black_three_meld_on_going_out", "ask_partner")
#: R5.4: cards in a canasta; R5.2: most wild cards in any meld
CANASTA_SIZE: Final = 7
MAX_WILDS: Final = 3
#: R8.1 per card code: why a pile with this top card cannot be taken (None: it can)
TOP_BLOCKS: Final[tuple[str | None, ...]] = tuple(
    "pile_top_wild" if IS_WILD[c] else "pile_top_three" if FACE[c] in (F_BLACK3, F_RED3) else None
    for c in range(NUM_CODES)
)


@dataclass(frozen=True, kw_only=True, slots=True)
class Settings:
    """A complete set of rule settings; build one with :meth:`Settings.preset`.

    >>> Settings.preset("two-player").draw_count
    2
    >>> Settings.preset("classic", target=1500).target
    1500
    """

    name: str = "classic"
    players: int = 4
    hand_size: int = 11
    draw_count: int = 1
    canastas_to_go_out: int = 1
    black_three: str = "stop"
    wild_limit: str = "classic"
    wilds_on_canasta: bool = True
    black_three_meld_on_going_out: bool = True
    ask_partner: bool = False
    target: int | str = 5000
    tie: str = "play_on"

    @staticmethod
    def preset(name: str = "classic", **overrides: Any) -> Settings:
        """The named preset of R2 with individual settings overridden."""
        base = PRESETS.get(name)
        if base is None:
            raise SettingsError(
                "unknown_preset", f"unknown preset '{name}'; choose one of {', '.join(PRESETS)}"
            )
        return base.with_overrides(**overrides)

    def with_overrides(self, **overrides: Any) -> Settings:
        """A copy with some settings changed, validated."""
        names = {f.name for f in fields(Settings)}
        for key in overrides:
            if key not in names or key == "name":
                raise SettingsError("unknown_setting", f"unknown setting '{key}'")
        if "players" in overrides and overrides["players"] != self.players:
            raise SettingsError(
                "bad_setting_players",
                f"players is fixed by the preset ({self.players} for '{self.name}')",
            )
        result = replace(self, **overrides)
        result.validate()
        return result

    def validate(self) -> None:
        """Raise :class:`SettingsError` naming the first invalid setting."""

        def bad(name: str, why: str) -> SettingsError:
            return SettingsError(f"bad_setting_{name}", f"invalid setting {name}: {why}")

        if self.name not in PRESETS:
            raise SettingsError("unknown_preset", f"unknown preset '{self.name}'")
        if type(self.players) is not int or self.players != PRESETS[self.name].players:
            raise bad("players", f"the '{self.name}' preset has {PRESETS[self.name].players} players")
        low, high = HAND_SIZES
        if type(self.hand_size) is not int or not low <= self.hand_size <= high:
            raise bad("hand_size", f"must be a whole number from {low} to {high}")
        if self.players * self.hand_size > 60:
            raise bad("hand_size", f"{self.players} × {self.hand_size} cards cannot be dealt (at most 60)")
        for name, allowed in CHOICES.items():
            value = getattr(self, name)
            if value not in allowed or type(value) is not type(allowed[0]):
                raise bad(name, "must be " + _one_of(allowed))
        for name in FLAGS:
            if not isinstance(getattr(self, name), bool):
                raise bad(name, "must be true or false")
        if self.ask_partner and self.players != 4:
            raise bad("ask_partner", "'May I go out?' exists only in the four-player partnership game")
        if self.target not in TARGETS or type(self.target) not in (int, str):
            raise bad("target", "must be " + _one_of(TARGETS))

    def adjustable(self) -> list[dict[str, Any]]:
        """R2: the settings a player may change for this preset, with the values each may take.

        What a settings form offers, in order: ``{"name", "kind": "number", "min", "max"}``,
        ``{"name", "kind": "choice", "values"}`` or ``{"name", "kind": "flag"}``.

        >>> [f["name"] for f in Settings.preset("two-player").adjustable()][-3:]
        ['wilds_on_canasta', 'black_three_meld_on_going_out', 'tie']
        >>> Settings.preset("classic").adjustable()[0]
        {'name': 'hand_size', 'kind': 'number', 'min': 5, 'max': 15}
        """
        low, high = HAND_SIZES
        fields: list[dict[str, Any]] = [
            {"name": "hand_size", "kind": "number", "min": low, "max": min(high, 60 // self.players)}
        ]
        for name in ("draw_count", "canastas_to_go_out", "black_three", "wild_limit"):
            fields.append({"name": name, "kind": "choice", "values": list(CHOICES[name])})
        for name in FLAGS:
            if name != "ask_partner" or self.players == 4:
                fields.append({"name": name, "kind": "flag"})
        fields.append({"name": "tie", "kind": "choice", "values": list(CHOICES["tie"])})
        return fields

    def to_json(self) -> dict[str, Any]:
        # every field is a scalar: no deep copy (``asdict``) needed, and every view holds this
        return {"preset": self.name, **{f: getattr(self, f) for f in _FIELDS}}

    @staticmethod
    def from_json(data: Any) -> Settings:
        """Settings from JSON: a preset name plus any overrides."""
        if isinstance(data, str):
            return Settings.preset(data)
        if not isinstance(data, dict):
            raise SettingsError("bad_settings", "settings must be an object")
        data = dict(data)
        name = data.pop("preset", "classic")
        if not isinstance(name, str):
            raise SettingsError("unknown_preset", "preset must be a name")
        base = Settings.preset(name)
        overrides = {k: v for k, v in data.items() if k not in ("players",) or v != base.players}
        return base.with_overrides(**overrides)

    @property
    def team_count(self) -> int:
        """Teams keeping a cumulative score: partnerships of two with four players, else each seat."""
        return 2 if self.players == 4 else self.players

    def team_of(self, seat: int) -> int:
        """The team keeping a seat's cumulative score: with four players the partnerships
        (R0: seats 0 and 2, 1 and 3); with two or three players each seat is its own (R14: a
        three-player partnership lasts one hand, the totals stay each player's)."""
        return seat % 2 if self.players == 4 else seat

    # ------------------------------------------------------------------ derived rules
    # Each rule below has its one home here: the engine, the bots and the server ask these.

    @property
    def canasta_size(self) -> int:
        """R5.4: a meld of this many cards or more is a canasta."""
        return CANASTA_SIZE

    def is_canasta(self, size: int) -> bool:
        """R5.4: is a meld of ``size`` cards a canasta?

        >>> Settings.preset("classic").is_canasta(7), Settings.preset("classic").is_canasta(6)
        (True, False)
        """
        return size >= CANASTA_SIZE

    def wild_limit_error(self, naturals: int, wilds: int) -> str | None:
        """R5.2: the code of the wild-card limit a meld of these counts breaks, or None.

        >>> classic, quick = Settings.preset("classic"), Settings.preset("two-player-quick")
        >>> classic.wild_limit_error(2, 2), quick.wild_limit_error(2, 2), classic.wild_limit_error(1, 1)
        (None, 'wilds_outnumber_naturals', 'meld_needs_two_naturals')
        """
        if wilds > MAX_WILDS:
            return "too_many_wilds"
        if self.wild_limit == "outnumber":
            return "wilds_outnumber_naturals" if naturals <= wilds else None
        return "meld_needs_two_naturals" if naturals < 2 else None

    def wild_capacity(self, naturals: int, wilds: int = 0, size: int = 0) -> int:
        """R5.2, R5.4: how many more wilds a meld of ``naturals`` and ``wilds`` may take.

        ``size`` is the meld's card count on the table before the action (0 for a new meld):
        under ``wilds_on_canasta=no`` a completed canasta takes no wild at all.

        >>> Settings.preset("classic").wild_capacity(2), Settings.preset("two-player-quick").wild_capacity(3, 1)
        (3, 1)
        >>> Settings.preset("two-player-quick").wild_capacity(7, size=7)
        0
        """
        if size >= CANASTA_SIZE and not self.wilds_on_canasta:
            return 0
        most = min(MAX_WILDS, naturals - 1) if self.wild_limit == "outnumber" else MAX_WILDS
        return max(most - wilds, 0)

    def canasta_bonus(self, wilds: int) -> int:
        """R13.1: the bonus of a canasta holding ``wilds`` wild cards (natural 500, mixed 300)."""
        return 500 if wilds == 0 else 300

    def red_three_bonus(self, count: int, opened: bool) -> int:
        """R9.3: 100 each, 800 for all four, negative for a side that has not opened.

        >>> [Settings.preset("classic").red_three_bonus(n, True) for n in (1, 3, 4)]
        [100, 300, 800]
        >>> Settings.preset("classic").red_three_bonus(2, False)
        -200
        """
        bonus = 800 if count >= 4 else 100 * count
        return bonus if opened else -bonus

    def going_out_bonus(self, concealed: bool) -> int:
        """R13.1: 100 for going out, 200 when concealed (R10.3)."""
        return 200 if concealed else 100

    def frozen_causes(self, *, wild: bool, red_three: bool, black_three: bool, opened: bool) -> list[str]:
        """R7: why the pile is frozen for a side (an empty list: it is not).

        The flags say whether the pile holds a wild card, a red three, a black three, and
        whether the side has opened.

        >>> Settings.preset("bicycle").frozen_causes(wild=False, red_three=False, black_three=True, opened=False)
        ['black_three', 'not_opened']
        >>> Settings.preset("classic").frozen_causes(wild=False, red_three=False, black_three=True, opened=True)
        []
        """
        causes = []
        if wild:
            causes.append("wild")
        if red_three:
            causes.append("red_three")
        if black_three and self.black_three == "freeze":
            causes.append("black_three")
        if not opened:
            causes.append("not_opened")
        return causes

    def is_frozen(self, wild: int, red_three: int, black_three: int, opened: int) -> bool:
        """R7: is the pile frozen for a side (the flags as in :meth:`frozen_causes`, or counts)?"""
        return bool(wild or red_three or (black_three and self.black_three == "freeze") or not opened)

    def pile_blocked(self, top: int | None) -> str | None:
        """R8.1: why nobody may take the pile with this top card (None: its top allows a take).

        >>> from canasta.cards import parse_card
        >>> [Settings.preset("classic").pile_blocked(t) for t in (None, parse_card("2C"), parse_card("3S"), parse_card("KH"))]
        ['pile_empty', 'pile_top_wild', 'pile_top_three', None]
        """
        return "pile_empty" if top is None else TOP_BLOCKS[top]


#: the fields of :meth:`Settings.to_json` after ``preset`` (the name), in declaration order
_FIELDS: Final = tuple(f.name for f in fields(Settings) if f.name != "name")


def opening_minimum(score: int) -> int:
    """R6.1: the opening minimum for a cumulative score.

    >>> [opening_minimum(s) for s in (-5, 0, 1495, 1500, 2995, 3000)]
    [15, 50, 50, 90, 90, 120]
    """
    if score < 0:
        return 15
    if score < 1500:
        return 50
    if score < 3000:
        return 90
    return 120


PRESETS: Final[dict[str, Settings]] = {
    "classic": Settings(),
    "bicycle": Settings(name="bicycle", black_three="freeze"),
    "two-player": Settings(name="two-player", players=2, hand_size=15, draw_count=2, canastas_to_go_out=2),
    "two-player-quick": Settings(
        name="two-player-quick",
        players=2,
        hand_size=15,
        draw_count=2,
        canastas_to_go_out=1,
        wild_limit="outnumber",
        wilds_on_canasta=False,
        black_three_meld_on_going_out=False,
    ),
    "three-player": Settings(name="three-player", players=3, hand_size=13, draw_count=2),
}


def _one_of(values: tuple[Any, ...]) -> str:
    """'1 or 2', "'stop' or 'freeze'", '5000, 2500, 1500 or 'one_hand''."""
    words = [repr(v) if isinstance(v, str) else str(v) for v in values]
    return ", ".join(words[:-1]) + " or " + words[-1]
