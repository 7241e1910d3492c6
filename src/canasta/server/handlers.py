"""The commands a client may send a table (``docs/protocol.md``), one method each.

A mixin of :class:`canasta.server.table.Table`; :data:`COMMANDS` names them. Every command runs
in the table's worker, one at a time; each checks who may send it (see ``seating``), asks the
core, and commits through ``Table._changed``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ..actions import Action, Meld, action_to_json, action_to_text
from ..bots.explain import advise, suggestion_kind
from ..cards import card_str
from ..errors import IllegalAction
from ..fairness import FairGame, game_from_record
from ..game import Game
from ..state import State
from .conn import Conn
from .protocol import MAX_DELAY_MS, TableError, action_of, minimum_numbers

if TYPE_CHECKING:
    from .limits import TokenBucket

#: message type -> the method that handles it
COMMANDS = {
    "action": "_on_action",
    "validate": "_on_validate",
    "suggest": "_on_suggest",
    "undo": "_on_undo",
    "pause": "_on_pause",
    "resume": "_on_resume",
    "step": "_on_step",
    "reveal": "_on_reveal",
    "next_hand": "_on_next_hand",
    "new_match": "_on_new_match",
    "settings": "_on_settings",
    "sync": "_on_sync",
    "back": "_on_back",
    "leave": "_on_leave",
    "chat": "_on_chat",
    "rematch": "_on_rematch",
}


class Handlers:
    """The table's commands (mixed into the table, whose state they read and change)."""

    game: Game
    version: int
    paused: bool
    handoff: int | None
    viewer: int | None
    mode: str
    options: dict[str, Any]
    hands_counted: int
    match_counted: bool
    _suggestion: tuple[int, dict[str, Any]] | None
    _settings_bucket: TokenBucket
    _step_bucket: TokenBucket
    _pause_bucket: TokenBucket
    seq: int
    _players: dict[int, Any]
    _seeds: dict[int, int]
    _quick_players: dict[int, Any]
    _timer: asyncio.TimerHandle | None
    _replying: Any
    _online_next_hand: Any

    async def _on_action(self, conn: Conn, msg: dict[str, Any]) -> None:
        self._check_version(msg)
        self._acting_seat(conn, msg)
        action = action_of(msg)
        try:  # the core checks it once, as it applies it (nothing changes when it is illegal)
            self.game.apply(action)
        except IllegalAction as e:
            raise TableError.illegal(e) from None
        await self._changed("action")

    async def _on_validate(self, conn: Conn, msg: dict[str, Any]) -> None:
        self._check_version(msg)
        seat = self._acting_seat(conn, msg)
        action = action_of(msg)
        st = self.game.state
        error = st.check(action)
        side = st.side_of[seat]
        minimum = None if st.opened(side) else st.opening_minimum(seat)
        count = st.opening_count(action) if minimum is not None else None
        if error is not None:
            stated_count, stated = minimum_numbers(error)
            if stated_count is not None:
                count = stated_count
            minimum = stated if stated is not None else minimum
        reply: dict[str, Any] = {
            "type": "validation",
            "version": self.version,
            "action": action_to_json(action),
            "legal": error is None,
            "code": None if error is None else error.code,
            "section": None if error is None else error.section,
            "message": "legal" if error is None else error.message,
            "details": {} if error is None else dict(error.details),
            "count": count,
            "minimum": minimum,
            # R10.1: the discard that, sent with these melds, goes out (the client holds no rule)
            "finishing": _finishing(st, action),
        }
        if action.kind == "take":
            # why no take at all is possible (None when one is): the words for a tap on a
            # pile that cannot be taken, whatever was staged
            refusal = st.take_refusal()
            reply["take"] = None if refusal is None else refusal.to_json()
        conn.send(self._replying(conn, reply))

    async def _on_suggest(self, conn: Conn, msg: dict[str, Any]) -> None:
        self._check_version(msg)
        self._acting_seat(conn, msg)
        if self._suggestion is None or self._suggestion[0] != self.version:
            if not conn.suggest_bucket.take():
                raise TableError("rate_limited", "suggestions are limited to one a second")
            # a search can take tens of milliseconds: off the event loop (the worker waits
            # for it, so nothing changes the game meanwhile)
            self._suggestion = (self.version, await asyncio.to_thread(self._suggest_now))
        conn.send(self._replying(conn, dict(self._suggestion[1])))

    def _suggest_now(self) -> dict[str, Any]:
        """The computer's judgement (Normal, from the seat's view only) with its reason."""
        st = self.game.state
        if st.phase == "over":
            return {
                "type": "suggestion", "version": self.version, "kind": "none", "action": None,
                "message": "no legal suggestion", "reason": None,
            }
        advice = advise(st.view(st.turn))
        action = advice.action
        return {
            "type": "suggestion",
            "version": self.version,
            "kind": suggestion_kind(advice),
            "action": action_to_json(action),
            "message": action_to_text(action),
            "reason": advice.reason.to_json(),
        }

    async def _on_undo(self, conn: Conn, msg: dict[str, Any]) -> None:
        self._check_version(msg)
        seat = self._controlled_seat(conn, msg)
        if not self._undoable(seat):
            raise TableError(
                "undo_unavailable",
                "nothing to undo: only your melds of this turn (and, against the computer, "
                "your discard until the next player acts) can be taken back",
            )
        record = self.game.to_record()
        record["hands"][-1]["actions"].pop()
        self.game = game_from_record(record)
        await self._changed("undo")

    async def _on_pause(self, conn: Conn, msg: dict[str, Any]) -> None:
        self._check_owner(conn)
        if not self.paused:
            self._take_pause()
            self.paused = True
            if self._timer is not None:
                self._timer.cancel()
            await self._changed("pause")

    async def _on_resume(self, conn: Conn, msg: dict[str, Any]) -> None:
        self._check_owner(conn)
        if self.paused:
            self._take_pause()
            self.paused = False
            await self._changed("resume")

    def _take_pause(self) -> None:
        """A pause or resume is a committed change sent to every socket: a bounded number."""
        if not self._pause_bucket.take():
            raise TableError("rate_limited", "pause and resume too often: try again shortly")

    async def _on_step(self, conn: Conn, msg: dict[str, Any]) -> None:
        """Continue CPU: while the table is paused, the computer seat to act makes one move."""
        self._check_owner(conn)
        self._check_version(msg)
        if self.mode != "computer":
            raise TableError("wrong_mode", "step is only for tables against the computer")
        st = self.game.state
        if not self.paused:
            raise TableError("not_paused", "the computer plays on its own: pause to step")
        if st.is_over:
            raise TableError("hand_over", "the hand is over")
        if not self.bot_plays(st.turn):
            raise TableError("not_computer_turn", "it is not a computer seat's turn")
        if not self._step_bucket.take():
            raise TableError("rate_limited", "one computer move at a time: try again shortly")
        await self._bot_turn(self.seq, step=True)

    async def _on_reveal(self, conn: Conn, msg: dict[str, Any]) -> None:
        self._check_owner(conn)
        if self.mode != "local":
            raise TableError("wrong_mode", "reveal is only for pass-and-play tables")
        seat = msg.get("seat")
        if type(seat) is not int:  # not 0.0 nor true: the log keeps what is said here
            raise TableError("bad_message", "seat is an integer")
        if self.handoff is None:
            raise TableError("nothing_to_reveal", "no handoff is pending")
        if seat != self.handoff:
            raise TableError("wrong_seat", f"it is player {self.handoff + 1}'s turn to reveal")
        self.viewer = self.handoff
        self.handoff = None
        await self._changed("reveal", seat=seat)

    async def _on_next_hand(self, conn: Conn, msg: dict[str, Any]) -> None:
        self._check_owner(conn)
        if self.mode == "online":  # each player asks; the hand is dealt when all have
            await self._online_next_hand(conn)
            return
        if not self.game.state.is_over:
            raise TableError("hand_in_progress", "the current hand is not over")
        if self.game.is_over:
            raise TableError("match_over", "the match is over: start a new match")
        self.game.next_hand()
        self._after_deal()
        await self._changed("next_hand")

    async def _on_new_match(self, conn: Conn, msg: dict[str, Any]) -> None:
        self._check_owner(conn)
        if not self.game.is_over:
            raise TableError("match_in_progress", "the match is not over")
        finished = self.game.to_record()  # kept in the log: the match stays replayable
        self.game = FairGame(self.game.settings)
        self._players.clear()
        self._quick_players.clear()
        self._seeds.clear()
        self.hands_counted = 0
        self.match_counted = False
        self._after_deal()
        await self._changed("new_match", finished=finished)

    async def _on_settings(self, conn: Conn, msg: dict[str, Any]) -> None:
        self._check_owner(conn)
        delay = msg.get("delay_ms")
        if type(delay) is not int or not 0 <= delay <= MAX_DELAY_MS:
            raise TableError("bad_message", f"delay_ms must be an integer 0..{MAX_DELAY_MS}")
        if delay != self.options.get("delay_ms"):  # clients send their speed on every connection
            if not self._settings_bucket.take():
                raise TableError("rate_limited", "settings change too often: try again shortly")
            self.options = {**self.options, "delay_ms": delay}
            await self._changed("settings", delay_ms=delay)

    async def _on_sync(self, conn: Conn, msg: dict[str, Any]) -> None:
        conn.history_mark = None  # a client asking again is sent the whole history
        conn.state_held = None  # and the whole state
        conn.send(self._replying(conn, self.state_message(conn, "sync")))


def _finishing(st: State, action: Action) -> str | None:
    """The card whose discard completes ``action`` into going out, in notation, or None."""
    if not isinstance(action, Meld):
        return None
    card = st.finishing_discard(action._replace(discard=None))
    return None if card is None else card_str(card)
