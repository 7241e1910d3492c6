"""canasta: an exact Classic Canasta rules engine (standard library only).

>>> from canasta import Game, Settings
>>> game = Game(Settings.preset("classic"), seed=1)
>>> game.state.legal_actions()[0]
Draw(kind='draw')
"""

from .actions import (
    Action,
    Answer,
    Ask,
    Decline,
    Discard,
    Draw,
    Group,
    Meld,
    TakePile,
    action_from_json,
    action_from_text,
    action_to_json,
    action_to_text,
)
from .errors import CanastaError, FormatError, IllegalAction, SettingsError
from .game import Game, HandLog, ReplayError, replay_record
from .legal import LegalActions
from .position import position_to_json, state_from_position
from .resample import Resampler, fixed_state, resample
from .results import HandResult, SideScore
from .rules import PRESETS, Settings, opening_minimum
from .state import Event, State, TableMeld, TurnState
from .view import SeatView

__all__ = [
    "Action", "Answer", "Ask", "CanastaError", "Decline", "Discard", "Draw", "Event", "FormatError",
    "Game", "Group", "HandLog", "HandResult", "IllegalAction", "LegalActions", "Meld", "PRESETS", "ReplayError",
    "Resampler", "SeatView", "Settings", "SettingsError", "SideScore", "State", "TableMeld",
    "TakePile", "TurnState", "action_from_json", "action_from_text", "action_to_json", "action_to_text",
    "fixed_state", "opening_minimum", "position_to_json", "replay_record", "resample", "state_from_position",
]
__version__ = "0.1.0"
