"""Online tables: people at their own seats, a move timer, auto-play, presence, quick chat.

A mixin of :class:`canasta.server.table.Table`. An online table's seats belong to accounts:
the server maps a socket's session to its seat and never takes a seat number on trust. The
online state lives in ``options["online"]`` and is committed with every change, so the move
deadline (a wall-clock time) survives a restart. It is replaced, never changed in place, so a
failed save can put the previous one back.

What each seat may be: a person playing (``auto`` None), a person's seat played by the
computer for now (``auto`` "timeout": they let a decision time out; "away": they were
disconnected past the grace period), or a computer for good (``auto`` "left", or a computer
seat the host of a private room added).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..actions import DRAW, NO, Action, Discard
from ..game import Game
from .conn import Conn
from .db import StatsDelta, stats_key
from .limits import KeyedLimiter
from .mailbox import Mailbox
from .protocol import TableError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ..view import SeatView
    from .config import ServerConfig
    from .players import ComputerPlayer, SeatInfo

#: the quick-chat phrases (the client words each in its reader's language); no free text
CHAT_PHRASES = ("hello", "good_luck", "nice_canasta", "thanks", "oops", "well_played", "hurry", "gg")

#: the commands of an online table; the others (undo, suggest, pause, ...) are offline only
ONLINE_COMMANDS = frozenset(
    {"action", "validate", "sync", "back", "leave", "chat", "next_hand", "rematch"}
)
#: commands only online tables know
ONLINE_ONLY = frozenset({"back", "leave", "chat", "rematch"})

AUTO_REASONS = ("timeout", "away", "left")


@dataclass
class _Deadline:
    seq: int


@dataclass
class _Grace:
    account: str


@dataclass
class _Unattended:
    """None of the match's players has been connected for ``unattended_seconds``."""


@dataclass
class _Rated:
    """What a finished quick match did to its players' ratings, per seat: ``{"kind",
    "before", "after"}`` as players see ratings, or None (a seat with no rating: an account
    deleted before the match ended)."""

    changes: list[dict[str, Any] | None]

#: the statuses of a table whose match is played no more
ENDED = ("match_over", "abandoned")


def new_online_state(
    accounts: list[str | None], *, public: bool, room: str | None = None, unrated: str | None = None
) -> dict[str, Any]:
    """The online part of a new table's options (``None`` accounts: computer seats).
    ``unrated``: why a quick match changes no rating all the same (``"shared_network"``: two
    of its people joined from one client address), or None."""
    n = len(accounts)
    state: dict[str, Any] = {
        "accounts": list(accounts),
        "auto": [None] * n,
        "deadline": None,
        "decision": None,
        "ready": [False] * n,
        "rematch": [False] * n,
        "public": public,
        "room": room,
        "next": None,
    }
    if unrated is not None:
        state["unrated"] = unrated
    return state


class Online:
    """The online behaviour of a table (see the module docstring)."""

    id: str
    mode: str
    game: Game
    seq: int
    options: dict[str, Any]
    seats: list[SeatInfo]
    conns: set[Conn]
    config: ServerConfig
    queue: Mailbox[Any]
    _players: dict[int, ComputerPlayer]
    _extra_deltas: list[StatsDelta]
    #: set by the table set: makes the rematch table and returns its id
    on_rematch: Callable[[Any], Awaitable[str]] | None
    #: set by the table set: told after each change (the lobby's live list)
    on_change: Callable[[Any], None] | None
    chat_limiter: KeyedLimiter | None
    _deadline_handle: asyncio.TimerHandle | None
    _grace_handles: dict[str, asyncio.TimerHandle]
    _unattended_handle: asyncio.TimerHandle | None

    if TYPE_CHECKING:

        async def _changed(self, change: str, **entry: Any) -> None: ...
        def _player(self, seat: int) -> ComputerPlayer: ...
        async def _choose(self, seat: int, view: SeatView) -> Action: ...
        def _replying(self, conn: Conn, message: dict[str, Any]) -> dict[str, Any]: ...
        def state_message(self, conn: Conn | None, change: str) -> dict[str, Any]: ...
        def _send_states(self, change: str) -> None: ...
        def _report_match_over(self) -> None: ...

    # ------------------------------------------------------------------ who sits where

    @property
    def online(self) -> dict[str, Any]:
        state: dict[str, Any] = self.options["online"]
        return state

    def seat_of(self, account: str | None) -> int | None:
        """The seat ``account`` plays at this online table (None: none, or they left)."""
        if account is None or self.mode != "online":
            return None
        on = self.online
        for seat, acc in enumerate(on["accounts"]):
            if acc == account and on["auto"][seat] != "left":
                return seat
        return None

    @property
    def abandoned(self) -> bool:
        """An online match nobody plays any more (its players all left, or none of them was
        connected for ``unattended_seconds``): no move is made in it again."""
        return self.mode == "online" and bool(self.options["online"].get("abandoned"))

    @property
    def rated(self) -> bool:
        """Whether this match changes its players' ratings when it ends: a quick match (public,
        not a room's) whose every seat was a person when it started, two or four of them, none
        two of them from one network (``unrated``)."""
        if self.mode != "online":
            return False
        on = self.online
        accounts = on["accounts"]
        return (
            bool(on["public"])
            and on["room"] is None
            and not on.get("unrated")
            and len(accounts) in (2, 4)
            and all(a is not None for a in accounts)
        )

    def show_ratings(self, changes: list[dict[str, Any] | None]) -> None:
        """Show the players what the finished match did to their ratings (saved with the
        table, so a page opened later shows them too)."""
        self.queue.put_nowait(_Rated(changes))

    async def _on_rated(self, item: _Rated) -> None:
        if self.online.get("ratings") == item.changes:
            return
        self._update_online(ratings=item.changes)
        await self._changed("rated")

    def bot_plays(self, seat: int) -> bool:
        """Whether the computer makes this seat's moves now."""
        if self.seats[seat].kind == "computer":
            return True
        return self.mode == "online" and self.online["auto"][seat] is not None

    def _update_online(self, **changes: Any) -> None:
        """A new online state with ``changes`` (lists copied: the saved one stays intact)."""
        on = {k: list(v) if isinstance(v, list) else v for k, v in self.online.items()}
        on.update(changes)
        self.options = {**self.options, "online": on}

    def _set_seat(self, key: str, seat: int, value: Any) -> None:
        values = list(self.online[key])
        values[seat] = value
        self._update_online(**{key: values})

    def connected(self) -> list[bool]:
        accounts = {c.account for c in self.conns if c.owner}
        return [acc is not None and acc in accounts for acc in self.online["accounts"]]

    def _active_humans(self) -> list[int]:
        """Seats of people playing now: present and not played by the computer."""
        connected = self.connected()
        return [s for s in range(len(self.seats)) if not self.bot_plays(s) and connected[s]]

    def online_info(self, conn: Conn | None) -> dict[str, Any]:
        on = self.online
        deadline = on["deadline"]
        return {
            "deadline_ms": None if deadline is None else int(deadline * 1000),
            "now_ms": int(time.time() * 1000),
            "move_seconds": self.config.move_seconds,
            "auto": list(on["auto"]),
            "connected": self.connected(),
            "ready": list(on["ready"]),
            "rematch": list(on["rematch"]),
            "spectators": sum(1 for c in self.conns if not c.owner),
            "public": bool(on["public"]),
            "room": on["room"],
            "next": on["next"],
            "rated": self.rated,
            "unrated": on.get("unrated"),
            "ratings": on.get("ratings"),
        }

    def summary(self) -> dict[str, Any]:
        """What the lobby knows of this match: the live list's row, and who sits here (the
        accounts never leave the server)."""
        g = self.game
        on = self.online
        return {
            "table": self.id,
            "public": bool(on["public"]),
            "status": "match_over" if g.is_over else "abandoned" if self.abandoned else "playing",
            "accounts": [
                acc if on["auto"][s] != "left" else None for s, acc in enumerate(on["accounts"])
            ],
            "preset": g.settings.name,
            "players": len(self.seats),
            "target": g.settings.target,
            "names": [s.name for s in self.seats],
            "teams": list(g.state.team_of),
            "scores": list(g.scores),
            "hand_number": g.hand_number,
            "spectators": sum(1 for c in self.conns if not c.owner),
        }

    # ------------------------------------------------------------------ deadlines

    def _prepare_online(self) -> None:
        """Before a change is saved: the decision now pending and its deadline."""
        if self.mode != "online":
            return
        on = self.online
        st = self.game.state
        now = time.time()
        if self.game.is_over or on.get("abandoned"):
            self._update_online(deadline=None, decision=None)
            return
        if st.is_over:
            key: list[Any] = ["break", self.game.hand_number]
            if on["decision"] != key:
                end = now + self.config.hand_break_seconds
                self._update_online(decision=key, deadline=end, ready=[False] * len(self.seats))
            return
        seat = st.turn
        key = [self.game.hand_number, seat, st.phase]
        if self.bot_plays(seat):
            self._update_online(decision=key, deadline=None)
        elif on["decision"] != key or on["deadline"] is None:
            self._update_online(decision=key, deadline=now + self.config.move_seconds)

    def _arm_deadline(self) -> None:
        """After a commit (and at start): wake the worker when the pending deadline passes."""
        if self._deadline_handle is not None:
            self._deadline_handle.cancel()
            self._deadline_handle = None
        if self.mode != "online":
            return
        deadline = self.online["deadline"]
        if deadline is None:
            return
        delay = max(0.0, deadline - time.time())
        self._deadline_handle = asyncio.get_running_loop().call_later(
            delay, self.queue.put_nowait, _Deadline(self.seq)
        )

    async def _on_deadline(self, item: _Deadline) -> None:
        """A decision (or the break between hands) timed out: the server acts."""
        if item.seq != self.seq or self.mode != "online":
            return  # a newer change armed a newer deadline
        deadline = self.online["deadline"]
        if deadline is None:
            return
        if time.time() < deadline - 0.01:  # woken early: wait again
            self._arm_deadline()
            return
        st = self.game.state
        if self.game.is_over:
            return
        if st.is_over:
            await self._deal_next()
            return
        seat = st.turn
        if self.bot_plays(seat):
            return
        # R15 and seed 003: the server draws from the stock and discards for the player (or
        # answers "no" to "May I go out?"), then the computer plays the seat until they are back
        self._set_seat("auto", seat, "timeout")
        view = st.view(seat)
        first: Action
        if st.phase == "ask":
            first = NO if NO in view.legal else view.legal[0]
        elif st.phase == "draw":
            first = DRAW if DRAW in view.legal else await self._bot_choice(seat)
        else:
            first = await self._timeout_discard(seat)
        self.game.apply(first)
        await self._changed("action", timeout=seat)
        st = self.game.state
        if st.phase == "play" and st.turn == seat and not st.is_over:
            self.game.apply(await self._timeout_discard(seat))
            await self._changed("action", timeout=seat)

    async def _bot_choice(self, seat: int) -> Action:
        return await self._choose(seat, self.game.state.view(seat))

    async def _timeout_discard(self, seat: int) -> Action:
        """The discard the computer would make for the seat (its first legal discard when
        the computer would rather meld first)."""
        view = self.game.state.view(seat)
        choice = await self._bot_choice(seat)
        if isinstance(choice, Discard):
            return choice
        discards = [a for a in view.legal if isinstance(a, Discard)]
        return discards[0] if discards else choice

    async def _deal_next(self) -> None:
        self.game.next_hand()
        await self._changed("next_hand")

    # ------------------------------------------------------------------ presence

    def _joined_online(self, conn: Conn) -> bool:
        """A socket attached; True when its seat comes back from "away" (a change to save)."""
        seat = self.seat_of(conn.account) if conn.owner else None
        if seat is None or conn.account is None:
            return False
        handle = self._grace_handles.pop(conn.account, None)
        if handle is not None:
            handle.cancel()
        if self.abandoned:  # nothing to come back to: the seat stays as it was
            return False
        self._watch_unattended()
        if self.online["auto"][seat] == "away":
            self._set_seat("auto", seat, None)
            return True
        return False

    def _left_online(self, conn: Conn) -> None:
        """A socket left: its player's last one starts the grace period."""
        account = conn.account
        if account is None or self.seat_of(account) is None:
            return
        if any(c.account == account and c.owner for c in self.conns):
            return
        self._start_grace(account)
        self._watch_unattended()

    def _everyone_left(self) -> bool:
        """Every seat is the computer's: each person left (or none ever sat)."""
        return all(s.kind == "computer" for s in self.seats)

    def _players_here(self) -> bool:
        """Whether a player of this match (seated, not left) has a socket at the table."""
        return any(c.owner and self.seat_of(c.account) is not None for c in self.conns)

    def _watch_unattended(self) -> None:
        """After a player's socket came or went (and at start): with none of the players
        connected, the match is abandoned unless one comes back within ``unattended_seconds``
        (the computer plays their seats meanwhile, as it does for any player away)."""
        if self.mode != "online":
            return
        if self._players_here() or self.game.is_over or self.abandoned:
            if self._unattended_handle is not None:
                self._unattended_handle.cancel()
                self._unattended_handle = None
        elif self._unattended_handle is None:
            self._unattended_handle = asyncio.get_running_loop().call_later(
                self.config.unattended_seconds, self.queue.put_nowait, _Unattended()
            )

    async def _on_unattended(self) -> None:
        if self._everyone_left():
            await self._abandon("left")
        elif not self._players_here():
            await self._abandon("unattended")

    async def _abandon(self, reason: str) -> None:
        """Nobody plays this match any more (``reason``: "left", every player left it, or
        "unattended"): it stops where it is and counts as lost for the players who had not
        left (leaving counted already); it is not rated, and its table may leave memory."""
        if self.game.is_over or self.abandoned:
            return
        on = self.online
        for seat, account in enumerate(on["accounts"]):
            if account is not None and on["auto"][seat] != "left":
                self._extra_deltas.append(
                    StatsDelta(stats_key(account, "online"), finished=True, won=False)
                )
        self._update_online(abandoned=reason, deadline=None, decision=None)
        await self._changed("abandon", reason=reason)  # (a failed save puts everything back)
        for handle in self._grace_handles.values():
            handle.cancel()
        self._grace_handles.clear()

    def _start_grace(self, account: str) -> None:
        old = self._grace_handles.pop(account, None)
        if old is not None:
            old.cancel()
        self._grace_handles[account] = asyncio.get_running_loop().call_later(
            self.config.grace_seconds, self.queue.put_nowait, _Grace(account)
        )

    def start_online(self) -> None:
        """At start (a new table or a restart): every seated player not yet here gets the
        grace period, and the pending deadline is armed."""
        if self.mode != "online":
            return
        for seat, account in enumerate(self.online["accounts"]):
            if account is not None and not self.bot_plays(seat):
                self._start_grace(account)
        self._arm_deadline()
        self._watch_unattended()
        if self.game.is_over and self.rated and self.online.get("ratings") is None:
            # a finished match whose ratings were never shown (the process stopped first, or
            # could not save them): recorded now if need be, and shown
            self._report_match_over()

    def _resume_online(self) -> None:
        """Storage is back: a deadline or grace period that passed while nothing could be
        saved (its wake-up was skipped) takes effect now."""
        if self.mode != "online":
            return
        self._arm_deadline()
        now = asyncio.get_running_loop().time()
        for account, handle in list(self._grace_handles.items()):
            if handle.when() <= now:
                self.queue.put_nowait(_Grace(account))
        if self._everyone_left() and not self.abandoned and not self.game.is_over:
            self.queue.put_nowait(_Unattended())  # the last player left while nothing could be saved
        else:
            self._watch_unattended()  # a count that ended (or failed) meanwhile starts again

    async def _on_grace(self, item: _Grace) -> None:
        self._grace_handles.pop(item.account, None)
        if self.abandoned:
            return
        seat = self.seat_of(item.account)
        if seat is None or any(c.account == item.account and c.owner for c in self.conns):
            return
        if self.online["auto"][seat] is None and not self.game.is_over:
            self._set_seat("auto", seat, "away")
            await self._changed("away", seat=seat)

    def broadcast_presence(self) -> None:
        """Tell every socket who is connected (nothing is saved: presence is not state)."""
        self._send_states("presence")
        if self.on_change is not None:
            self.on_change(self)

    # ------------------------------------------------------------------ commands

    def _seated(self, conn: Conn) -> int:
        seat = self.seat_of(conn.account) if conn.owner else None
        if seat is None:
            raise TableError("not_seated", "you are watching this table: only its players act")
        return seat

    async def _on_back(self, conn: Conn, msg: dict[str, Any]) -> None:
        seat = self._seated(conn)
        if self.online["auto"][seat] is None:
            raise TableError("not_auto", "your seat is not on auto-play")
        self._set_seat("auto", seat, None)
        await self._changed("back", seat=seat)

    async def _on_leave(self, conn: Conn, msg: dict[str, Any]) -> None:
        seat = self._seated(conn)
        account = conn.account
        assert account is not None
        seats = list(self.seats)
        info = seats[seat]
        seats[seat] = type(info)(info.name, "computer", "normal", info.role)
        self.seats = seats
        self.options = {**self.options, "seats": [s.to_json() for s in seats]}
        self._set_seat("auto", seat, "left")
        self._set_seat("rematch", seat, False)
        if not self.game.is_over:  # the match counts as lost for the one who left
            self._extra_deltas.append(
                StatsDelta(stats_key(account, "online"), finished=True, won=False)
            )
        handle = self._grace_handles.pop(account, None)
        if handle is not None:
            handle.cancel()
        for c in self.conns:
            if c.account == account:
                c.owner = False
        await self._changed("leave", seat=seat)
        if self._everyone_left():  # the last player left
            try:
                await self._abandon("left")
            except TableError:  # the leave is saved; the abandon is tried again (_resume_online)
                pass
        else:
            self._watch_unattended()

    async def _on_chat(self, conn: Conn, msg: dict[str, Any]) -> None:
        seat = self._seated(conn)
        phrase = msg.get("phrase")
        if phrase not in CHAT_PHRASES:
            raise TableError("bad_phrase", f"phrase is one of {', '.join(CHAT_PHRASES)}")
        assert conn.account is not None
        if self.chat_limiter is not None and not self.chat_limiter.allow(conn.account):
            raise TableError(
                "rate_limited",
                f"at most {self.config.chat_per_minute} chat messages a minute",
            )
        out = {"type": "chat", "seat": seat, "phrase": phrase, "at_ms": int(time.time() * 1000)}
        for c in self.conns:
            c.send(self._replying(c, dict(out)))

    async def _online_next_hand(self, conn: Conn) -> None:
        seat = self._seated(conn)
        if not self.game.state.is_over:
            raise TableError("hand_in_progress", "the current hand is not over")
        if self.game.is_over:
            raise TableError("match_over", "the match is over: ask for a rematch")
        if self.online["ready"][seat]:  # said already: nothing to save or send to the others
            conn.send(self._replying(conn, self.state_message(conn, "sync")))
            return
        self._set_seat("ready", seat, True)
        ready = self.online["ready"]
        if all(ready[s] for s in self._active_humans()):
            await self._deal_next()
        else:
            await self._changed("ready", seat=seat)

    async def _on_rematch(self, conn: Conn, msg: dict[str, Any]) -> None:
        seat = self._seated(conn)
        if not self.game.is_over:
            raise TableError("match_in_progress", "the match is not over")
        if self.online["next"] is not None:
            raise TableError("rematch_started", "the rematch has started")
        if self.online["rematch"][seat]:  # asked already: nothing to save or send to the others
            conn.send(self._replying(conn, self.state_message(conn, "sync")))
            return
        on = self.online
        humans = [s for s, acc in enumerate(on["accounts"]) if acc and on["auto"][s] != "left"]
        if all(on["rematch"][s] or s == seat for s in humans) and self.on_rematch is not None:
            # made first: refused (a player is in another match) with nothing changed here
            following = await self.on_rematch(self)
            self._set_seat("rematch", seat, True)
            self._update_online(next=following)
        else:
            self._set_seat("rematch", seat, True)
        await self._changed("rematch", seat=seat)

    # ------------------------------------------------------------------ statistics

    def _online_deltas(self) -> list[tuple[str, int]]:
        """(statistics key, seat) of the people whose results this match counts."""
        on = self.online
        return [
            (stats_key(acc, "online"), seat)
            for seat, acc in enumerate(on["accounts"])
            if acc is not None and on["auto"][seat] != "left"
        ]
