"""Replays for people: a match's hands as steps, each the table as one seat saw it.

A step is the hand after its deal (index 0) or after its ``index``-th action, drawn from the
seat's view (:meth:`canasta.State.view`), so a replay shows a seat nothing its view would not;
``reveal`` adds every seat's hand, for replays that may show them all.

>>> from canasta import Game, Settings, action_from_text
>>> g = Game(Settings.preset("two-player-quick"), seed=7)
>>> g.apply(action_from_text("draw"))
>>> drawer = g.hands[0].dealer ^ 1                    # the dealer's left plays first
>>> mine, theirs = hand_steps(g, 1, seat=drawer), hand_steps(g, 1, seat=drawer ^ 1)
>>> len(mine), mine[1]["text"], len(mine[1]["event"]["cards"]), theirs[1]["event"]["cards"]
(2, 'draw', 2, [])
"""

from __future__ import annotations

from typing import Any

from .actions import Action, action_to_json, action_to_text
from .cards import card_str, sort_key
from .errors import CanastaError
from .game import Game
from .hand import Event
from .state import State
from .view import event_json

__all__ = ["REPLAY_FORMAT", "hand_steps", "replay_summary"]

REPLAY_FORMAT = "canasta-replay"
REPLAY_VERSION = 1

#: view fields a step leaves out: the same in every step (settings), or what a replay does
#: not draw (the legal actions, the history: the steps are the history)
_DROPPED = ("format", "version", "settings", "legal", "history")


def replay_summary(game: Game) -> dict[str, Any]:
    """The match a replay is of: settings, each hand's dealer, length and result (None: unfinished)."""
    return {
        "format": REPLAY_FORMAT,
        "version": REPLAY_VERSION,
        "settings": game.settings.to_json(),
        "players": game.settings.players,
        "hands": [
            {
                "number": h.number,
                "dealer": h.dealer,
                "actions": len(h.actions),
                "result": None if h.result is None else h.result.to_json(),
            }
            for h in game.hands
        ],
        "scores": list(game.scores),
        "over": game.is_over,
        "winners": list(game.winners),
    }


def _event(e: Event, seat: int, reveal: bool) -> dict[str, Any]:
    shown = e if reveal or e.seat == seat or not e.drawn else e._replace(drawn=())
    return event_json(shown)


def _step(st: State, index: int, action: Action | None, seat: int, reveal: bool) -> dict[str, Any]:
    view = st.view(seat).to_json()
    for key in _DROPPED:
        view.pop(key, None)
    if reveal:
        view["hands"] = [[card_str(c) for c in sorted(h, key=sort_key)] for h in st.hands]
    if action is None:  # the deal: its red-three exposures
        events = [_event(e, seat, reveal) for e in st.history]
        actor = None
    else:
        events = [_event(st.history[-1], seat, reveal)]
        actor = st.history[-1].seat
    return {
        "index": index,
        "seat": actor,
        "action": None if action is None else action_to_json(action),
        "text": None if action is None else action_to_text(action),
        "event": events[-1] if events else None,
        "events": events,
        "view": view,
    }


def hand_steps(game: Game, number: int, *, seat: int, reveal: bool = False) -> list[dict[str, Any]]:
    """Hand ``number`` of ``game`` step by step, as ``seat`` saw it (``reveal``: every hand shown)."""
    if not 1 <= number <= len(game.hands):
        raise CanastaError("no_such_hand", f"the match has no hand {number}")
    if not 0 <= seat < game.settings.players:
        raise CanastaError("bad_seat", f"seat is 0..{game.settings.players - 1}")
    before = [0] * game.settings.team_count
    for h in game.hands[: number - 1]:
        assert h.result is not None
        for team, delta in enumerate(h.result.team_deltas):
            before[team] += delta
    log = game.hands[number - 1]
    st = State.deal(game.settings, list(log.deck), dealer=log.dealer, hand_number=number, scores=tuple(before))
    steps = [_step(st, 0, None, seat, reveal)]
    for i, action in enumerate(log.actions, 1):
        st.apply(action)
        steps.append(_step(st, i, action, seat, reveal))
    return steps
