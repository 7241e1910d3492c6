"""One table: a match, its seats and the worker that handles the table's messages in order.

The commands are in ``handlers`` and the seat checks in ``seating`` (mixins of :class:`Table`);
this module holds the table's state, its worker, its storage and its computer seats.

Every message for a table (a client's message, a socket joining or leaving, a computer seat's
turn) goes through the table's queue, so one asyncio task changes the table at a time.  The
rules are the core's: the table asks the core what is legal and applies actions through it.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hashlib
import logging
import time
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..actions import Action, action_from_text, action_to_text
from ..bots.search import DEFAULT_TIME
from ..bots.worker import NEXT_HAND, deck_check
from ..errors import IllegalAction
from ..fairness import FairGame, fairness_info, game_from_record
from ..game import Game
from ..hand import Event
from ..rules import Settings
from ..view import SeatView, event_json
from .config import ServerConfig
from .conn import CLOSE_RELOAD, Conn
from .db import StatsDelta, Store, TableRow, VersionConflict
from .encoding import Raw, dumps, dumps_kept, with_request
from .handlers import COMMANDS, Handlers
from .limits import KeyedLimiter, TokenBucket
from .mailbox import Mailbox
from .metrics import Metrics
from .online import (
    ONLINE_COMMANDS,
    ONLINE_ONLY,
    Online,
    _Deadline,
    _Grace,
    _Rated,
    _Unattended,
    new_online_state,
)
from .players import ComputerPlayer, SeatInfo, computer_seats, local_seats, make_computer
from .protocol import TableError, error_message, parse_message, request_of
from .seating import Seating
from .thinkers import Thinkers

log = logging.getLogger("canasta.server")

MODES = ("computer", "local")

#: the name a deleted account's seats take (docs/protocol.md, "Deleting an account")
DELETED_NAME = "Deleted player"

#: changes that leave the game as it was: they do not advance the version moves quote
COSMETIC = frozenset({"settings", "back", "away", "leave", "ready", "rematch", "rename", "rated"})

#: computer levels whose moves are chosen on the event loop (bench/bots.py: p95 under 0.5 ms)
_INLINE_LEVELS = frozenset({"random", "beginner", "normal"})

#: what a searching computer seat (Expert) may take beyond its pace delay, in a worker: its
#: own budget
SEARCH_SECONDS = DEFAULT_TIME

#: how much longer than its pace (and its search) a table waits for its worker's move before
#: choosing without it
WORKER_MARGIN = 2.0

#: moves a worker plays on for after the one asked for, while quick computer seats are to move
#: (the table then asks once for the computer seats' run, not once a move)
PLAN_AHEAD = 16

#: a new record snapshot at least this often (actions), besides every finished hand
SNAPSHOT_EVERY = 500

#: the table's state saved with each change (columns of these names) and put back by a rollback,
#: besides its game version and options
_STATE_FIELDS = ("paused", "handoff", "viewer", "hands_counted", "match_counted")


#: who is sent one state: the seat it sees, whether it may undo, whether it only watches, the
#: history it holds
_Audience = tuple[int | None, bool, bool, tuple[int, int] | None]


def state_patch(
    held: tuple[int, SeatView, dict[str, Any]], view: SeatView, table: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The view's and the table's entries that differ from the ``held`` state's (the view's
    built from the fields that changed only: :meth:`SeatView.json_changes`). A client
    rebuilds the state by putting these entries over the ones it holds."""
    _, old_view, old_table = held
    if table is old_table:  # the table info given again as it was (see ``Table._info``)
        return view.json_changes(old_view), {}
    return view.json_changes(old_view), {
        k: v for k, v in table.items() if (old := old_table[k]) is not v and old != v
    }


@dataclass
class _State:
    """One state of one audience: its message without the view's entries, the view, and the
    view's history entries (the new events, and where they start)."""

    head: dict[str, Any]
    view: SeatView
    history: dict[str, Any]

    def whole(self) -> dict[str, Any]:
        body = self.view.to_json(history=False)
        body.update(self.history)
        return {**self.head, "view": body}


@dataclass
class _Incoming:
    conn: Conn
    raw: str | bytes


@dataclass
class _Joined:
    conn: Conn


@dataclass
class _Left:
    conn: Conn


@dataclass
class _BotTurn:
    version: int


@dataclass
class _Stop:
    pass


@dataclass
class _StorageBack:
    pass


@dataclass
class _Forget:
    """An account deleted: its seats at this online table take ``name``; ``done`` once
    saved (or found nothing to do)."""

    account: str
    name: str
    done: asyncio.Future[None]


_Item = (
    _Incoming | _Joined | _Left | _BotTurn | _Stop | _StorageBack | _Deadline | _Grace | _Unattended
    | _Forget | _Rated
)

#: what a client is told while the table cannot save
_STORAGE_DOWN = (
    "storage_unavailable",
    "the server cannot save moves right now; nothing was changed: try again in a moment",
)


class Table(Seating, Handlers, Online):
    """A table of the web app: one match at a time, its seats, version and handoff state."""

    def __init__(
        self,
        *,
        table_id: str,
        profile: str | None,
        mode: str,
        game: Game,
        store: Store,
        options: dict[str, Any],
        seq: int = 0,
        created_at: dt.datetime | None = None,
        config: ServerConfig | None = None,
    ) -> None:
        """A table at the start of its match; :meth:`from_row` puts a stored one's state back."""
        self.id = table_id
        self.profile = profile
        self.mode = mode
        self.game = game
        self.store = store
        self.created_at = created_at or dt.datetime.now(dt.UTC)
        self.config = config = config or ServerConfig()
        #: the game version: what clients quote with their moves; a cosmetic change (the
        #: computer's move delay) leaves it alone, so it never makes a move stale
        self.version = 0
        #: every committed change, cosmetic ones too: the log's sequence number
        self.seq = seq
        self.options = options
        self.seats = [SeatInfo.from_json(s) for s in options["seats"]]
        self.paused = False
        self.handoff: int | None = None
        self.viewer: int | None = None
        self.hands_counted = 0
        self.match_counted = False
        #: what was last committed: the table state, the record snapshot and the actions
        #: logged since it (what the table falls back to when a save fails)
        self._saved: dict[str, Any] | None = None
        #: the table state's columns as the row holds them (a change writes only those that
        #: differ); the same as ``_saved`` but where a rollback must not undo what was done
        #: to the table between changes (a deleted account's seats renamed)
        self._stored: dict[str, Any] | None = None
        self._snapshot: dict[str, Any] | None = None
        self._tail: list[str] = []
        self.storage_ok = True
        self.defunct = False
        self.conns: set[Conn] = set()
        #: sockets attached (joined and not yet left), counted when they attach: the owner's
        #: and the others' (spectators), each with a cap of its own
        self.attached = 0
        self.attached_owners = 0
        #: the suggestion for the current version (a search: made once per position)
        self._suggestion: tuple[int, dict[str, Any]] | None = None
        #: the socket whose message is being handled, and that message's request id
        self._request: tuple[Conn, int | str | None] | None = None
        #: per recipient seat: the history events last encoded, their JSON, and the epoch of
        #: that history (a new number whenever it is rewritten rather than extended)
        self._history_cache: dict[int | None, tuple[tuple[Event, ...], list[bytes], int]] = {}
        self._history_epochs = 0
        #: the number of the last state message built (``sid``: what a patch names as its base)
        self._sids = 0
        #: (the seats list, its JSON): see ``_seats_json``
        self._seats_cache: tuple[list[SeatInfo], list[dict[str, Any]]] | None = None
        #: (what the table info is made of, that info): see ``_info``
        self._info_cache: tuple[tuple[Any, ...], dict[str, Any]] | None = None
        #: (game, what the two depend on, fairness_info, the match info): see ``_per_hand``
        self._per_hand_cache: (
            tuple[Game, tuple[int, bool, bool], dict[str, Any] | None, dict[str, Any]] | None
        ) = None
        # Bounded by its producers: each socket has at most ``Conn.inflight`` messages waiting,
        # a table has a bounded number of sockets, and at most one computer turn is pending.
        self.queue: Mailbox[_Item] = Mailbox()
        self._settings_bucket = TokenBucket(config.settings_rate, config.settings_burst)
        self._step_bucket = TokenBucket(config.step_rate, config.step_burst)
        self._pause_bucket = TokenBucket(config.pause_rate, config.pause_burst)
        self._probe: asyncio.Task[None] | None = None
        #: the process's metrics (set by the table set; None in tests that build tables alone)
        self.metrics: Metrics | None = None
        self._players: dict[int, ComputerPlayer] = {}
        #: the computer seats' seeds, by seat (kept with the players)
        self._seeds: dict[int, int] = {}
        #: the worker processes that choose computer moves (None: chosen on the event loop)
        self.thinkers: Thinkers | None = None
        #: what this table's worker was last sent: (the position, see ``_position``, and the
        #: worker's generation); a request carries only what was played since
        self._mirror: tuple[tuple[Any, ...], int] | None = None
        #: the computer move asked for at schedule time: (the position, its legal actions (None
        #: for a move of the worker's run: not listed, it is checked as it is played), the
        #: worker's answer to come (the move's text for a move of its run) or None when the
        #: move is forced); a change that leaves the position as it was (pause, resume,
        #: settings ...) asks nothing again
        self._thought: (
            tuple[tuple[Any, ...], list[Action] | None, asyncio.Future[dict[str, Any]] | str | None]
            | None
        ) = None
        #: the worker's moves still to come after the one it answered: the position the next
        #: one is for, and the moves in order (dropped as soon as the game goes elsewhere)
        self._plan: tuple[tuple[Any, ...], list[str]] | None = None
        #: stand-ins that choose quickly (Normal, the search's guide) for a searching seat
        #: whose worker is late
        self._quick_players: dict[int, ComputerPlayer] = {}
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        #: statistics a command adds to the next save (a player leaving an online match)
        self._extra_deltas: list[StatsDelta] = []
        self.on_rematch: Callable[[Table], Awaitable[str]] | None = None
        self.on_change: Callable[[Table], None] | None = None
        self.on_match_over: Callable[[Table], Awaitable[None]] | None = None
        self._over_reported = False
        #: the ratings to show that could not be saved yet (storage was down): shown when it is back
        self._rated_pending: _Rated | None = None
        self._background: set[asyncio.Task[None]] = set()
        self.chat_limiter: KeyedLimiter | None = None
        self._deadline_handle: asyncio.TimerHandle | None = None
        self._grace_handles: dict[str, asyncio.TimerHandle] = {}
        self._unattended_handle: asyncio.TimerHandle | None = None
        self._handlers: dict[str, Callable[[Conn, dict[str, Any]], Awaitable[None]]] = {
            kind: getattr(self, method) for kind, method in COMMANDS.items()
        }

    # ------------------------------------------------------------------ construction

    @classmethod
    def create(
        cls,
        *,
        table_id: str,
        profile: str | None,
        mode: str,
        settings: Settings,
        difficulty: str,
        store: Store,
        delay_ms: int,
        seed: int | None = None,
        config: ServerConfig | None = None,
    ) -> Table:
        """A new table with a freshly dealt match (a chosen ``seed``: a practice table whose
        results never count toward statistics)."""
        players = settings.players
        seats = computer_seats(players, difficulty) if mode == "computer" else local_seats(players)
        seeded = seed is not None
        game = Game(settings, seed=seed) if seeded else FairGame(settings)
        options: dict[str, Any] = {"difficulty": difficulty, "delay_ms": delay_ms}
        if seeded:
            options["seeded"] = True
        table = cls._new(
            mode, seats, game, options, table_id=table_id, profile=profile, store=store, config=config
        )
        table._after_deal()
        return table

    @classmethod
    def create_online(
        cls,
        *,
        table_id: str,
        settings: Settings,
        players: list[tuple[str, str] | None],
        store: Store,
        public: bool,
        room: str | None = None,
        levels: list[str | None] | None = None,
        config: ServerConfig | None = None,
        unrated: str | None = None,
    ) -> Table:
        """A new online match: ``players`` holds (account, name) per seat, or None for a
        computer seat (of ``levels[seat]``, Normal by default); ``unrated``: why a quick match
        changes no rating (:func:`new_online_state`)."""
        config = config or ServerConfig()
        seats = []
        for seat, player in enumerate(players):
            if player is None:
                level = (levels[seat] if levels else None) or "normal"
                seats.append(SeatInfo(f"Computer {seat + 1}", "computer", level, "player"))
            else:
                seats.append(SeatInfo(player[1], "human", None, "player"))
        game = FairGame(settings)
        options: dict[str, Any] = {
            "difficulty": "normal",
            "delay_ms": config.online_bot_delay_ms,
            "online": new_online_state(
                [None if p is None else p[0] for p in players], public=public, room=room, unrated=unrated
            ),
        }
        table = cls._new(
            "online", seats, game, options, table_id=table_id, profile=None, store=store, config=config
        )
        table._prepare_online()
        return table

    @classmethod
    def from_row(
        cls,
        row: TableRow,
        store: Store,
        *,
        log: list[dict[str, Any]] | None = None,
        config: ServerConfig | None = None,
    ) -> Table:
        """A table reloaded from its row and the log after its snapshot: the core replays the
        snapshot's record exactly, then the actions logged since."""
        game = game_from_record(row.record)
        tail = [e["action"] for e in log or () if e.get("kind") == "action"]
        for text in tail:
            game.apply(action_from_text(text))
        table = cls(
            table_id=row.id,
            profile=row.profile,
            mode=row.mode,
            game=game,
            store=store,
            options=row.options,
            seq=row.version,
            created_at=row.created_at,
            config=config,
        )
        table._restore({name: getattr(row, name) for name in ("game_version", "options", *_STATE_FIELDS)})
        table._snapshot, table._tail = row.record, tail
        table._saved = table._stored = table._state_values()
        return table

    @classmethod
    def _new(
        cls, mode: str, seats: list[SeatInfo], game: Game, options: dict[str, Any], **fields: Any
    ) -> Table:
        """A table of a new match: its ``options`` (the computer seats' level and pace ...) come
        after the seats; ``fields`` are the rest of what :class:`Table` takes."""
        options = {"seats": [s.to_json() for s in seats], **options}
        return cls(mode=mode, game=game, options=options, **fields)

    def mark_saved(self) -> None:
        """The row as it is now has been committed (a new table's first save)."""
        self._snapshot, self._tail = self.game.to_record(), []
        self._saved = self._stored = self._state_values()

    def _state_values(self) -> dict[str, Any]:
        """The table's current state outside the match record (small: saved with each change)."""
        return {  # the fields of _STATE_FIELDS written out (this runs at every change)
            "game_version": self.version,
            "options": self.options,
            "status": self.status,
            "paused": self.paused,
            "handoff": self.handoff,
            "viewer": self.viewer,
            "hands_counted": self.hands_counted,
            "match_counted": self.match_counted,
        }

    def _restore(self, values: dict[str, Any]) -> None:
        """The table's state as ``values`` say (columns, as :meth:`_state_values` gives them)."""
        self.version = values["game_version"]
        self.options = dict(values["options"])
        self.seats = [SeatInfo.from_json(s) for s in self.options["seats"]]
        for name in _STATE_FIELDS:
            setattr(self, name, values[name])

    def row_values(self) -> dict[str, Any]:
        """The whole row, with a snapshot of the record at the current version."""
        return {
            "id": self.id,
            "profile": self.profile,
            "mode": self.mode,
            "record": self.game.to_record(),
            "version": self.seq,
            "snapshot_seq": self.seq,
            "created_at": self.created_at,
            **self._state_values(),
        }

    # ------------------------------------------------------------------ properties

    @property
    def delay_ms(self) -> int:
        """The computer seats' move delay: the client's choice, never under the server's floor
        (online: the server's own pace, the same for every seat)."""
        if self.mode == "online":
            return self.config.online_bot_delay_ms
        return max(int(self.options.get("delay_ms", 0)), self.config.min_bot_delay_ms)

    @property
    def seeded(self) -> bool:
        return bool(self.options.get("seeded"))

    @property
    def status(self) -> str:
        if self.game.is_over:
            return "match_over"
        if self.abandoned:
            return "abandoned"
        if self.game.state.is_over:
            return "hand_over"
        return "playing"

    def info(self, conn: Conn | None = None) -> dict[str, Any]:
        """The table part of a ``state`` message (and of ``GET /api/tables/{id}``)."""
        return self._info(self.view_seat(conn), self._can_undo(conn), self.watches(conn))

    def _info(self, seat: int | None, can_undo: bool, watching: bool) -> dict[str, Any]:
        fairness, match = self._per_hand()
        options = self.options
        status = self.status
        seats = self._seats_json()
        seeded = self.seeded
        online = self.mode == "online"
        # what the entries are made of, the online part aside (its players' presence and
        # clocks): while it is the same, the same dict is given again, which the state patch
        # then passes over whole (most changes are moves, which change none of this)
        key = (
            status, self.paused, options.get("delay_ms", 0), options.get("difficulty"), seat,
            seeded, self.storage_ok, seats, self.handoff, can_undo, watching,
            fairness, match,
        )
        cached = self._info_cache
        if not online and cached is not None and cached[0] == key:
            return cached[1]
        info = {
            "id": self.id,
            "mode": self.mode,
            "status": status,
            "paused": self.paused,
            "delay_ms": options.get("delay_ms", 0),
            "difficulty": options.get("difficulty"),
            "seat": seat,
            "seeded": seeded,
            "storage": "ok" if self.storage_ok else "unavailable",
            "seats": seats,
            "handoff": self.handoff,
            "can_undo": can_undo,
            # someone else's table (pass-and-play's player between hand-offs has no seat, but
            # does not only watch)
            "watching": watching,
            "online": self.online_info(None) if online else None,
            "fairness": fairness,
            "match": match,
        }
        self._info_cache = None if online else (key, info)
        return info

    def _seats_json(self) -> list[dict[str, Any]]:
        """The seats as the table info shows them: one list while ``self.seats`` is the same
        list (it is replaced, never changed in place), so that states share it."""
        cached = self._seats_cache
        if cached is None or cached[0] is not self.seats:
            cached = self._seats_cache = (self.seats, [s.to_json() for s in self.seats])
        return cached[1]

    def _per_hand(self) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """``fairness_info`` of the game (it hashes) and the match's part of the table info,
        built again only when what they show can change (a hand dealt or finished, the match
        over, another game object); between two such changes every state shares them."""
        g = self.game
        key = (len(g.hands), g.hands[-1].result is not None if g.hands else False, g.is_over)
        cached = self._per_hand_cache
        if cached is None or cached[0] is not g or cached[1] != key:
            match = {
                "scores": list(g.scores),
                "target": g.settings.target,
                "hand_number": g.hand_number,
                "over": g.is_over,
                "winners": list(g.winners),
                # per team: won the match, alone or sharing it (a tie of every team is a draw)
                "won": [g.won(team) for team in range(len(g.scores))],
                "hands": [
                    {"number": h.number, "dealer": h.dealer, "result": h.result.to_json()}
                    for h in g.hands
                    if h.result is not None
                ],
            }
            cached = self._per_hand_cache = (g, key, fairness_info(g), match)
        return cached[2], cached[3]

    def state_message(self, conn: Conn | None, change: str) -> dict[str, Any]:
        """The state message of one recipient (see :meth:`_whole_state` and :meth:`_as_held`)."""
        return self._as_held(conn, self._whole_state(conn, change))

    def _whole_state(
        self,
        conn: Conn | None,
        change: str,
        audience: tuple[int | None, bool, bool] | None = None,
        shared: dict[str, Any] | None = None,
    ) -> _State:
        """A full redraw for one recipient, built from that recipient's view only (its
        history's events encoded once each: see :meth:`_history_json`), numbered ``sid``.

        A socket that keeps the history (``conn.history_delta``) is sent only the events past
        those it holds, with ``history_from`` saying where they start (0: the whole history),
        and its mark moves on. ``audience``: the seat it sees, whether it may undo and whether
        it only watches, when the caller knows them already; ``shared``: the table's part of
        this change's states as :meth:`_info` gives it, built once for all audiences (only
        those three entries differ)."""
        seat, can_undo, watching = (
            (self.view_seat(conn), self._can_undo(conn), self.watches(conn))
            if audience is None
            else audience
        )
        # built on the seat's last view: what the moves since did not change is reused
        st = self.game.state
        view = st.view(seat, since=st.last_view(seat))
        history, epoch = self._history_json(seat, view.history)
        start = self._history_start(conn, epoch, len(history))
        entries: dict[str, Any] = {"history": Raw(b"[" + b",".join(history[start:]) + b"]")}
        if conn is not None and conn.history_delta:
            entries["history_from"] = start
            conn.history_mark = (epoch, len(history))
        self._sids += 1
        head = {
            "type": "state",
            "version": self.version,
            "change": change,
            "sid": self._sids,
            "table": self._info(seat, can_undo, watching)
            if shared is None
            else {**shared, "seat": seat, "can_undo": can_undo, "watching": watching},
            "event": Raw(history[-1]) if change == "action" and history else None,
        }
        return _State(head, view, entries)

    @staticmethod
    def _as_held(conn: Conn | None, state: _State) -> dict[str, Any]:
        """``state``'s message as ``conn`` is sent it: a socket that keeps the state
        (``conn.state_patch``) and holds one is sent only the view's and the table's entries
        that differ from it (the history's always), with ``base`` naming it (see
        :func:`state_patch`); it then holds ``state``."""
        head = state.head
        if conn is None or not conn.state_patch:
            return state.whole()
        held, conn.state_held = conn.state_held, (head["sid"], state.view, head["table"])
        if held is None:
            return state.whole()
        view, table = state_patch(held, state.view, head["table"])
        view.update(state.history)
        return {**head, "base": held[0], "view": view, "table": table}

    @staticmethod
    def _history_start(conn: Conn | None, epoch: int, length: int) -> int:
        """The first event ``conn`` has not been sent: 0 unless it keeps the history and
        holds a prefix of this very history."""
        if conn is None or not conn.history_delta or conn.history_mark is None:
            return 0
        held_epoch, held = conn.history_mark
        return held if held_epoch == epoch and held <= length else 0

    def _history_json(self, seat: int | None, events: tuple[Event, ...]) -> tuple[list[bytes], int]:
        """Each event of ``seat``'s view of the history as JSON, and that history's epoch. A
        hand's history only grows (an undo or a new hand rewrites it): the table keeps, per
        recipient seat, the events it last encoded and their JSON, and encodes only the events
        past that prefix; a rewritten history gets a new epoch.

        The prefix is recognised by its last event being the very object at that place: a view's
        history shares its events with the view before it as long as the history only grew
        (:func:`canasta.view.seen_history`), and a rewritten one is built of new objects (at
        worst an equal history is sent whole again, under a new epoch)."""
        cached = self._history_cache.get(seat)
        if cached is not None:
            known, texts, epoch = cached
            count = len(known)
            if count <= len(events) and (count == 0 or events[count - 1] is known[-1]):
                if count == len(events):
                    return texts, epoch
                # extended in place: the list is read only while a state is built, never kept
                texts += [dumps_kept(event_json(e)) for e in events[count:]]
                self._history_cache[seat] = (events, texts, epoch)
                return texts, epoch
        self._history_epochs += 1
        texts = [dumps_kept(event_json(e)) for e in events]
        self._history_cache[seat] = (events, texts, self._history_epochs)
        return texts, self._history_epochs

    def _send_states(self, change: str) -> None:
        """Send every socket its state message: built once per audience (the seat it sees,
        whether it may undo, the history it holds), so a seat's tabs and the spectators share
        one state; encoded once per audience and state held (a patch is made once per base,
        and after it every socket of the audience holds the same state again). The socket
        whose message is being handled gets its request id on its own copy."""
        request = self._request
        if len(self.conns) == 1:  # the usual table: one socket, nothing to share
            for conn in self.conns:
                out = self._as_held(conn, self._whole_state(conn, change))
                if request is not None and request[0] is conn and request[1] is not None:
                    conn.send(self._replying(conn, out))
                else:
                    conn.send(dumps(out))
            return
        wholes: dict[_Audience, tuple[_State, tuple[int, int] | None]] = {}
        texts: dict[tuple[_Audience, bool, int | None], tuple[dict[str, Any], str]] = {}
        shared: dict[str, Any] | None = None  # the table's part, built once for several sockets
        for conn in self.conns:
            audience = (
                self.view_seat(conn),
                self._can_undo(conn),
                self.watches(conn),
                conn.history_mark if conn.history_delta else None,
            )
            whole = wholes.get(audience)
            if whole is None:
                if shared is None and len(self.conns) > 1:
                    shared = self._info(None, False, False)
                whole = wholes[audience] = (
                    self._whole_state(conn, change, audience[:3], shared),
                    conn.history_mark,
                )
            else:  # the same state: the socket now holds the history the first one holds
                conn.history_mark = whole[1]
            state = whole[0]
            held = conn.state_held if conn.state_patch else None
            key = (audience, conn.state_patch, None if held is None else held[0])
            built = texts.get(key)
            if built is None:
                out = self._as_held(conn, state)
                built = texts[key] = (out, dumps(out))
            elif conn.state_patch:  # the same patch: the socket now holds the same state
                conn.state_held = (state.head["sid"], state.view, state.head["table"])
            if request is not None and request[0] is conn and request[1] is not None:
                conn.send(with_request(built[1], request[1]))  # the same text, its id added
            else:
                conn.send(built[1])

    # ------------------------------------------------------------------ the worker

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.id}")
        self._schedule_bot()
        self.start_online()

    async def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self._deadline_handle is not None:
            self._deadline_handle.cancel()
        for handle in self._grace_handles.values():
            handle.cancel()
        self._grace_handles.clear()
        if self._unattended_handle is not None:
            self._unattended_handle.cancel()
        if self._probe is not None:
            self._probe.cancel()
        if self._task is not None:
            self.queue.put_nowait(_Stop())
            try:
                await asyncio.wait_for(self._task, timeout=10)
            except (TimeoutError, asyncio.CancelledError):  # pragma: no cover - a stuck bot
                self._task.cancel()
        for conn in list(self.conns):
            conn.close()
        if self.thinkers is not None:
            self.thinkers.forget(self.id)

    def join(self, conn: Conn) -> None:
        self.attached += 1
        conn.joined_as_owner = conn.owner
        self.attached_owners += conn.owner
        self.queue.put_nowait(_Joined(conn))

    def forget_account(self, account: str, name: str) -> asyncio.Future[None]:
        """Rename ``account``'s seats (a deleted account), saved and sent as any change; the
        future is done once it is saved."""
        done = asyncio.get_running_loop().create_future()
        self.queue.put_nowait(_Forget(account, name, done))
        return done

    def leave(self, conn: Conn) -> None:
        self.attached -= 1
        self.attached_owners -= conn.joined_as_owner
        self.queue.put_nowait(_Left(conn))

    def has_room_for(self, owner: bool) -> bool:
        """Whether one more socket of this kind may attach (spectators cannot crowd out the
        owner: each kind has its own cap)."""
        if owner:
            return self.attached_owners < self.config.owner_sockets_per_table
        return self.attached - self.attached_owners < self.config.spectators_per_table

    def reassign(self, profile: str) -> None:
        """The table's owner is now ``profile`` (an old browser id was claimed by an account)."""
        self.profile = profile
        for conn in self.conns:
            conn.owner = conn.account is not None and conn.account == profile

    async def submit(self, conn: Conn, raw: str | bytes) -> None:
        """Queue a client's message; waits while that socket already has its share queued
        (the socket is then not read: backpressure reaches the client over TCP)."""
        await conn.inflight.acquire()
        self.queue.put_nowait(_Incoming(conn, raw))

    async def _run(self) -> None:
        while True:
            item = await self.queue.get()
            if isinstance(item, _Stop):
                return
            try:
                await self._process(item)
            except Exception:  # the table carries on whatever one message did
                log.exception("table %s: error while handling %r", self.id, type(item).__name__)
                if isinstance(item, _Incoming):
                    item.conn.send(
                        error_message(
                            "internal_error",
                            "the server could not handle this message",
                            version=self.version,
                        )
                    )
            finally:
                if isinstance(item, _Incoming):
                    item.conn.inflight.release()
            # let every other table, socket and request run between two messages (with none
            # queued, waiting for the next one lets them run)
            if not self.queue.empty():
                await asyncio.sleep(0)

    async def _process(self, item: _Item) -> None:
        if isinstance(item, _Joined):
            self.conns.add(item.conn)
            item.conn.send(self.state_message(item.conn, "connect"))
            if self.mode == "online":
                if self._joined_online(item.conn) and self.storage_ok:
                    try:
                        await self._changed("back")
                    except TableError:
                        pass
                else:
                    self.broadcast_presence()
        elif isinstance(item, _Left):
            self.conns.discard(item.conn)
            if self.mode == "online":
                self._left_online(item.conn)
                self.broadcast_presence()
        elif isinstance(item, _Deadline | _Grace | _Unattended):
            if isinstance(item, _Unattended):
                self._unattended_handle = None  # fired: a new count may start
            # skipped while nothing can be saved: taken up again when storage is back
            if self.storage_ok and not self.defunct:
                try:
                    if isinstance(item, _Deadline):
                        await self._on_deadline(item)
                    elif isinstance(item, _Grace):
                        await self._on_grace(item)
                    else:
                        await self._on_unattended()
                except TableError:  # not saved: the table is back as committed
                    pass
        elif isinstance(item, _BotTurn):
            await self._bot_turn(item.version)
        elif isinstance(item, _Rated):
            # a defunct table is reloaded, and the reloaded one asks for its ratings again
            if not self.defunct:
                try:
                    if not self.storage_ok:
                        raise TableError(*_STORAGE_DOWN)
                    await self._on_rated(item)
                except TableError:  # not saved: shown once storage is back
                    self._rated_pending = item
        elif isinstance(item, _Forget):
            try:
                if not self.defunct:
                    with contextlib.suppress(TableError):  # not saved: kept for the next save
                        await self._rename_seats(item.account, item.name)
            finally:
                if not item.done.done():
                    item.done.set_result(None)
        elif isinstance(item, _StorageBack):
            if await self.store.stored_version(self.id) != self.seq:
                # a save that failed here may have committed all the same (a timeout after
                # the database took it): the stored table is the truth, so reload from it
                log.warning("table %s: the stored version differs; reloading", self.id)
                self.defunct = True
                for conn in self.conns:
                    conn.drop(CLOSE_RELOAD, "the table is being reloaded: reconnect")
                return
            self.storage_ok = True
            if self._rated_pending is not None:
                self.queue.put_nowait(self._rated_pending)
                self._rated_pending = None
            self._send_states("storage")
            self._schedule_bot()
            self._resume_online()
        elif isinstance(item, _Incoming):
            started = time.perf_counter()
            kind = "?"
            try:
                kind = await self._message(item.conn, item.raw)
            except TableError as e:
                if self.metrics is not None:
                    self.metrics.errors.labels(e.code).inc()
                error = error_message(
                    e.code, e.message, version=self.version, section=e.section, details=e.details
                )
                item.conn.send(self._replying(item.conn, error))
            finally:
                self._request = None
            if self.metrics is not None:
                self.metrics.count(self.metrics.messages, kind)
                if kind == "action":
                    self.metrics.action_seconds.observe(time.perf_counter() - started)

    async def _message(self, conn: Conn, raw: str | bytes) -> str:
        """Handle one client message; returns its type (for the metrics)."""
        msg = parse_message(raw)
        self._request = (conn, request_of(msg))
        kind = msg.get("type")
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise TableError("unknown_type", f"unknown message type {str(kind)[:40]!r}")
        if self.mode == "online":
            if kind not in ONLINE_COMMANDS:
                raise TableError("offline_only", f"'{kind}' is not available in online play")
            if kind != "sync":
                if self.abandoned:
                    raise TableError("match_abandoned", "this match was abandoned: nobody plays it any more")
                self._seated(conn)
        elif kind in ONLINE_ONLY:
            raise TableError("online_only", f"'{kind}' is only for online tables")
        if kind != "sync":
            self._check_owner(conn)
            if not self.storage_ok or not self.store.writable:
                raise TableError(*_STORAGE_DOWN)
        await handler(conn, msg)
        return str(kind)

    async def _changed(self, change: str, *, action_text: str | None = None, **entry: Any) -> None:
        """After every change: bump the version and commit the change (a log row, the small
        table state, and a new record snapshot when a hand ended or history was rewritten);
        only then send each socket its view. A failed save puts the table back as committed.
        ``action_text``: the notation of the action just applied, when the caller has it."""
        self.seq += 1
        if change not in COSMETIC:
            self.version += 1
        st = self.game.state
        if st.is_over:
            self.handoff = None
        elif self.mode == "local" and st.turn != self.viewer:
            self.handoff = st.turn
        self._prepare_online()
        deltas = self._stats_deltas() + self._extra_deltas
        self._extra_deltas = []
        values = self._state_values()
        tail = self._tail
        snapshot = None
        if change == "action":
            entry["action"] = action_text or action_to_text(self.game.hands[-1].actions[-1])
            tail = [*tail, entry["action"]]
        if change in ("undo", "next_hand", "new_match") or st.is_over or len(tail) > SNAPSHOT_EVERY:
            snapshot, tail = self.game.to_record(), []
        stored = self._stored
        if stored is not None:  # only the columns that changed: the row holds the rest already
            values = {k: v for k, v in values.items() if (old := stored[k]) is not v and old != v}
        row = values if snapshot is None else {**values, "record": snapshot, "snapshot_seq": self.seq}
        try:
            if not self.store.writable:  # another process took the database: never write
                raise RuntimeError("this process no longer holds the database")
            await self.store.append_change(
                self.id, seq=self.seq, entry={"kind": change, **entry}, values=row, deltas=deltas
            )
        except VersionConflict:
            log.error("table %s: changed by another process; reloading it", self.id)
            self._rollback()
            self.defunct = True
            for conn in self.conns:
                conn.drop(CLOSE_RELOAD, "the table was changed elsewhere: reconnect")
            raise TableError(
                "table_conflict", "the table was changed by another server process"
            ) from None
        except Exception:
            log.exception("table %s: could not save; refusing changes until storage returns", self.id)
            self._rollback()
            self._storage_lost()
            raise TableError(*_STORAGE_DOWN) from None
        self._saved = self._stored = values if stored is None else {**stored, **values}
        if self.metrics is not None:
            self.metrics.count(self.metrics.changes, change)
        if snapshot is not None:
            self._snapshot = snapshot
        self._tail = tail
        self._send_states(change)
        self._schedule_bot()
        self._arm_deadline()
        if self.on_change is not None:
            self.on_change(self)
        if self.game.is_over:
            self._report_match_over()

    def _report_match_over(self) -> None:
        """Tell the table set the match is over (once): it records the match and its ratings."""
        if self.on_match_over is None or self._over_reported:
            return
        self._over_reported = True
        task = asyncio.get_running_loop().create_task(
            self.on_match_over(self), name=f"table-{self.id}-over"
        )
        self._background.add(task)  # a reference until it ends (the loop keeps none)
        task.add_done_callback(self._background.discard)

    def _replying(self, conn: Conn, message: dict[str, Any]) -> dict[str, Any]:
        """``message``, carrying the request id of the message being handled when it goes to
        the socket that sent it."""
        if self._request is not None and self._request[0] is conn and self._request[1] is not None:
            message["request"] = self._request[1]
        return message

    async def _rename_seats(self, account: str, name: str) -> None:
        """A deleted account's seats: renamed and out of any rematch (as a player who left),
        in memory and in what a failed save rolls back to, so that no later save of this
        table brings the old name back; saved and sent now when storage allows, else with the
        table's next change."""
        if self.mode != "online":
            return
        on = self.online
        mine = [seat for seat, acc in enumerate(on["accounts"]) if acc == account]
        pending = self._rated_pending
        if pending is not None:  # its rating change goes, also from one waiting for storage
            self._rated_pending = _Rated([None if s in mine else c for s, c in enumerate(pending.changes)])
        ratings = on.get("ratings")
        if all(
            self.seats[s].name == name
            and on["auto"][s] == "left"
            and not on["rematch"][s]
            and not (ratings and ratings[s])
            for s in mine
        ):
            return
        seats = [dict(seat) for seat in self.options["seats"]]
        for seat in mine:
            seats[seat]["name"] = name
        self.options = {**self.options, "seats": seats}
        self.seats = [SeatInfo.from_json(seat) for seat in seats]
        for seat in mine:
            self._set_seat("auto", seat, "left")
            self._set_seat("rematch", seat, False)
            if ratings:  # a deleted account's rating goes with it
                self._set_seat("ratings", seat, None)
        if self._saved is not None:  # between changes the saved options are these, renamed
            self._saved = {**self._saved, "options": self.options}
        if self.storage_ok:
            await self._changed("rename")

    def _rollback(self) -> None:
        """Back to what was last committed: nothing unsaved stays in memory."""
        saved = self._saved
        if saved is None or self._snapshot is None:  # pragma: no cover - saved when created
            raise RuntimeError("a table with no saved row cannot roll back")
        game = game_from_record(self._snapshot)
        for text in self._tail:
            game.apply(action_from_text(text))
        self.game = game
        self.seq -= 1
        self._restore(saved)
        self._extra_deltas = []
        self._players.clear()
        self._quick_players.clear()
        self._seeds.clear()

    def _storage_lost(self) -> None:
        self.storage_ok = False
        if self._timer is not None:
            self._timer.cancel()
        if self._probe is None or self._probe.done():
            self._probe = asyncio.get_running_loop().create_task(
                self._wait_for_storage(), name=f"table-{self.id}-storage"
            )

    async def _wait_for_storage(self) -> None:
        """Probe the database until it answers, then let the table take changes again."""
        while True:
            await asyncio.sleep(self.config.storage_retry_seconds)
            try:
                await self.store.ping()
            except Exception:
                continue
            log.warning("table %s: storage is back", self.id)
            self.queue.put_nowait(_StorageBack())
            return

    def _after_deal(self) -> None:
        if self.mode == "local":
            self.handoff = self.game.state.turn
            self.viewer = None

    def _counted_seats(self) -> list[tuple[str, int]]:
        """(statistics key, seat) of the people whose results this table counts: the owner
        at seat 0 against the computer; every player still seated online."""
        if self.mode == "online":
            return self._online_deltas()
        if self.mode != "computer" or not self.profile or self.seeded:
            return []
        return [(self.profile, 0)]

    def _stats_deltas(self) -> list[StatsDelta]:
        g = self.game
        hands = g.hands
        ends = g.is_over and not self.match_counted
        # most changes finish no hand (only the last hand can be unfinished): nothing to count
        if not ends and self.hands_counted == len(hands) - (1 if hands and hands[-1].result is None else 0):
            return []
        counted = self._counted_seats()
        finished = [h for h in hands if h.result is not None]
        new_hands = finished[self.hands_counted :]
        self.hands_counted = len(finished)
        if ends:
            self.match_counted = True
        if not new_hands and not ends:
            return []
        deltas = []
        for key, seat in counted:
            team = g.state.team_of[seat]
            delta = StatsDelta(key)
            for h in new_hands:
                assert h.result is not None
                for side in h.result.sides:
                    if seat in side.seats:
                        delta.canastas += side.natural_canastas + side.mixed_canastas
                score = h.result.team_deltas[team]
                delta.best_hand = score if delta.best_hand is None else max(delta.best_hand, score)
            if ends:
                delta.finished = True
                delta.won = g.won(team)
            deltas.append(delta)
        return deltas

    # ------------------------------------------------------------------ computer seats

    def _seed(self, seat: int) -> int:
        seed = self._seeds.get(seat)
        if seed is None:
            # a committed deal has no public seed: its secret (hashed, never shown) seeds the
            # computer seats, so they differ from table to table and nobody can predict them
            secret = getattr(self.game, "secret", None)
            if secret is None:  # a chosen deal (a practice table, a test): as it always was
                seed = zlib.crc32(f"{self.game.seed}:{seat}".encode())
            else:
                digest = hashlib.sha256(f"computer:{secret}:{self.id}:{seat}".encode()).digest()
                seed = int.from_bytes(digest[:8], "big")
            self._seeds[seat] = seed
        return seed

    def _player(self, seat: int) -> ComputerPlayer:
        player = self._players.get(seat)
        if player is None:
            level = self.seats[seat].level or "normal"
            player = self._players[seat] = make_computer(level, self._seed(seat))
        return player

    async def _choose(self, seat: int, view: SeatView) -> Action:
        """The computer seat's move chosen in this process: a search (Expert) runs off the
        event loop; the quick levels decide in well under a millisecond, less than handing
        them to a thread costs (and the GIL lets no thread run Python alongside the loop)."""
        player = self._player(seat)
        if (self.seats[seat].level or "normal") in _INLINE_LEVELS:
            return player.choose(view)
        return await asyncio.to_thread(player.choose, view)

    def _ask_worker(self, seat: int) -> asyncio.Future[dict[str, Any]] | None:
        """Ask this table's worker process for ``seat``'s move in the current position (None
        without workers). The request carries the actions played since the last one (across
        one new hand, which the copy deals itself), or the whole record when the worker's copy
        may differ (another game object: an undo, a new match, a rollback; a restarted
        worker)."""
        thinkers = self.thinkers
        if thinkers is None:
            return None
        index = thinkers.worker_for(self.id)
        generation = thinkers.generation(index)
        position = game, hands, n = self._position()
        request: dict[str, Any] = {
            "table": self.id,
            "seat": seat,
            "level": self.seats[seat].level or "normal",
            "seed": self._seed(seat),
            "at": [hands, n],
        }
        wait = self.delay_ms / 1000 + WORKER_MARGIN
        if request["level"] not in _INLINE_LEVELS:  # a search: as long as the seat's pace allows
            request["sent"] = time.time()
            request["within"] = self.delay_ms / 1000 + SEARCH_SECONDS
            wait += SEARCH_SECONDS
        else:  # and the quick computer seats' moves after it, up to a person's turn
            request["ahead"] = PLAN_AHEAD
            request["computers"] = {
                str(s): [info.level or "normal", self._seed(s)]
                for s, info in enumerate(self.seats)
                if (info.level or "normal") in _INLINE_LEVELS and self.bot_plays(s)
            }
        sent = self._mirror
        if (
            sent is not None
            and sent[1] == generation
            and sent[0][:2] == (game, hands - 1)
            and game.hands[-2].result is not None
            and sent[0][2] <= len(game.hands[-2].actions)
        ):
            # the copy holds the hand before this one: the rest of that hand, then the copy
            # deals this hand itself (checked against the deck), then this hand's actions so far
            request["actions"] = [
                *map(action_to_text, game.hands[-2].actions[sent[0][2] :]),
                NEXT_HAND,
                *map(action_to_text, game.hands[-1].actions),
            ]
            request["dealt"] = deck_check(game.hands[-1].deck)
        elif sent is not None and sent[1] == generation and sent[0][:2] == (game, hands) and sent[0][2] <= n:
            # the texts the log holds already (the tail: this hand's actions since the last
            # snapshot, the latest last) when they reach back far enough
            since, tail = n - sent[0][2], self._tail
            request["actions"] = (
                tail[len(tail) - since :]
                if 0 < since <= len(tail)
                else [action_to_text(a) for a in game.hands[-1].actions[sent[0][2] :]]
            )
        else:
            request["record"] = game.to_record()
            request["actions"] = []
        self._mirror = (position, generation)
        return thinkers.ask(index, request, wait)

    async def _choose_here(self, seat: int, legal: list[Action], *, quick: bool = False) -> tuple[Action, str]:
        """The seat's move chosen in this process, and how: ``loop``, or ``first_legal`` when
        the player fails (a player must never stop a table). ``quick`` (the worker was late:
        the workers are overloaded): a searching seat plays its guide's move, Normal's, rather
        than search here too."""
        view = self.game.state.view(seat, legal)
        try:
            if quick and (self.seats[seat].level or "normal") not in _INLINE_LEVELS:
                player = self._quick_players.get(seat)
                if player is None:
                    player = self._quick_players[seat] = make_computer("normal", self._seed(seat))
                return player.choose(view), "loop"
            return await self._choose(seat, view), "loop"
        except Exception:
            log.exception("table %s: computer seat %d failed; playing its first legal action", self.id, seat)
            return legal[0], "first_legal"

    async def _worker_choice(
        self, seat: int, answer: asyncio.Future[dict[str, Any]]
    ) -> tuple[Action | None, bool, list[str]]:
        """The worker's move, once it answers (asked again with the record when its copy was
        stale), whether it was late, and the moves it played on for after it (``then``); no
        move when it cannot give one: the table then chooses on its own."""
        reply = await answer
        if reply.get("error") == "resync":
            self._mirror = None
            again = self._ask_worker(seat)
            assert again is not None
            reply = await again
        text = reply.get("action")
        if isinstance(text, str):
            try:
                action = action_from_text(text)
            except Exception:
                reply = {"error": "failed", "message": f"an unreadable action {text[:80]!r}"}
            else:
                then = reply.get("then")
                return action, False, then if isinstance(then, list) else []
        self._mirror = None
        log.warning(
            "table %s: computer worker gave no move for seat %d (%s: %s); choosing here",
            self.id,
            seat,
            reply.get("error"),
            reply.get("message"),
        )
        return None, reply.get("error") == "late", []

    def _planned(self, position: tuple[Any, ...]) -> str | None:
        """The worker's next move played on for (its text), when the game is where the
        worker's run expects it; the run is dropped when the game went elsewhere (a person's
        move, an undo, a new hand)."""
        plan = self._plan
        if plan is None:
            return None
        self._plan = None
        if plan[0] != position:
            return None
        text, rest = plan[1][0], plan[1][1:]
        if rest:
            self._plan = ((position[0], position[1], position[2] + 1), rest)
        return text

    def _run_move(self, text: str) -> Action | None:
        """A move of the worker's run read (None, and the run dropped, when unreadable: the
        table then chooses on its own)."""
        try:
            return action_from_text(text)
        except Exception:
            log.warning("table %s: an unreadable move in the worker's run %r", self.id, text[:80])
            self._plan = None
            return None

    def _position(self) -> tuple[Any, ...]:
        """What a computer move depends on: the game, its hand and the actions played."""
        game = self.game
        return (game, len(game.hands), len(game.hands[-1].actions))

    def _schedule_bot(self) -> None:
        st = self.game.state
        if (
            self.paused
            or not self.storage_ok
            or self.defunct
            or st.is_over
            or self.abandoned
            or not self.bot_plays(st.turn)
        ):
            return
        item = _BotTurn(self.seq)
        if self.thinkers is not None:  # the worker thinks while the seat's delay runs
            position = self._position()
            if self._thought is None or self._thought[0] != position:
                planned = self._planned(position)
                if planned is not None:  # the worker's run: its move is checked as it is played
                    self._thought = (position, None, planned)
                else:
                    legal = st.legal_actions()
                    self._thought = (position, legal, self._ask_worker(st.turn) if len(legal) > 1 else None)
        if self.delay_ms <= 0:
            self.queue.put_nowait(item)
        else:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = asyncio.get_running_loop().call_later(
                self.delay_ms / 1000, self.queue.put_nowait, item
            )

    async def _bot_turn(self, version: int, *, step: bool = False) -> None:
        """A computer seat's move (``step``: one move asked for while the table is paused)."""
        st = self.game.state
        if (
            version != self.seq
            or (self.paused and not step)
            or not self.storage_ok
            or st.is_over
            or self.defunct
            or self.abandoned
        ):
            return
        seat = st.turn
        if not self.bot_plays(seat):
            return
        answer: asyncio.Future[dict[str, Any]] | str | None = None
        legal: list[Action] | None
        thought = self._thought
        if thought is not None and thought[0] == self._position():
            self._thought = None
            legal, answer = thought[1], thought[2]
        else:
            legal = st.legal_actions()
        how = "forced"
        offered: list[str] = []  # the moves the worker played on for after this one
        if legal is not None and len(legal) == 1:  # forced: nothing to choose, nor a view to build
            action = legal[0]
        else:
            if answer is None:
                answer = self._ask_worker(seat)
            chosen, late = None, False
            if isinstance(answer, str):  # a move of the worker's run
                chosen = self._run_move(answer)
            elif answer is not None:
                chosen, late, offered = await self._worker_choice(seat, answer)
            if self.defunct or not self.storage_ok:  # while it waited: the table is given up
                return
            if chosen is not None:
                action, how = chosen, "worker"
            else:
                legal = st.legal_actions() if legal is None else legal
                action, how = await self._choose_here(seat, legal, quick=late)
        try:
            # checked once: a move the core listed for this very position (a forced move, the
            # worker's or this process's choice found in the list) needs no second check, and
            # the listed object itself is applied (and recorded); any other (a move of the
            # worker's run among them) is checked as the core applies it
            listed = False
            if legal is not None:
                with contextlib.suppress(ValueError):
                    action, listed = legal[legal.index(action)], True
            self.game.apply(action, validate=not listed)
            if how == "worker" and offered:  # the moves the worker played on for, from here
                self._plan = (self._position(), offered)
        except IllegalAction:
            log.error(
                "table %s: computer seat %d chose an illegal %s (%s)",
                self.id,
                seat,
                action_to_text(action),
                how,
            )
            self._mirror = None
            self._plan = None
            legal = st.legal_actions() if legal is None else legal
            if how == "worker":  # the worker's copy was wrong: this process chooses
                action, how = await self._choose_here(seat, legal)
            if self.game.state.check(action) is not None:
                action, how = legal[0], "first_legal"
            self.game.apply(action)
        if self.metrics is not None:
            self.metrics.count(self.metrics.computer_moves, how)
        try:
            # a move of the worker's run, played as it came: the log keeps its text
            text = answer if how == "worker" and isinstance(answer, str) else None
            await self._changed("action", action_text=text)
        except TableError:  # not saved: the table is back where it was and will retry
            if step:
                raise

