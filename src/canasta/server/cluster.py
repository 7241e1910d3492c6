"""Several server nodes on one database: who owns each table, and messages between nodes.

One process (the default, ``LocalCluster``) owns everything and needs no messaging. With
``canasta serve --redis URL`` (``RedisCluster``) any number of processes share one PostgreSQL
database: each table, and the lobby, has exactly one owner node at a time, held by a lease in
Redis (``SET NX PX`` with a fencing token, renewed every second, lost when its node dies). A
node that receives a websocket for something another node owns forwards the socket's messages
to the owner over Redis pub/sub and relays the owner's per-recipient messages back; the owner
treats the forwarded socket like its own (:class:`RemoteConn`). A table made through the API
is taken by the node its first socket reaches (``Tables.create``), and one with nobody at it
moves to the node its player comes back through (``Tables.hand_over``), so a player's own
table is seldom forwarded. The database's (table, seq) uniqueness stays the last guard
against two writers.

Channels (JSON messages): ``canasta:in:<resource>`` to a resource's owner (``join``, ``msg``,
``leave`` of one forwarded socket; ``rename`` of an account, to the lobby), and
``canasta:node:<node>`` to a node (``send`` or ``close`` for one of its sockets; ``adopt`` a
new online match; ``hand_over`` a table to the asking node, and its ``answer``). A ``send`` of a message the owner encoded already carries
it after the JSON header and a newline, as it is (see :meth:`RedisCluster.publish`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

from .conn import CLOSE_RELOAD, Conn
from .encoding import dumps, loads
from .tasks import start_tasks, stop_tasks

log = logging.getLogger("canasta.server")

#: how long a lease lives without renewal, and how often its owner renews it (seconds)
LEASE_SECONDS = 5.0
RENEW_SECONDS = 1.0
#: Redis connections a node opens at most; a command finding them all busy waits for one (at
#: most :data:`REDIS_WAIT_SECONDS`) instead of failing, as redis-py's default pool does past 100
REDIS_CONNECTIONS = 32
REDIS_WAIT_SECONDS = 10.0
#: publishes sent in one round trip at most
PUBLISH_BATCH = 512

Handler = Callable[[dict[str, Any]], Awaitable[None]]

_RENEW = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
#: publish ARGV's (channel, message) pairs in order: a batch in one command and one reply
_PUBLISH_ALL = """
for i = 1, #ARGV, 2 do
  redis.call('publish', ARGV[i], ARGV[i + 1])
end
return #ARGV / 2
"""
_RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


class LocalCluster:
    """One process: it owns every table (the database's node lock keeps others out)."""

    distributed = False

    def __init__(self) -> None:
        self.node = "local"

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        return None

    async def acquire(self, resource: str) -> bool:
        return True

    async def release(self, resource: str) -> None:
        return None

    async def owner(self, resource: str) -> str | None:
        return self.node

    def owns(self, resource: str) -> bool:
        return True

    async def publish(self, channel: str, message: dict[str, Any], text: str | None = None) -> None:  # pragma: no cover
        raise RuntimeError("a single node has no one to publish to")


class PublishError(RuntimeError):
    """A message could not be published (Redis is away or failed)."""


class Publisher:
    """Publishes in order, many messages a round trip: what callers publish while a round trip
    is under way goes in the next one, one script call (:data:`_PUBLISH_ALL`) on one connection.

    Under load hundreds of sockets publish at once (the states a table's owner relays, the
    frames a forwarding node passes on); one round trip and one pooled connection each would
    cost a Redis round trip per message and exhaust any pool; a pipeline of PUBLISH commands
    would still parse a reply per message. Each caller still waits until
    its own message has been published, or gets :class:`PublishError`.
    """

    def __init__(self, redis: Any) -> None:
        self._script = redis.register_script(_PUBLISH_ALL)
        self._waiting: list[tuple[str, str, asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._sending = False

    async def publish(self, channel: str, data: str) -> None:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._waiting.append((channel, data, done))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._send_forever(), name="cluster-publish")
        self._wake.set()
        await done

    async def _send_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._waiting:
                batch = self._waiting[:PUBLISH_BATCH]
                del self._waiting[:PUBLISH_BATCH]
                self._sending = True
                try:
                    await self._script(args=[part for channel, data, _ in batch for part in (channel, data)])
                except asyncio.CancelledError:
                    self._fail(batch, "the node is stopping")
                    raise
                except Exception as e:
                    self._fail(batch, f"{type(e).__name__}: {e}")
                else:
                    for _, _, done in batch:
                        if not done.done():
                            done.set_result(None)
                finally:
                    self._sending = False

    @staticmethod
    def _fail(batch: list[tuple[str, str, asyncio.Future[None]]], why: str) -> None:
        for _, _, done in batch:
            if not done.done():
                done.set_exception(PublishError(why))

    async def close(self, wait: float = 2.0) -> None:
        """Stop, once what is waiting has been published (at most ``wait`` seconds)."""
        until = time.monotonic() + wait
        while (self._waiting or self._sending) and self._task is not None and time.monotonic() < until:
            await asyncio.sleep(0.02)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
            self._task = None
        waiting, self._waiting = self._waiting, []
        self._fail(waiting, "the node is stopping")


class RedisCluster:
    """Leases and forwarding over Redis (see the module docstring)."""

    distributed = True

    def __init__(self, url: str, *, on_lost: Callable[[str], None] | None = None) -> None:
        import redis.asyncio as aioredis

        self.url = url
        self.node = f"n-{secrets.token_hex(6)}"
        self.redis: Any = aioredis.Redis.from_pool(
            aioredis.BlockingConnectionPool.from_url(
                url, decode_responses=True, max_connections=REDIS_CONNECTIONS, timeout=REDIS_WAIT_SECONDS
            )
        )
        self._publisher = Publisher(self.redis)
        self._leases: dict[str, str] = {}  # resource -> the value this node holds
        self._handlers: dict[str, Handler] = {}
        self._pubsub: Any = None
        self._tasks: list[asyncio.Task[None]] = []
        #: told when a lease this node held was lost (taken over, or expired unrenewed)
        self.on_lost = on_lost

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        # alive before anything is forwarded: the other nodes drop a dead node's sockets
        await self.redis.set(self.alive_key(self.node), "1", px=int(LEASE_SECONDS * 1000))
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(self.node_channel(self.node))
        self._tasks = start_tasks(
            {"cluster-listen": self._listen(), "cluster-renew": self._renew_forever()}
        )

    async def close(self) -> None:
        await stop_tasks(self._tasks)
        for resource in list(self._leases):
            with contextlib.suppress(Exception):
                await self.release(resource)
        await self._publisher.close()
        with contextlib.suppress(Exception):
            await self.redis.delete(self.alive_key(self.node))
        with contextlib.suppress(Exception):
            await self.redis.hdel("canasta:load", self.node)  # no new matches placed here
        with contextlib.suppress(Exception):
            if self._pubsub is not None:
                await self._pubsub.aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    # ------------------------------------------------------------------ leases

    @staticmethod
    def alive_key(node: str) -> str:
        return f"canasta:alive:{node}"

    async def alive(self, node: str) -> bool:
        return bool(await self.redis.exists(self.alive_key(node)))

    @staticmethod
    def lease_key(resource: str) -> str:
        return f"canasta:lease:{resource}"

    @staticmethod
    def in_channel(resource: str) -> str:
        return f"canasta:in:{resource}"

    @staticmethod
    def node_channel(node: str) -> str:
        return f"canasta:node:{node}"

    async def acquire(self, resource: str) -> bool:
        """Take ``resource`` if no live node holds it (True also when this node already does)."""
        if resource in self._leases:
            return True
        token = await self.redis.incr(f"canasta:fence:{resource}")
        value = f"{self.node}:{token}"
        got = await self.redis.set(
            self.lease_key(resource), value, nx=True, px=int(LEASE_SECONDS * 1000)
        )
        if not got:
            return False
        self._leases[resource] = value
        return True

    async def release(self, resource: str) -> None:
        value = self._leases.pop(resource, None)
        self._handlers.pop(self.in_channel(resource), None)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(self.in_channel(resource))
        if value is not None:
            await self.redis.eval(_RELEASE, 1, self.lease_key(resource), value)

    async def owner(self, resource: str) -> str | None:
        """The node that holds ``resource`` now (None: nobody)."""
        value = await self.redis.get(self.lease_key(resource))
        return None if value is None else str(value).rsplit(":", 1)[0]

    def owns(self, resource: str) -> bool:
        return resource in self._leases

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            await self.renew()

    async def renew(self) -> None:
        """Renew this node's alive key and every lease it holds in one round trip, however
        many tables it owns: renewed one by one, a busy node's last leases could lapse
        before their turn came (each answer waits for the event loop)."""
        leases = list(self._leases.items())
        ms = int(LEASE_SECONDS * 1000)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.set(self.alive_key(self.node), "1", px=ms)
                for resource, value in leases:
                    pipe.eval(_RENEW, 1, self.lease_key(resource), value, ms)
                results = await pipe.execute(raise_on_error=False)
        except Exception:  # Redis away: the leases may lapse; the database still guards
            log.warning("cluster: could not renew the leases")
            return
        for (resource, value), ok in zip(leases, results[1:], strict=True):
            if isinstance(ok, Exception):
                log.warning("cluster: could not renew %s", resource)
            elif not ok and self._leases.get(resource) == value:
                log.error("cluster: lost the lease of %s", resource)
                self._leases.pop(resource, None)
                if self.on_lost is not None:
                    self.on_lost(resource)

    # ------------------------------------------------------------------ messages

    async def serve(self, resource: str, handler: Handler) -> None:
        """Receive the messages forwarded to ``resource`` (which this node owns)."""
        channel = self.in_channel(resource)
        self._handlers[channel] = handler
        await self._pubsub.subscribe(channel)

    def on_node_message(self, handler: Handler) -> None:
        self._handlers[self.node_channel(self.node)] = handler

    async def broadcast(self, message: dict[str, Any]) -> None:
        """Publish ``message`` to every other node's channel: the nodes that published their
        load lately (every live one, within a beat of starting; not the long dead)."""
        for node, raw in (await self.redis.hgetall("canasta:load")).items():
            name = node.decode() if isinstance(node, bytes) else str(node)
            try:
                fresh = time.time() - float(loads(raw)[1]) < 60
            except (ValueError, TypeError, IndexError):
                fresh = True
            if name != self.node and fresh:
                await self.publish(self.node_channel(name), message)

    async def publish(self, channel: str, message: dict[str, Any], text: str | None = None) -> None:
        """Publish ``message``; ``text`` (a message encoded already, which a socket is to be
        sent as it is) travels after a newline, not escaped inside the JSON: compact JSON has
        no raw newline, so the first one ends the header."""
        data = dumps(message)
        await self._publisher.publish(channel, data if text is None else f"{data}\n{text}")

    async def _listen(self) -> None:
        while True:
            try:
                item = await self._pubsub.get_message(timeout=None)  # no timer per message
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("cluster: the subscription failed; retrying")
                await asyncio.sleep(0.5)
                continue
            if item is None or item.get("type") != "message":
                continue
            handler = self._handlers.get(item["channel"])
            if handler is None:
                continue
            head, framed, text = str(item["data"]).partition("\n")
            try:
                message = loads(head)
            except ValueError:
                continue
            if framed and isinstance(message, dict):
                message["text"] = text
            try:
                await handler(message)
            except Exception:
                log.exception("cluster: a forwarded message failed")


class RemoteConn(Conn):
    """A socket held by another node, as the owner of its table or lobby sees it: what it is
    sent is published to that node, in order."""

    def __init__(self, cluster: RedisCluster, node: str, conn_id: str, **kw: Any) -> None:
        super().__init__(**kw)
        self.cluster = cluster
        self.node = node
        self.conn_id = conn_id
        #: the number of the last message published to the socket's node (each carries its
        #: number ``n``: a gap tells that node a message was lost, see Forwarding._to_local)
        self.published = 0
        self._pump = asyncio.get_running_loop().create_task(self._forward(), name="remote-conn")
        #: the forwarded socket's messages, handed to the table one at a time in order
        self.incoming: asyncio.Queue[str | None] = asyncio.Queue()

    async def _forward(self) -> None:
        channel = RedisCluster.node_channel(self.node)
        while True:
            message = await self.outbox.get()
            self.published += 1
            if message is None:
                # "drop": what the socket's node still holds for it is thrown away (a flood, a
                # slow reader); else it is sent first (a refusal and its reason)
                op: dict[str, Any] = {"op": "close", "conn": self.conn_id, "n": self.published,
                                      "code": self.close_code or 1000, "reason": self.close_reason,
                                      "drop": self.dropped}
                with contextlib.suppress(Exception):
                    await self.cluster.publish(channel, op)
                return
            # a message encoded already (a state shared by an audience) travels as its text
            try:
                if isinstance(message, str):
                    await self.cluster.publish(
                        channel, {"op": "send", "conn": self.conn_id, "n": self.published}, message
                    )
                else:
                    await self.cluster.publish(
                        channel, {"op": "send", "conn": self.conn_id, "n": self.published, "msg": message}
                    )
            except Exception:
                # lost: the socket's node sees the gap in the numbers at the next message and
                # closes the socket (the browser reconnects and is sent the whole state); this
                # end stops sending to it now
                log.warning("cluster: could not forward to node %s; dropping the socket", self.node)
                self.drop(CLOSE_RELOAD, "a message to your connection's server was lost: reconnect")

    def stop(self) -> None:
        self._pump.cancel()
