"""The online lobby: the quick-match queue, private rooms, and the list of live matches.

Every browser in the lobby holds one websocket (``/ws/lobby``); the lobby pushes what changes
(queue counts, its room, the live list) and never needs polling. Its lasting parts, queue
entries and rooms, are saved as they change, so a restart keeps them: a browser that comes
back within the grace period finds itself still queued. Changes run one at a time under the
lobby's lock; matches are made here and played at online tables (``online``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import SettingsError
from ..rules import PRESETS, Settings
from .config import ServerConfig
from .conn import Conn
from .db import Store
from .limits import KeyedLimiter
from .players import LEVELS
from .protocol import TableError, error_message, parse_message, request_of
from .table import Table
from .tables import Tables, TooManyTables
from .tasks import repeat

log = logging.getLogger("canasta.server")

#: the quick-match games: classic four-player partnership, or two players
QUICK_PRESETS = ("classic", "two-player")
QUICK_TARGETS = (5000, 2500)
#: room codes: no 0/O, 1/I/L to misread
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
#: lobby sockets one session may hold (tabs)
SOCKETS_PER_SESSION = 8


@dataclass
class QueueEntry:
    account: str
    name: str
    preset: str
    target: int
    joined: float  # epoch seconds

    @property
    def key(self) -> str:
        return f"{self.preset}:{self.target}"

    def to_json(self) -> dict[str, Any]:
        return {"preset": self.preset, "target": self.target, "joined_ms": int(self.joined * 1000)}


@dataclass
class Room:
    code: str
    host: str
    preset: str
    target: int | str
    #: per seat: {"account", "name"} for a person, {"computer": level}, or None (empty)
    seats: list[dict[str, Any] | None]
    expires: float  # epoch seconds
    created: float = field(default_factory=time.time)
    #: house rules of R2 over the preset ({"ask_partner": true}, ...), checked by the core
    rules: dict[str, Any] = field(default_factory=dict)

    def settings(self) -> Settings:
        return Settings.preset(self.preset, target=self.target, **self.rules)

    def members(self) -> list[str]:
        return [s["account"] for s in self.seats if s and "account" in s]

    def seat_of(self, account: str) -> int | None:
        for i, s in enumerate(self.seats):
            if s and s.get("account") == account:
                return i
        return None

    def to_json(self, viewer: str) -> dict[str, Any]:
        seats = []
        for s in self.seats:
            if s is None:
                seats.append(None)
            elif "computer" in s:
                seats.append({"kind": "computer", "level": s["computer"]})
            else:
                seats.append({
                    "kind": "human",
                    "name": s["name"],
                    "host": s["account"] == self.host,
                    "you": s["account"] == viewer,
                })
        return {
            "code": self.code,
            "preset": self.preset,
            "target": self.target,
            "rules": dict(self.rules),
            "players": len(self.seats),
            "seats": seats,
            "host": self.host == viewer,
            "expires_ms": int(self.expires * 1000),
            "full": all(s is not None for s in self.seats),
        }


#: at most this many house-rule overrides in a room request
MAX_RULES = 16


def _settings(preset: Any, target: Any, rules: Any = None) -> Settings:
    if not isinstance(preset, str) or preset not in PRESETS:
        raise TableError("bad_preset", f"preset is one of {', '.join(PRESETS)}")
    rules = {} if rules is None else rules
    if not isinstance(rules, dict) or len(rules) > MAX_RULES or "target" in rules:
        raise TableError("bad_rules", "rules is an object of R2 settings (target apart)")
    try:
        return Settings.preset(preset, target=target, **rules)
    except SettingsError as e:
        raise TableError(e.code, e.message) from e
    except (TypeError, ValueError) as e:
        raise TableError("bad_rules", str(e)[:200]) from e


class Lobby:
    """The queue, the rooms and the live list of one server process."""

    def __init__(self, store: Store, tables: Tables, config: ServerConfig) -> None:
        self.store = store
        self.tables = tables
        self.config = config
        self.lock = asyncio.Lock()
        self.conns: dict[str, set[Conn]] = {}
        self.names: dict[str, str] = {}
        self.queue: dict[str, QueueEntry] = {}
        #: the client address each queued account joined from (this process's entries: one
        #: loaded from the database has none); a quick match two of whose people share one
        #: is played unrated, so one machine's throwaway accounts cannot farm ratings
        self._queue_address: dict[str, str] = {}
        self.rooms: dict[str, Room] = {}
        #: the client address each room was made from (this process's rooms; a room loaded
        #: from the database counts against none)
        self._room_address: dict[str, str] = {}
        self.actions = KeyedLimiter(config.lobby_actions_per_minute)
        self._grace: dict[str, asyncio.TimerHandle] = {}
        self._queue_dirty = False
        self._live_dirty = True
        self._live: list[dict[str, Any]] = []
        self._task: asyncio.Task[None] | None = None
        #: chooses the quick matches to start now among the entries waiting for one game
        #: (preset, entries oldest first, players, now, pairing window); None: every group of
        #: the oldest at once. accounts.py sets the rating-aware one (Ratings.pick_groups)
        self.pick_groups: (
            Callable[[str, list[QueueEntry], int, float, float], Awaitable[list[list[QueueEntry]]]]
            | None
        ) = None
        #: whether a room's start by this socket may make a table now (the app sets the new
        #: table limits per account and per address); None: always
        self.may_start: Callable[[Conn], bool] | None = None
        self._conn: Conn | None = None
        tables.on_online_change = lambda table: self._mark_live()

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Load the saved queue and rooms and every online match in play."""
        for value in await self.store.lobby_entries("queue"):
            with contextlib.suppress(KeyError, TypeError, ValueError):
                entry = QueueEntry(**value)
                self.queue[entry.account] = entry
        for value in await self.store.lobby_entries("room"):
            with contextlib.suppress(KeyError, TypeError, ValueError):
                room = Room(**value)
                self.rooms[room.code] = room
        loaded = await self.tables.load_online()
        if loaded:
            log.info("lobby: %d online matches in play loaded", loaded)
        for account in self.queue:  # nobody is connected yet: each gets the grace period
            self._start_grace(account)
        self._task = asyncio.get_running_loop().create_task(
            repeat(self.config.live_list_seconds, self.tick, "lobby tick"), name="lobby"
        )

    async def close(self, *, forget: bool = False) -> None:
        """Stop; ``forget``: another node runs the lobby from now on (it reloads the saved
        queue and rooms), so this one drops what it held."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        for handle in self._grace.values():
            handle.cancel()
        self._grace.clear()
        for conns in self.conns.values():
            for conn in conns:
                conn.close()
        if forget:
            self.conns.clear()
            self.queue.clear()
            self._queue_address.clear()
            self.rooms.clear()
            self._room_address.clear()

    def has_room_for(self, account: str) -> bool:
        return len(self.conns.get(account, ())) < SOCKETS_PER_SESSION

    async def join(self, conn: Conn, name: str) -> bool:
        """Add a lobby socket, and send it the lobby; False (nothing added) when its account
        has :data:`SOCKETS_PER_SESSION` already. Counted under the lock: sockets opened at once
        cannot all pass the count before any of them is added."""
        assert conn.account is not None
        account = conn.account
        async with self.lock:
            if not self.has_room_for(account):
                return False
            self.conns.setdefault(account, set()).add(conn)
            self.names[account] = name
            handle = self._grace.pop(account, None)
            if handle is not None:
                handle.cancel()
            conn.send(self._snapshot(account))
        return True

    async def leave(self, conn: Conn) -> None:
        assert conn.account is not None
        account = conn.account
        async with self.lock:
            mine = self.conns.get(account)
            if mine is not None:
                mine.discard(conn)
                if not mine:
                    del self.conns[account]
                    if account in self.queue:
                        self._start_grace(account)

    async def rename(self, account: str, name: str) -> None:
        """A new display name: used for matches made from now on, including the one its
        queue entry or room is waiting for (a match keeps the names it started with)."""
        async with self.lock:
            self.names[account] = name
            entry = self.queue.get(account)
            if entry is not None:
                entry.name = name
                await self.store.put_lobby_entry("queue", account, asdict(entry))
            room = self._room_of(account)
            if room is not None:
                seat = room.seat_of(account)
                assert seat is not None
                room.seats[seat] = {**(room.seats[seat] or {}), "name": name}
                await self._save_room(room)

    # ------------------------------------------------------------------ messages

    async def handle(self, conn: Conn, raw: str | bytes) -> None:
        """One message of a lobby socket; errors are answered on that socket."""
        request: int | str | None = None
        try:
            msg = parse_message(raw)
            request = request_of(msg)
            kind = msg.get("type")
            handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
            if handler is None:
                raise TableError("unknown_type", f"unknown message type {str(kind)[:40]!r}")
            assert conn.account is not None
            if kind != "sync" and not self.actions.allow(conn.account):
                raise TableError("rate_limited", "too many lobby requests: wait a moment")
            if kind != "sync" and not self.store.writable:
                raise TableError("storage_unavailable", "the server cannot save right now")
            async with self.lock:
                self._conn = conn  # the socket whose message this is (its address: _room_start)
                try:
                    reply = await handler(self, conn.account, msg)
                finally:
                    self._conn = None
            if reply is not None:
                if request is not None:
                    reply["request"] = request
                conn.send(reply)
        except TableError as e:
            out = error_message(e.code, e.message, details=e.details)
            if request is not None:
                out["request"] = request
            conn.send(out)
        except TooManyTables as e:
            out = error_message(e.code, e.message)
            if request is not None:
                out["request"] = request
            conn.send(out)
        except Exception:
            log.exception("lobby: error while handling a message")
            out = error_message("internal_error", "the server could not handle this message")
            if request is not None:
                out["request"] = request
            conn.send(out)

    def _send(self, account: str, message: dict[str, Any]) -> None:
        for conn in self.conns.get(account, ()):
            conn.send(dict(message))

    def _current_match(self, account: str) -> str | None:
        """The online match in play this account has a seat at (to return to it), on any node."""
        match = self.tables.playing(account)
        return None if match is None else str(match["table"])

    def _snapshot(self, account: str) -> dict[str, Any]:
        entry = self.queue.get(account)
        room = self._room_of(account)
        return {
            "type": "lobby",
            "queue": self._counts(),
            "mine": None if entry is None else entry.to_json(),
            "room": None if room is None else room.to_json(account),
            "live": self._live,
            "current": self._current_match(account),
            "now_ms": int(time.time() * 1000),
        }

    def _counts(self) -> dict[str, int]:
        counts = {f"{p}:{t}": 0 for p in QUICK_PRESETS for t in QUICK_TARGETS}
        for entry in self.queue.values():
            counts[entry.key] = counts.get(entry.key, 0) + 1
        return counts

    def _address(self) -> str | None:
        """The client address of the socket whose message is being handled (None: unknown)."""
        return self._conn.address if self._conn is not None else None

    def _room_of(self, account: str) -> Room | None:
        for room in self.rooms.values():
            if room.seat_of(account) is not None:
                return room
        return None

    def _busy(self, account: str, *, room_ok: bool = False) -> None:
        """Refuse a second queue entry or room while the account is in one, or in a match."""
        if account in self.queue:
            raise TableError("already_queued", "you are already waiting for a match: cancel it first")
        if not room_ok and self._room_of(account) is not None:
            raise TableError("in_room", "you are in a private room: leave it first")
        current = self._current_match(account)
        if current is not None:
            raise TableError(
                "in_match", "you are playing a match: return to it", details={"table": current}
            )

    # ---- the queue

    async def _queue_join(self, account: str, msg: dict[str, Any]) -> dict[str, Any] | None:
        preset, target = msg.get("preset"), msg.get("target")
        if preset not in QUICK_PRESETS:
            raise TableError("bad_preset", f"quick match is one of {', '.join(QUICK_PRESETS)}")
        if target not in QUICK_TARGETS or type(target) is not int:
            raise TableError("bad_target", "target is 5000 or 2500")
        self._busy(account)
        entry = QueueEntry(account, self.names.get(account, "Guest"), preset, target, time.time())
        await self.store.put_lobby_entry("queue", account, asdict(entry))
        self.queue[account] = entry
        address = self._address()
        if address is not None:
            self._queue_address[account] = address
        self._queue_dirty = True
        self._send(account, {"type": "queued", "mine": entry.to_json()})
        await self._match(entry.preset, entry.target)
        return None

    async def _queue_leave(self, account: str, msg: dict[str, Any]) -> dict[str, Any] | None:
        if account not in self.queue:
            raise TableError("not_queued", "you are not waiting for a match")
        await self._drop_entries([account])
        self._send(account, {"type": "queued", "mine": None})
        return None

    async def _drop_entries(self, accounts: list[str]) -> None:
        await self.store.delete_lobby_entries("queue", accounts)
        for account in accounts:
            self.queue.pop(account, None)
            self._queue_address.pop(account, None)
            handle = self._grace.pop(account, None)
            if handle is not None:
                handle.cancel()
        self._queue_dirty = True

    async def _match(self, preset: str, target: int) -> None:
        """Start the matches that may start among the players waiting for the same game.

        With ratings (``pick_groups``), a group whose ratings are far apart waits a little
        (``ServerConfig.pairing_seconds``, widening as it waits) for nearer players; the
        lobby's tick looks again every ``live_list_seconds``.
        """
        settings = Settings.preset(preset, target=target)
        waiting = sorted(
            (e for e in self.queue.values() if e.preset == preset and e.target == target),
            key=lambda e: e.joined,
        )
        n = settings.players
        if len(waiting) < n:
            return
        if self.pick_groups is not None:  # closest ratings (ratings.py)
            groups = await self.pick_groups(
                preset, waiting, n, time.time(), self.config.pairing_seconds
            )
        else:
            groups = [waiting[i : i + n] for i in range(0, len(waiting) - n + 1, n)]
        for group in groups:
            # one who waited and meanwhile began another match (a rematch) plays that one: out
            # of the queue, and this group waits for the next pairing
            busy = [e.account for e in group if self._current_match(e.account) is not None]
            if busy:
                await self._drop_entries(busy)
                for account in busy:
                    self._send(account, {"type": "queued", "mine": None})
                continue
            random.SystemRandom().shuffle(group)  # seats and partnerships at random
            players: list[tuple[str, str] | None] = [(e.account, e.name) for e in group]
            known = [a for e in group if (a := self._queue_address.get(e.account)) is not None]
            shared = len(set(known)) < len(known) and not self.config.rate_shared_networks
            unrated = "shared_network" if shared else None
            table = await self.tables.create_online(settings, players, public=True, unrated=unrated)
            await self._drop_entries([e.account for e in group])
            for e in group:
                self._send(e.account, {"type": "match", "table": table})
            self._mark_live()

    async def forget(self, account: str) -> None:
        """An account is deleted: its queue entry, its room seat (its room, if it hosts one)
        and its name go, so no match is made with its name afterwards."""
        async with self.lock:
            if account in self.queue:
                await self._drop_entries([account])
            room = self._room_of(account)
            if room is not None:
                if room.host == account:
                    await self._close_room(room, "host_left")
                else:
                    seat = room.seat_of(account)
                    assert seat is not None
                    room.seats[seat] = None
                    await self._save_room(room)
            self.names.pop(account, None)

    def _start_grace(self, account: str) -> None:
        old = self._grace.pop(account, None)
        if old is not None:
            old.cancel()
        self._grace[account] = asyncio.get_running_loop().call_later(
            self.config.queue_grace_seconds,
            lambda: asyncio.ensure_future(self._expire_entry(account)),
        )

    async def _expire_entry(self, account: str) -> None:
        async with self.lock:
            self._grace.pop(account, None)
            if account in self.queue and not self.conns.get(account):
                with contextlib.suppress(Exception):
                    await self._drop_entries([account])

    # ---- rooms

    async def _save_room(self, room: Room) -> None:
        """Store a changed room, then show it to its members."""
        await self.store.put_lobby_entry("room", room.code, asdict(room))
        self._room_changed(room)

    def _room_changed(self, room: Room) -> None:
        for account in room.members():
            self._send(account, {"type": "room", "room": room.to_json(account)})

    async def _close_room(self, room: Room, reason: str) -> None:
        await self.store.delete_lobby_entries("room", [room.code])
        self.rooms.pop(room.code, None)
        self._room_address.pop(room.code, None)
        for account in room.members():
            self._send(account, {"type": "room", "room": None, "closed": reason})

    def _my_room(self, account: str) -> Room:
        room = self._room_of(account)
        if room is None:
            raise TableError("not_in_room", "you are not in a private room")
        return room

    def _hosted(self, account: str) -> Room:
        room = self._my_room(account)
        if room.host != account:
            raise TableError("not_host", "only the room's host may do this")
        return room

    def _seat_index(self, room: Room, value: Any) -> int:
        if type(value) is not int or not 0 <= value < len(room.seats):
            raise TableError("bad_seat", f"seat is 0..{len(room.seats) - 1}")
        return value

    async def _room_create(self, account: str, msg: dict[str, Any]) -> dict[str, Any] | None:
        rules = msg.get("rules")
        settings = _settings(msg.get("preset", "classic"), msg.get("target", 5000), rules)
        self._busy(account)
        if len(self.rooms) >= self.config.rooms:
            raise TableError("server_full", "no room for another private room: try again later")
        address = self._address()
        if address is not None:
            held = sum(1 for code, a in self._room_address.items() if a == address and code in self.rooms)
            if held >= self.config.rooms_per_address:
                raise TableError(
                    "too_many_rooms", "too many private rooms are open from your network: close one first"
                )
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        while code in self.rooms:  # pragma: no cover - 31**6 codes
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        seats: list[dict[str, Any] | None] = [None] * settings.players
        seats[0] = {"account": account, "name": self.names.get(account, "Guest")}
        room = Room(
            code=code,
            host=account,
            preset=str(msg.get("preset", "classic")),
            target=settings.target,
            seats=seats,
            expires=time.time() + self.config.room_seconds,
            rules=dict(rules or {}),
        )
        await self._save_room(room)
        self.rooms[code] = room
        if address is not None:
            self._room_address[code] = address
        return None

    async def _room_join(self, account: str, msg: dict[str, Any]) -> dict[str, Any] | None:
        code = msg.get("code")
        if not isinstance(code, str):
            raise TableError("bad_code", "code is the room's six-character code")
        code = code.strip().upper()
        room = self.rooms.get(code)
        if room is None or room.expires < time.time():
            raise TableError("room_not_found", "no open room has this code")
        if room.seat_of(account) is not None:
            self._room_changed(room)
            return None
        self._busy(account)
        free = [i for i, s in enumerate(room.seats) if s is None]
        if not free:
            raise TableError("room_full", "this room is full")
        room.seats[free[0]] = {"account": account, "name": self.names.get(account, "Guest")}
        # renewed, up to the room's whole lifetime (joining and leaving cannot keep it forever)
        room.expires = max(
            room.expires,
            min(time.time() + self.config.room_seconds, room.created + self.config.room_lifetime_seconds),
        )
        await self._save_room(room)
        return None

    async def _room_leave(self, account: str, msg: dict[str, Any]) -> dict[str, Any] | None:
        room = self._my_room(account)
        if room.host == account:
            await self._close_room(room, "host_left")
            return None
        seat = room.seat_of(account)
        assert seat is not None
        room.seats[seat] = None
        await self._save_room(room)
        self._send(account, {"type": "room", "room": None, "closed": "left"})
        return None

    async def _room_move(self, account: str, msg: dict[str, Any]) -> dict[str, Any] | None:
        """The host swaps two seats (an empty one included): this is how partners are chosen."""
        room = self._hosted(account)
        a = self._seat_index(room, msg.get("from"))
        b = self._seat_index(room, msg.get("to"))
        room.seats[a], room.seats[b] = room.seats[b], room.seats[a]
        await self._save_room(room)
        return None

    async def _room_bot(self, account: str, msg: dict[str, Any]) -> dict[str, Any] | None:
        room = self._hosted(account)
        seat = self._seat_index(room, msg.get("seat"))
        level = msg.get("level", "normal")
        if level not in LEVELS:
            raise TableError("bad_level", f"level is one of {', '.join(LEVELS)}")
        if room.seats[seat] is not None:
            raise TableError("seat_taken", "that seat is taken")
        room.seats[seat] = {"computer": level}
        await self._save_room(room)
        return None

    async def _room_clear(self, account: str, msg: dict[str, Any]) -> dict[str, Any] | None:
        """The host empties a seat: a computer player, or a person (who is told)."""
        room = self._hosted(account)
        seat = self._seat_index(room, msg.get("seat"))
        held = room.seats[seat]
        if held is None:
            raise TableError("seat_empty", "that seat is empty")
        if held.get("account") == account:
            raise TableError("seat_is_host", "the host keeps a seat: leave the room instead")
        room.seats[seat] = None
        await self._save_room(room)
        if "account" in held:
            self._send(held["account"], {"type": "room", "room": None, "closed": "removed"})
        return None

    async def _room_start(self, account: str, msg: dict[str, Any]) -> dict[str, Any] | None:
        room = self._hosted(account)
        if any(s is None for s in room.seats):
            raise TableError("room_not_full", "fill every seat (people or computer players) first")
        settings = room.settings()
        players: list[tuple[str, str] | None] = []
        levels: list[str | None] = []
        for s in room.seats:
            assert s is not None
            if "computer" in s:
                players.append(None)
                levels.append(s["computer"])
            else:
                players.append((s["account"], s["name"]))
                levels.append(None)
        if any(p is not None and self._current_match(p[0]) is not None for p in players):
            raise TableError(
                "player_in_match", "a player in this room is playing another match: start it once they are free"
            )
        if self.may_start is not None and (conn := self._conn) is not None and not self.may_start(conn):
            raise TableError("rate_limited", "too many new matches: try again in a minute")
        table = await self.tables.create_online(
            settings, players, public=False, room=room.code, levels=levels
        )
        members = room.members()
        await self.store.delete_lobby_entries("room", [room.code])
        self.rooms.pop(room.code, None)
        self._room_address.pop(room.code, None)
        for member in members:
            self._send(member, {"type": "match", "table": table})
        return None

    async def _sync(self, account: str, msg: dict[str, Any]) -> dict[str, Any] | None:
        return self._snapshot(account)

    # ------------------------------------------------------------------ pushes

    def _mark_live(self) -> None:
        self._live_dirty = True

    def _live_list(self) -> list[dict[str, Any]]:
        private = ("public", "status", "accounts")
        out = [
            {k: v for k, v in match.items() if k not in private}
            for match in self.tables.online_summaries()
            if match["public"] and match["status"] == "playing"
        ]
        out.sort(key=lambda m: (-m["spectators"], m["table"]))
        return out[:50]

    async def tick(self) -> None:
        """Send what changed (at most once a period) and close expired rooms."""
        async with self.lock:
            now = time.time()
            for room in [r for r in self.rooms.values() if r.expires < now]:
                await self._close_room(room, "expired")
            if self._live_dirty or self.tables.cluster.distributed:  # other nodes' matches too
                self._live_dirty = False
                live = self._live_list()
                if live != self._live:
                    self._live = live
                    self._broadcast({"type": "live", "live": live})
            for preset, target in sorted({(e.preset, e.target) for e in self.queue.values()}):
                # entries whose pairing window has widened enough since they joined
                if self.store.writable:
                    with contextlib.suppress(TooManyTables):
                        await self._match(preset, target)
            if self._queue_dirty:
                self._queue_dirty = False
                self._broadcast({"type": "queue", "queue": self._counts()})

    def _broadcast(self, message: dict[str, Any]) -> None:
        for conns in self.conns.values():
            for conn in conns:
                conn.send(dict(message))


_HANDLERS = {
    "queue_join": Lobby._queue_join,
    "queue_leave": Lobby._queue_leave,
    "room_create": Lobby._room_create,
    "room_join": Lobby._room_join,
    "room_leave": Lobby._room_leave,
    "room_move": Lobby._room_move,
    "room_bot": Lobby._room_bot,
    "room_clear": Lobby._room_clear,
    "room_start": Lobby._room_start,
    "sync": Lobby._sync,
}

__all__ = ["Lobby", "QueueEntry", "Room", "Table"]
