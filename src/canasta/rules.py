"""Rule settings (R2): one frozen dataclass, named presets, validated overrides."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from .errors import SettingsError

TARGETS: tuple[int | str, ...] = (5000, 2500, 1500, "one_hand")


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
        if self.players != PRESETS[self.name].players:
            raise bad("players", f"the '{self.name}' preset has {PRESETS[self.name].players} players")
        if type(self.hand_size) is not int or not 5 <= self.hand_size <= 15:
            raise bad("hand_size", "must be a whole number from 5 to 15")
        if self.players * self.hand_size > 60:
            raise bad("hand_size", f"{self.players} × {self.hand_size} cards cannot be dealt (at most 60)")
        if self.draw_count not in (1, 2) or type(self.draw_count) is not int:
            raise bad("draw_count", "must be 1 or 2")
        if type(self.canastas_to_go_out) is not int or not 1 <= self.canastas_to_go_out <= 3:
            raise bad("canastas_to_go_out", "must be 1, 2 or 3")
        if self.black_three not in ("stop", "freeze"):
            raise bad("black_three", "must be 'stop' or 'freeze'")
        if self.wild_limit not in ("classic", "outnumber"):
            raise bad("wild_limit", "must be 'classic' or 'outnumber'")
        for name in ("wilds_on_canasta", "black_three_meld_on_going_out", "ask_partner"):
            if not isinstance(getattr(self, name), bool):
                raise bad(name, "must be true or false")
        if self.ask_partner and self.players != 4:
            raise bad("ask_partner", "'May I go out?' exists only in the four-player partnership game")
        if self.target not in TARGETS or isinstance(self.target, bool):
            raise bad("target", "must be 5000, 2500, 1500 or 'one_hand'")
        if self.tie not in ("play_on", "draw"):
            raise bad("tie", "must be 'play_on' or 'draw'")

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["preset"] = data.pop("name")
        return {"preset": data.pop("preset"), **data}

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
        return 2 if self.players == 4 else self.players


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


PRESETS: dict[str, Settings] = {
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
