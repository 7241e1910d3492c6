"""Computer players for every preset, deciding from a seat's view only.

>>> from canasta import Game, Settings
>>> from canasta.bots import make_player
>>> game = Game(Settings.preset("classic"), seed=3)
>>> bot = make_player("normal", seed=1)
>>> action = bot.choose(game.state.view(game.state.turn))
>>> game.state.check(action) is None
True
"""

from .players import (
    DIFFICULTIES,
    LEVELS,
    PARTNER_LEVEL,
    HeuristicPlayer,
    Player,
    RandomPlayer,
    computer_seats,
    make_player,
    seat_levels,
)

__all__ = [
    "DIFFICULTIES", "LEVELS", "PARTNER_LEVEL", "HeuristicPlayer", "Player", "RandomPlayer", "computer_seats",
    "make_player", "seat_levels",
]
