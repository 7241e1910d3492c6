"""The set of live tables: created on request, reloaded from the database on first use."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..rules import Settings
from .cluster import LocalCluster, RedisCluster
from .config import ServerConfig
from .db import Store, TableRow
from .limits import KeyedLimiter
from .metrics import Metrics
from .online import ENDED
from .protocol import TableError
from .table import DELETED_NAME, Table
from .tasks import repeat
from .thinkers import Thinkers, default_processes

log = logging.getLogger("canasta.server")

#: several nodes: a node's published load counts for placing new matches this long (seconds)
LOAD_FRESH_SECONDS = 5.0


#: how long a node waits for another to hand a table over before forwarding the socket there
HAND_OVER_WAIT = 2.0
#: a table is handed over only when nobody asked for it for this long (seconds)
HAND_OVER_AFTER = 3.0


class TooManyTables(Exception):
    """No room for another live table (for this session, or in this process)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Tables:
    """Live tables by id; each runs its own worker task."""

    def __init__(
        self,
        store: Store,
        bot_delay_ms: int,
        config: ServerConfig | None = None,
        cluster: LocalCluster | RedisCluster | None = None,
    ) -> None:
        self.store = store
        #: who owns which table: this process alone, or leases among several nodes
        self.cluster = cluster or LocalCluster()
        #: other nodes' online matches, as their owners last published them (several nodes)
        self._remote_summaries: dict[str, dict[str, Any]] = {}
        #: other nodes' loads as they last published them: node -> (live tables, when)
        self._loads: dict[str, tuple[int, float]] = {}
        #: set by the app: hands messages forwarded from other nodes to a table it owns
        self.serve_forwarded: Callable[[Table], Awaitable[None]] | None = None
        self.bot_delay_ms = bot_delay_ms
        self.config = config or ServerConfig()
        self._live: dict[str, Table] = {}
        self._used: dict[str, float] = {}
        self._publish_summaries: set[str] = set()
        self._lock = asyncio.Lock()
        #: tables being loaded, and the account of each once it has room (see :meth:`get`)
        self._loading: dict[str, asyncio.Task[Table | None]] = {}
        self._pending: dict[str, str | None] = {}
        #: this node's questions to other nodes (:meth:`_ask_to_hand_over`), by id
        self._asks: dict[str, asyncio.Future[bool]] = {}
        #: tables out of memory but not yet stopped and released (see :meth:`_take_out`)
        self._unloading: dict[str, asyncio.Future[None]] = {}
        self._unloads: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._cluster_task: asyncio.Task[None] | None = None
        self.chat_limiter = KeyedLimiter(self.config.chat_per_minute)
        #: told after every change of an online table (the lobby's live list)
        self.on_online_change: Callable[[Table], None] | None = None
        #: awaited once an online match is over and saved (ratings); each listener must be
        #: idempotent by table id: a table reloaded after a restart may report its end again
        self.match_over_listeners: list[Callable[[Table], Awaitable[None]]] = []
        processes = self.config.computer_processes
        if processes is None:
            processes = default_processes()
        if processes < 0:
            raise ValueError("computer_processes is 0 or more")
        #: the worker processes that choose computer moves (started when first needed)
        self.thinkers = (
            Thinkers(processes, timeout=self.config.computer_timeout_seconds) if processes else None
        )
        self.metrics = Metrics(
            tables=lambda: len(self._live),
            sockets=lambda: sum(t.attached for t in self._live.values()),
        )

    def start(self) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(
            repeat(self.config.sweep_seconds, self.sweep, "table sweep"), name="table-sweeper"
        )
        if self.cluster.distributed:
            self._cluster_task = asyncio.get_running_loop().create_task(
                self._cluster_forever(), name="table-cluster"
            )

    def __len__(self) -> int:
        return len(self._live)

    async def create(
        self,
        *,
        profile: str | None,
        mode: str,
        settings: Settings,
        difficulty: str,
        seed: int | None = None,
    ) -> Table:
        """A new table, saved before it is returned (storage errors propagate).

        With several nodes it is only saved: the node its first socket reaches loads it and
        takes its lease (:meth:`get`), so that a player's table runs on the node the player is
        connected to and none of its messages cross Redis. (Made and started here, it would
        run on whichever node took the request, and its one player's socket, on another node
        as often as not behind a load balancer without sticky sessions, would be forwarded
        for the whole match.)"""
        if not self.cluster.distributed:  # several nodes: the room is made where it is loaded
            await self._make_room(profile)
        table = Table.create(
            table_id=secrets.token_urlsafe(12),
            profile=profile,
            mode=mode,
            settings=settings,
            difficulty=difficulty,
            store=self.store,
            delay_ms=self.bot_delay_ms,
            seed=seed,
            config=self.config,
        )
        if self.cluster.distributed:
            await self.store.save_table(table.row_values())
            table.mark_saved()
            return table
        return await self._open_new(table)

    async def create_online(
        self,
        settings: Settings,
        players: list[tuple[str, str] | None],
        *,
        public: bool,
        room: str | None = None,
        levels: list[str | None] | None = None,
        unrated: str | None = None,
    ) -> str:
        """A new online match, saved before its id is returned (storage errors propagate);
        ``unrated``: why a quick match changes no rating (``online.new_online_state``).

        With several nodes it starts on the node serving the fewest tables: another node is
        told to adopt it (it loads the table and takes its lease at once); if that node is
        gone, the first node a player reaches takes it, as after any failover.
        """
        target = await self._placement()
        if target == self.cluster.node:
            await self._make_room(None)
        table = Table.create_online(
            table_id=secrets.token_urlsafe(12),
            settings=settings,
            players=players,
            store=self.store,
            public=public,
            room=room,
            levels=levels,
            config=self.config,
            unrated=unrated,
        )
        if target == self.cluster.node:
            return (await self._open_new(table)).id
        assert isinstance(self.cluster, RedisCluster)
        await self.store.save_table(table.row_values())
        await self.cluster.publish(self.cluster.node_channel(target), {"op": "adopt", "table": table.id})
        self.metrics.placed.inc()
        return table.id

    async def _placement(self) -> str:
        """The node a new online match starts on: of the nodes that published their load
        lately, the one serving the fewest tables (this node on a tie, or when alone).

        The loads are read from Redis now; if Redis does not answer, the last ones read
        (at most a second old) decide."""
        me = self.cluster.node
        if not self.cluster.distributed:
            return me
        with contextlib.suppress(Exception):
            self._loads = await self._other_loads()
        now = time.time()
        loads = {n: count for n, (count, at) in self._loads.items() if now - at < LOAD_FRESH_SECONDS}
        loads[me] = len(self._live)
        return min(loads, key=lambda n: (loads[n], n != me, n))

    async def _other_loads(self) -> dict[str, tuple[int, float]]:
        """The other nodes' published loads (live tables, when published), the fresh ones."""
        assert isinstance(self.cluster, RedisCluster)
        loads = {}
        for node, raw in (await self.cluster.redis.hgetall("canasta:load")).items():
            with contextlib.suppress(ValueError, TypeError):
                count, at = json.loads(raw)
                if node != self.cluster.node and time.time() - float(at) < LOAD_FRESH_SECONDS:
                    loads[node] = (int(count), float(at))
        return loads

    async def adopt(self, table_id: str) -> None:
        """Another node placed a new match here: load it and take its lease now."""
        if await self.get(table_id) is None:
            log.warning("table %s: placed here but another node serves it (or it is gone)", table_id)

    async def _open_new(self, table: Table) -> Table:
        """Claim, save and start a table just made (its first save: storage errors propagate)."""
        await self._claim_new(table.id)
        await self.store.save_table(table.row_values())
        table.mark_saved()
        await self._attach_owned(table)
        async with self._lock:
            self._live[table.id] = table
            self._used[table.id] = time.monotonic()
            table.start()
        return table

    async def _claim_new(self, table_id: str) -> None:
        if not await self.cluster.acquire(f"table:{table_id}"):  # pragma: no cover - a fresh id
            raise TooManyTables("server_full", "could not claim a new table: try again")

    async def _attach_owned(self, table: Table) -> None:
        """A table this node owns from now on: its hooks, and its forwarded sockets."""
        self._attach(table)
        if self.cluster.distributed and self.serve_forwarded is not None:
            await self.serve_forwarded(table)

    def _attach(self, table: Table) -> None:
        table.metrics = self.metrics
        table.thinkers = self.thinkers
        if table.mode == "online":
            table.chat_limiter = self.chat_limiter
            table.on_rematch = self._rematch
            table.on_change = self._online_changed
            table.on_match_over = self._match_over

    def _online_changed(self, table: Table) -> None:
        if self.on_online_change is not None:
            self.on_online_change(table)
        if self.cluster.distributed:
            self._publish_summaries.add(table.id)

    def playing(self, account: str, *, besides: str | None = None) -> dict[str, Any] | None:
        """The summary of the online match in play ``account`` is seated at (and has not left),
        other than ``besides``, on any node; None when there is none."""
        for match in self.online_summaries():
            if match["table"] != besides and match["status"] == "playing" and account in match["accounts"]:
                return match
        return None

    def online_summaries(self) -> list[dict[str, Any]]:
        """Every online match the lobby may list: this node's live ones, and (several nodes)
        the ones other nodes published."""
        local = {t.id: t.summary() for t in self.online_tables()}
        return list({**self._remote_summaries, **local}.values())

    async def locate(self, table_id: str, account: str | None = None) -> Table | str | None:
        """The table if this node serves it (loading it, and taking its lease, when nobody
        holds it), else the node that owns it; None when there is no such table.

        With several nodes, a table that ``account`` owns and nobody is at (its player's socket
        dropped and came back through this node) is asked of its owner node, so it runs here
        rather than this socket being forwarded for the rest of the match."""
        if not self.cluster.distributed or self.peek(table_id) is not None:
            return await self.get(table_id)
        # not live here: asked of Redis first, so no room is made here for another node's table
        owner = await self.cluster.owner(f"table:{table_id}")
        if owner is not None and owner != self.cluster.node:
            if account is None or not await self._ask_to_hand_over(table_id, owner, account):
                return owner
        table = await self.get(table_id)
        if table is not None:
            return table
        owner = await self.cluster.owner(f"table:{table_id}")  # another node was quicker
        return owner if owner != self.cluster.node else None

    async def _ask_to_hand_over(self, table_id: str, owner: str, account: str) -> bool:
        """Ask ``owner`` to let this node have ``table_id``: it does (:meth:`hand_over`) when
        no socket is at the table and it is no online match. False after :data:`HAND_OVER_WAIT`
        seconds without an answer (the socket is then forwarded, as before)."""
        assert isinstance(self.cluster, RedisCluster)
        ask = secrets.token_hex(8)
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._asks[ask] = answer
        try:
            await self.cluster.publish(
                self.cluster.node_channel(owner),
                {
                    "op": "hand_over", "table": table_id, "node": self.cluster.node, "ask": ask,
                    "account": account,
                },
            )
            return await asyncio.wait_for(answer, HAND_OVER_WAIT)
        except Exception:  # Redis away or no answer in time
            return False
        finally:
            self._asks.pop(ask, None)

    def answered(self, ask: str, done: bool) -> None:
        """The owner's answer to :meth:`_ask_to_hand_over`."""
        answer = self._asks.get(ask)
        if answer is not None and not answer.done():
            answer.set_result(done)

    async def hand_over(self, table_id: str, node: str, ask: str, account: str) -> None:
        """Another node asks for ``table_id`` (its owner's socket reached that node): unload it
        and give its lease up if nobody is at it, ``account`` owns it, it is no online match
        (whose clocks and several players stay where they are) and it has not been asked for
        in the last :data:`HAND_OVER_AFTER` seconds (a table does not bounce between nodes
        faster than that), then answer."""
        assert isinstance(self.cluster, RedisCluster)
        async with self._lock:
            table = self._live.get(table_id)
            done = (
                table is not None
                and not table.defunct
                and table.mode != "online"
                and table.owns(account)
                and not table.attached  # what is queued is done before it stops (_unload)
                and time.monotonic() - self._used.get(table_id, 0.0) >= HAND_OVER_AFTER
            )
            if done:
                assert table is not None
                self._take_out(table)
        if done:
            assert table is not None
            await self._unload(table)  # its changes committed, then its lease released
            self.metrics.handed_over.inc()
        with contextlib.suppress(Exception):
            await self.cluster.publish(
                self.cluster.node_channel(node), {"op": "answer", "ask": ask, "done": done}
            )

    async def _cluster_forever(self) -> None:
        """Several nodes: publish this node's online matches, read the others', and take over
        online matches in play whose owner died (their clocks run with nobody connected)."""
        assert isinstance(self.cluster, RedisCluster)
        redis = self.cluster.redis
        beat = 0
        while True:
            await asyncio.sleep(1.0)
            beat += 1
            try:
                ids = set(self._publish_summaries)
                if beat % 10 == 0:  # a refresh now and then: stale entries expire elsewhere
                    ids |= {t.id for t in self.online_tables()}
                self._publish_summaries.clear()
                for tid in ids:
                    t = self._live.get(tid)
                    if t is None or t.defunct:
                        continue
                    summary = t.summary()
                    if summary["status"] != "playing":
                        await redis.hdel("canasta:live", tid)
                    else:
                        summary["at"] = time.time()
                        await redis.hset("canasta:live", tid, json.dumps(summary))
                remote = {}
                for tid, raw in (await redis.hgetall("canasta:live")).items():
                    if tid in self._live:
                        continue
                    with contextlib.suppress(ValueError):
                        entry = json.loads(raw)
                        if time.time() - entry.get("at", 0) < 30:
                            remote[tid] = entry
                self._remote_summaries = remote
                # this node's load, and the others' (placement of new matches)
                await redis.hset("canasta:load", self.cluster.node, json.dumps([len(self._live), time.time()]))
                self._loads = await self._other_loads()
                if beat % 3 == 0:
                    await self.load_online()
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis or the database away: try again next beat
                log.exception("cluster upkeep failed")

    def lease_lost(self, resource: str) -> None:
        """Another node holds this table now: stop serving it here (its sockets reconnect)."""
        if not resource.startswith("table:"):
            return
        table = self._live.pop(resource.removeprefix("table:"), None)
        if table is None:
            return
        self._used.pop(table.id, None)
        table.defunct = True
        from .conn import CLOSE_RELOAD

        for conn in list(table.conns):
            conn.drop(CLOSE_RELOAD, "the table moved to another server: reconnect")
        asyncio.get_running_loop().create_task(table.stop())

    async def _match_over(self, table: Table) -> None:
        for listener in self.match_over_listeners:
            try:
                await listener(table)
            except Exception:  # one listener's failure never stops the table or the others
                log.exception("table %s: a match-over listener failed", table.id)

    async def _rematch(self, table: Table) -> str:
        """The next match of an online table, with the same people in the same seats; refused
        while one of them plays another match (who asked for a rematch and then started
        another match would play two at once)."""
        on = table.online
        seated = [a for s, a in enumerate(on["accounts"]) if a is not None and on["auto"][s] != "left"]
        if any(self.playing(account, besides=table.id) is not None for account in seated):
            raise TableError(
                "player_in_match", "a player of this match is playing another one: no rematch for now"
            )
        players: list[tuple[str, str] | None] = []
        for seat, account in enumerate(on["accounts"]):
            left = on["auto"][seat] == "left"
            players.append(None if account is None or left else (account, table.seats[seat].name))
        levels = [s.level for s in table.seats]
        return await self.create_online(
            table.game.settings, players, public=bool(on["public"]), levels=levels, unrated=on.get("unrated")
        )

    def online_tables(self) -> list[Table]:
        """Live online tables (the lobby lists the public ones in play)."""
        return [t for t in self._live.values() if t.mode == "online" and not t.defunct]

    async def load_online(self) -> int:
        """Load every online match in play that no node serves (at start, and on several nodes
        after one died): their clocks run with nobody connected."""
        count = 0
        for table_id in await self.store.online_tables_in_play():
            if table_id in self._live:
                continue
            if self.cluster.distributed and await self.cluster.owner(f"table:{table_id}"):
                continue
            if await self.get(table_id) is not None:
                count += 1
        return count

    def _take_out(self, table: Table) -> None:
        """``table`` leaves memory (with the lock held): until :meth:`_unload` has stopped it
        and released its lease, a load of the same table waits (its last changes are then in
        the database, and its lease is asked of Redis again, not taken as still held)."""
        del self._live[table.id]
        self._used.pop(table.id, None)
        self._unloading.setdefault(table.id, asyncio.get_running_loop().create_future())

    async def _unload(self, table: Table) -> None:
        """Stop a table this node no longer keeps in memory, and let other nodes take it."""
        try:
            await table.stop()
            await self.cluster.release(f"table:{table.id}")
        finally:
            done = self._unloading.pop(table.id, None)
            if done is not None and not done.done():
                done.set_result(None)

    def _unload_later(self, tables: list[Table]) -> None:
        """Unload ``tables`` in the background (a load does not wait for the room it made)."""
        for t in tables:
            task = asyncio.get_running_loop().create_task(self._unload(t), name=f"unload-{t.id}")
            self._unloads.add(task)
            task.add_done_callback(self._unloads.discard)

    async def _make_room(self, profile: str | None) -> None:
        async with self._lock:
            evict = self._room_for(profile)
        for t in evict:
            await self._unload(t)

    def _room_for(self, profile: str | None) -> list[Table]:
        """Make room for one more live table of ``profile`` (with the lock held): unload that
        account's least recently used idle tables past its share, and the process's least
        recently used idle ones when it is full. Refuses when everything is in use."""
        cap = self.config.live_tables_per_session

        def idle(t: Table) -> bool:
            # an online match in play is never unloaded: its clocks run with nobody watching
            playing_online = t.mode == "online" and t.status not in ENDED
            return not t.attached and t.queue.empty() and not playing_online

        by_use = sorted(self._live.values(), key=lambda t: self._used.get(t.id, 0.0))
        mine = [t for t in by_use if profile is not None and t.profile == profile]
        # tables being loaded count as live (they are, in a moment)
        loading = sum(1 for p in self._pending.values() if profile is not None and p == profile)
        evict = [t for t in mine if idle(t)][: max(0, len(mine) + loading - cap + 1)]
        if len(mine) + loading - len(evict) >= cap:
            raise TooManyTables(
                "too_many_live_tables",
                f"at most {cap} tables can be open at once: close one first",
            )
        over = len(self._live) + len(self._pending) - len(evict) - self.config.live_tables + 1
        if over > 0:
            others = [t for t in by_use if t not in evict and idle(t)][:over]
            if len(others) < over:
                raise TooManyTables("server_full", "the server is full: try again later")
            evict += others
        for t in evict:
            self._take_out(t)
        return evict

    def peek(self, table_id: str) -> Table | None:
        """The table if it is live (no loading)."""
        table = self._live.get(table_id)
        return None if table is None or table.defunct else table

    def reassign(self, old: str, new: str) -> None:
        """Live tables of owner ``old`` now belong to ``new`` (a claimed browser id)."""
        for t in self._live.values():
            if t.profile == old:
                t.reassign(new)

    async def get(self, table_id: str) -> Table | None:
        """The live table, reloading it (replaying its record) after a restart, or on the
        first socket of a table another node made. Loads of different tables run at once (a
        node taking over hundreds of tables, or hundreds of new ones, would otherwise load them
        one after another, a few round trips each); sockets of one table share its load."""
        table = self._live.get(table_id)
        if table is not None and not table.defunct:
            self._used[table_id] = time.monotonic()
            return table
        loading = self._loading.get(table_id)
        if loading is None:
            loading = asyncio.get_running_loop().create_task(self._load(table_id), name=f"load-{table_id}")
            self._loading[table_id] = loading
            loading.add_done_callback(lambda _: self._loading.pop(table_id, None))
        # shielded: a socket that goes away does not cancel the load the others wait for
        return await asyncio.shield(loading)

    async def _load(self, table_id: str) -> Table | None:
        async with self._lock:
            table = self._live.get(table_id)
            if table is not None and not table.defunct:
                return table
            if table is not None:  # a defunct copy goes first
                self._take_out(table)
                self._unload_later([table])
        # a copy leaving memory here: its last changes committed and its lease released first
        while (leaving := self._unloading.get(table_id)) is not None:
            await asyncio.shield(leaving)
        row = await self.store.load_table(table_id)
        if row is None:
            return None
        async with self._lock:  # room first (a refusal takes no lease), counted until live
            evict = self._room_for(row.profile)
            self._pending[table_id] = row.profile
        self._unload_later(evict)  # in the background: the table is not kept waiting for them
        try:
            return await self._start_loaded(row)
        finally:
            self._pending.pop(table_id, None)

    async def _start_loaded(self, row: TableRow) -> Table | None:
        resource = f"table:{row.id}"
        if not await self.cluster.acquire(resource):
            return None  # another node serves it
        try:
            changes = await self.store.load_log(row.id, row.snapshot_seq)
            try:
                table = Table.from_row(row, self.store, log=changes, config=self.config)
            except Exception:  # a record the core no longer replays: report it, serve the others
                log.exception("table %s: its record does not replay", row.id)
                await self.cluster.release(resource)
                return None
            # accounts deleted while no node held this table, or while its node did not hear
            deleted = (
                await self.store.deleted_accounts([a for a in table.online["accounts"] if a is not None])
                if table.mode == "online"
                else set()
            )
            await self._attach_owned(table)
        except BaseException:  # the database or Redis away, or cancelled: the lease goes too
            with contextlib.suppress(Exception):
                await self.cluster.release(resource)
            raise
        # no await from here on (nothing to cancel between the lease and the table going live)
        self._live[row.id] = table
        self._used[row.id] = time.monotonic()
        table.start()
        for account in deleted:
            table.forget_account(account, DELETED_NAME)
        return table

    async def sweep(self, idle_seconds: float | None = None) -> int:
        """Drop tables with no socket that nobody asked for lately (finished matches sooner);
        returns how many. They stay in the database."""
        idle_for = self.config.idle_seconds if idle_seconds is None else idle_seconds
        finished_for = min(idle_for, self.config.finished_idle_seconds)
        now = time.monotonic()
        async with self._lock:
            idle = [
                t
                for tid, t in self._live.items()
                if t.defunct
                or (
                    not t.attached
                    and t.queue.empty()
                    and (t.mode != "online" or t.status in ENDED)
                    and now - self._used.get(tid, now)
                    >= (finished_for if t.status in ENDED else idle_for)
                )
            ]
            for t in idle:
                self._take_out(t)
        for t in idle:
            await self._unload(t)
        return len(idle)

    def __contains__(self, table_id: str) -> bool:
        return table_id in self._live

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        loads = list(self._loading.values())  # a cancelled load gives its lease back
        for task in loads:
            task.cancel()
        await asyncio.gather(*loads, *self._unloads, return_exceptions=True)
        async with self._lock:
            tables = list(self._live.values())
            self._live.clear()
        if self.thinkers is not None:  # first: a table waiting for its worker stops at once
            await self.thinkers.close()
        for table in tables:
            await self._unload(table)
