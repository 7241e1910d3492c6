"""Sockets across nodes: forwarding a client's socket to the node that owns its table or the
lobby, and serving forwarded sockets at the owner (see ``cluster``).

Only used with several nodes (``canasta serve --redis URL``). The node a browser connected to
checks its session, applies the socket's own limits, and forwards each frame; the owner runs
the table (or the lobby) exactly as for its own sockets, through a :class:`RemoteConn` whose
messages travel back. When the owner dies or hands the table over, the forwarding node closes
the browser's socket with 4409 and the browser reconnects, to whichever node it reaches.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.websockets import WebSocket

from .cluster import RedisCluster, RemoteConn
from .config import ServerConfig
from .conn import CLOSE_POLICY, CLOSE_RELOAD, CLOSE_TRY_AGAIN, Conn, SessionSockets
from .protocol import error_message
from .sockets import read_frames, run_socket
from .tasks import start_tasks, stop_tasks

if TYPE_CHECKING:
    from .lobby import Lobby
    from .table import Table
    from .tables import Tables

log = logging.getLogger("canasta.server")

#: forwarded frames waiting at the owner for one socket; past that the socket is dropped
REMOTE_BACKLOG = 64
WATCH_SECONDS = 2.0


@dataclass(slots=True, eq=False)
class Forwarded:
    """A socket of this node forwarded to the owner of ``resource``."""

    conn: Conn
    resource: str
    #: the node that owned ``resource`` when the socket was forwarded
    owner: str
    #: the number of the last message the owner relayed to it (see ``RemoteConn.published``)
    relayed: int = 0



class Forwarding:
    """This node's forwarded sockets, both ways."""

    def __init__(
        self,
        cluster: RedisCluster,
        tables: Tables,
        lobby: Lobby,
        config: ServerConfig,
        sessions: SessionSockets | None = None,
    ) -> None:
        self.cluster = cluster
        #: this node's browser sockets by session (closed when their session ends)
        self.sessions = sessions if sessions is not None else SessionSockets()
        self.tables = tables
        self.lobby = lobby
        self.config = config
        #: sockets of this node forwarded elsewhere, by forwarding id
        self.local: dict[str, Forwarded] = {}
        #: forwarded sockets this node serves, by (their node, their id)
        self.remote: dict[tuple[str, str], tuple[str, RemoteConn, asyncio.Task[None]]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        #: tables being handed over to other nodes (kept until done)
        self._handing: set[asyncio.Task[None]] = set()
        cluster.on_node_message(self._to_local)
        tables.serve_forwarded = self.serve_table

    async def start(self) -> None:
        self._tasks = start_tasks(
            {
                "lobby-lease": self._lead_lobby_forever(),
                "forward-reaper": self._reap_forever(),
                "forward-watch": self._watch_forever(),
            }
        )

    async def close(self) -> None:
        await stop_tasks(self._tasks)
        await asyncio.gather(*self._handing, return_exceptions=True)  # tables being handed over
        for forwarded in list(self.local.values()):
            forwarded.conn.drop(CLOSE_RELOAD, "the server is restarting: reconnect")

    # ------------------------------------------------------------------ the owner's side

    async def serve_table(self, table: Table) -> None:
        async def handle(message: dict[str, Any]) -> None:
            await self._at_owner(f"table:{table.id}", message)

        await self.cluster.serve(f"table:{table.id}", handle)

    async def _serve_lobby(self) -> None:
        async def handle(message: dict[str, Any]) -> None:
            await self._at_owner("lobby", message)

        await self.cluster.serve("lobby", handle)

    def _remote_conn(self, node: str, conn_id: str, account: str | None, owner: bool) -> RemoteConn:
        return RemoteConn(
            self.cluster, node, conn_id, account=account, owner=owner, **Conn.limits(self.config)
        )

    async def _at_owner(self, resource: str, message: dict[str, Any]) -> None:
        op, node, conn_id = message.get("op"), message.get("node"), message.get("conn")
        if not isinstance(node, str) or not isinstance(conn_id, str):
            return
        key = (node, conn_id)
        if op == "join":
            account = message.get("account")
            account = account if isinstance(account, str) else None
            if resource == "lobby":
                if account is None:
                    return
                rc = self._remote_conn(node, conn_id, account, True)
                address = message.get("address")
                rc.address = address if isinstance(address, str) and len(address) <= 64 else None
                if not await self.lobby.join(rc, str(message.get("name") or "Guest")):
                    rc.send(error_message("too_many_sockets", "too many lobby tabs are open"))
                    rc.close(CLOSE_TRY_AGAIN, "too many lobby tabs are open")
                    return
            else:
                table = self.tables.peek(resource.removeprefix("table:"))
                if table is None:
                    rc = self._remote_conn(node, conn_id, account, False)
                    rc.drop(CLOSE_RELOAD, "the table moved: reconnect")
                    return
                owner = account is not None and table.owns(account)
                rc = self._remote_conn(node, conn_id, account, owner)
                rc.history_delta = message.get("history") == "delta"
                rc.state_patch = message.get("state") == "patch"
                if not table.has_room_for(owner):
                    rc.send(error_message("table_full", "too many sockets at this table"))
                    rc.close(CLOSE_TRY_AGAIN, "too many sockets at this table")
                    return
                table.join(rc)
            feeder = asyncio.get_running_loop().create_task(self._feed(resource, rc))
            self.remote[key] = (resource, rc, feeder)
        elif op == "msg":
            entry = self.remote.get(key)
            raw = message.get("raw")
            if entry is None or not isinstance(raw, str):
                return
            rc = entry[1]
            if rc.incoming.qsize() >= REMOTE_BACKLOG:
                rc.drop(CLOSE_TRY_AGAIN, "too many messages waiting: reconnect")
                return
            rc.incoming.put_nowait(raw)
        elif op == "leave":
            await self._leave(key)
        elif op == "forget" and resource.startswith("table:"):  # an account was deleted
            account, name = message.get("account"), message.get("name")
            table = self.tables.peek(resource.removeprefix("table:"))
            if table is not None and isinstance(account, str) and isinstance(name, str):
                table.forget_account(account, name)
        elif op == "rename" and resource == "lobby":
            account, name = message.get("account"), message.get("name")
            if isinstance(account, str) and isinstance(name, str) and 0 < len(name) <= 40:
                await self.lobby.rename(account, name)

    async def _feed(self, resource: str, rc: RemoteConn) -> None:
        """Hand a forwarded socket's messages to its table or the lobby, in order."""
        while True:
            raw = await rc.incoming.get()
            if raw is None or rc.closed:
                return
            if not rc.bucket.take():
                rc.drop(CLOSE_POLICY, "too many messages")
                return
            if resource == "lobby":
                await self.lobby.handle(rc, raw)
            else:
                table = self.tables.peek(resource.removeprefix("table:"))
                if table is None:
                    rc.drop(CLOSE_RELOAD, "the table moved: reconnect")
                    return
                await table.submit(rc, raw)

    async def _leave(self, key: tuple[str, str]) -> None:
        entry = self.remote.pop(key, None)
        if entry is None:
            return
        resource, rc, feeder = entry
        feeder.cancel()
        if resource == "lobby":
            await self.lobby.leave(rc)
        else:
            table = self.tables.peek(resource.removeprefix("table:"))
            if table is not None:
                table.leave(rc)
        rc.close()

    def lease_lost(self, resource: str) -> None:
        """Another node runs the lobby now: this one stops (its sockets reconnect there)."""
        if resource != "lobby":
            return
        for key in [k for k, entry in self.remote.items() if entry[0] == "lobby"]:
            _, rc, feeder = self.remote.pop(key)
            feeder.cancel()
            rc.drop(CLOSE_RELOAD, "the lobby moved to another server: reconnect")
        asyncio.get_running_loop().create_task(self.lobby.close(forget=True))

    async def _reap_forever(self) -> None:
        """Forwarded sockets whose node died are gone: they leave their tables and the lobby
        (a node missing twice in a row: one late heartbeat is not a death)."""
        missing: set[str] = set()
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            nodes = {node for node, _ in self.remote}
            for node in nodes:
                try:
                    alive = await self.cluster.alive(node)
                except Exception:
                    continue
                if alive:
                    missing.discard(node)
                elif node not in missing:
                    missing.add(node)
                else:
                    missing.discard(node)
                    for key in [k for k in self.remote if k[0] == node]:
                        await self._leave(key)

    async def _watch_forever(self) -> None:
        """Every few seconds: a forwarded socket whose table (or the lobby) has another owner
        now, or whose owner node is dead, is closed with 4409 (the browser reconnects, to
        whichever node it reaches). One round trip for all of this node's forwarded sockets."""
        while True:
            await asyncio.sleep(WATCH_SECONDS)
            try:
                await self.watch_once()
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis away: the sockets stay until it answers again
                log.warning("cluster: could not check the forwarded sockets' owners")

    async def watch_once(self) -> None:
        local = list(self.local.values())
        if not local:
            return
        resources = sorted({f.resource for f in local})
        nodes = sorted({f.owner for f in local})
        async with self.cluster.redis.pipeline(transaction=False) as pipe:
            pipe.mget([RedisCluster.lease_key(r) for r in resources])
            for node in nodes:
                pipe.exists(RedisCluster.alive_key(node))
            leases, *alive = await pipe.execute()
        owners = {r: None if v is None else str(v).rsplit(":", 1)[0] for r, v in zip(resources, leases, strict=True)}
        living = {n for n, up in zip(nodes, alive, strict=True) if up}
        for f in local:
            if owners[f.resource] != f.owner or f.owner not in living:
                f.conn.drop(CLOSE_RELOAD, "the table moved to another server: reconnect")

    async def _lead_lobby_forever(self) -> None:
        """One node runs the lobby; when it dies another takes over (from the saved queue and
        rooms)."""
        while True:
            try:
                if not self.cluster.owns("lobby") and await self.cluster.acquire("lobby"):
                    log.warning("cluster: this node runs the lobby now")
                    await self.lobby.start()
                    await self._serve_lobby()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: could not take the lobby")
            await asyncio.sleep(1.0)

    # ------------------------------------------------------------------ the forwarding side

    async def _to_local(self, message: dict[str, Any]) -> None:
        op = message.get("op")
        if op == "adopt" and isinstance(message.get("table"), str):
            await self.tables.adopt(message["table"])  # a new match placed on this node
            return
        if op == "hand_over" and all(
            isinstance(message.get(k), str) for k in ("table", "node", "ask", "account")
        ):
            # in a task: unloading waits for the table's last commit, and this loop relays
            # every forwarded socket's messages
            task = asyncio.get_running_loop().create_task(
                self.tables.hand_over(message["table"], message["node"], message["ask"], message["account"])
            )
            self._handing.add(task)
            task.add_done_callback(self._handing.discard)
            return
        if op == "answer" and isinstance(message.get("ask"), str):
            self.tables.answered(message["ask"], message.get("done") is True)
            return
        if op == "sessions_ended" and isinstance(message.get("account"), str):
            keep, only = message.get("keep"), message.get("only")
            self.sessions.end(
                message["account"],
                keep=keep if isinstance(keep, str) else None,
                only=only if isinstance(only, str) else None,
            )
            return
        forwarded = self.local.get(str(message.get("conn")))
        if forwarded is None:
            return
        conn = forwarded.conn
        n = message.get("n")
        if isinstance(n, int):  # the owner numbers what it sends a socket: a gap is a loss
            last, forwarded.relayed = forwarded.relayed, n
            if n != last + 1 and message.get("op") != "close":
                log.warning("cluster: messages to a forwarded socket were lost; closing it")
                conn.drop(CLOSE_RELOAD, "some of the server's messages were lost: reconnect")
                return
        if message.get("op") == "send" and isinstance(message.get("msg"), dict):
            conn.send(message["msg"])
        elif message.get("op") == "send" and isinstance(message.get("text"), str):
            conn.send(message["text"])
        elif message.get("op") == "close":
            code = message.get("code")
            code = code if isinstance(code, int) else CLOSE_RELOAD
            if message.get("drop") is False:  # after what the owner sent before it
                conn.close(code, str(message.get("reason") or ""))
            else:
                conn.drop(code, str(message.get("reason") or ""))

    async def rename(self, account: str, name: str) -> None:
        """A new display name, told to the lobby wherever it runs (its queue entry and room show
        it at once). With no lobby leader this moment the name is not lost: the lobby reads it
        from the database when the account's lobby socket joins again."""
        if self.cluster.owns("lobby"):
            await self.lobby.rename(account, name)
            return
        message = {"op": "rename", "node": self.cluster.node, "conn": "-", "account": account, "name": name}
        try:
            await self.cluster.publish(RedisCluster.in_channel("lobby"), message)
        except Exception as e:  # Redis is down: the nodes are reconnecting anyway
            log.warning("rename not told to the lobby: %s", e)

    async def forward(
        self,
        websocket: WebSocket,
        resource: str,
        owner_node: str,
        *,
        account: str | None,
        name: str | None,
        history_delta: bool = False,
        state_patch: bool = False,
        session: str | None = None,
        registered: Callable[[Conn], Awaitable[None]] | None = None,
        address: str | None = None,
    ) -> None:
        """Serve an accepted browser socket whose table (or the lobby) another node owns
        (``history_delta``, ``state_patch``: the browser keeps the hand's history, the last
        state; see :class:`Conn`; ``session``: the hash of the session it was opened with;
        ``registered``: called once the socket is registered under it; ``address``: the
        client's, which the owner's copy counts new tables against)."""
        conn_id = secrets.token_hex(8)
        conn = Conn.with_limits(self.config, account=account, owner=False)
        conn.session = session
        self.local[conn_id] = Forwarded(conn, resource, owner_node)
        self.sessions.add(conn)
        if registered is not None:
            await registered(conn)
        channel = RedisCluster.in_channel(resource)
        base = {"node": self.cluster.node, "conn": conn_id}
        try:
            join = {
                "op": "join", "account": account, "name": name, "address": address,
                "history": "delta" if history_delta else None, "state": "patch" if state_patch else None,
            }
            await self.cluster.publish(channel, {**base, **join})
        except Exception:
            self.local.pop(conn_id, None)
            self.sessions.discard(conn)
            await websocket.send_text('{"type":"error","code":"storage_unavailable","message":"try again"}')
            await websocket.close(code=CLOSE_TRY_AGAIN)
            return

        async def deliver(raw: str | bytes) -> None:
            text = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
            try:
                await self.cluster.publish(channel, {**base, "op": "msg", "raw": text})
            except Exception:  # Redis failed: the frame is lost, so the browser starts afresh
                log.warning("cluster: could not forward a frame to its owner; closing the socket")
                conn.drop(CLOSE_RELOAD, "the table's server could not be reached: reconnect")

        async def ending() -> None:
            self.local.pop(conn_id, None)
            self.sessions.discard(conn)
            with contextlib.suppress(Exception):
                await self.cluster.publish(channel, {**base, "op": "leave"})

        await run_socket(
            websocket,
            conn,
            read_frames(websocket, conn, deliver),
            ending=ending,
            default_code=CLOSE_RELOAD,
        )
