"""Hands of Normal computer players, decision by decision (for tests that check every one)."""

from __future__ import annotations

from collections.abc import Iterator

from canasta import Game, SeatView, Settings, State
from canasta.bots import make_player


def normal_decisions(deals: list[tuple[str, int]]) -> Iterator[tuple[State, SeatView]]:
    """Each decision of one hand per ``(preset, seed)``, all seats Normal (classic asks its
    partner): the state and the view of the seat to act, before that seat's choice is played."""
    for preset, seed in deals:
        rules = {"ask_partner": True} if preset == "classic" else {}
        game = Game(Settings.preset(preset, target="one_hand", **rules), seed=seed)
        bots = [make_player("normal", seed=s) for s in range(game.settings.players)]
        while not game.state.is_over:
            st = game.state
            view = st.view(st.turn)
            yield st, view
            game.apply(bots[st.turn].choose(view))
