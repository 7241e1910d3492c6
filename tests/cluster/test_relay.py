"""Forwarded sockets under load (docs/deploy.md): a node publishes in order, in batches,
however many sockets publish at once, and a message to a forwarded socket that is lost
closes that socket (4409, the browser reconnects and is sent the whole state) instead of
leaving the browser a state behind; and one round trip a beat checks every forwarded socket's
owner, however many there are."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest
import redis.asyncio as aioredis

from canasta.server.cluster import REDIS_CONNECTIONS, PublishError, RedisCluster, RemoteConn
from canasta.server.config import ServerConfig
from canasta.server.conn import CLOSE_RELOAD, Conn
from canasta.server.forwarding import Forwarded, Forwarding


async def _received(sub: aioredis.client.PubSub, count: int, seconds: float = 10.0) -> list[str]:
    got: list[str] = []
    loop = asyncio.get_running_loop()
    until = loop.time() + seconds
    while len(got) < count and loop.time() < until:
        item = await sub.get_message(ignore_subscribe_messages=True, timeout=0.5)
        if item is not None:
            got.append(item["data"])
    return got


def test_thousands_of_concurrent_publishes_all_arrive_in_order(redis_url):
    # redis-py's own pool refuses a command past 100 connections in use; a node relaying a
    # thousand tables' states publishes far more than that at once
    async def main() -> None:
        node = RedisCluster(redis_url)
        reader = aioredis.from_url(redis_url, decode_responses=True)
        sub = reader.pubsub()
        await sub.subscribe("canasta:test")
        try:
            count = 3000
            await asyncio.gather(*(node.publish("canasta:test", {"i": i}) for i in range(count)))
            got = await _received(sub, count)
            assert got == [f'{{"i":{i}}}' for i in range(count)]
            assert node.redis.connection_pool.max_connections == REDIS_CONNECTIONS
        finally:
            await sub.aclose()
            await reader.aclose()
            await node.close()

    asyncio.run(main())


def test_a_publish_redis_cannot_take_fails_with_publish_error():
    async def main() -> None:
        node = RedisCluster("redis://127.0.0.1:1/0")  # nothing listens there
        try:
            with pytest.raises(PublishError):
                await node.publish("canasta:test", {"op": "send"})
            # the owner's side of a forwarded socket: a message that cannot be published drops
            # the socket (it is sent nothing more, its node sees the gap)
            rc = RemoteConn(node, "n-elsewhere", "c1", account=None, owner=False)
            rc.send("a state")
            for _ in range(500):
                if rc.closed:
                    break
                await asyncio.sleep(0.01)
            assert rc.close_code == CLOSE_RELOAD
            rc.stop()
        finally:
            await node.close()

    asyncio.run(main())


def test_a_gap_in_a_forwarded_sockets_messages_closes_it(redis_url):
    async def main() -> None:
        node = RedisCluster(redis_url)
        owner = RedisCluster(redis_url)
        await node.start()
        tables = SimpleNamespace(serve_forwarded=None)
        forwarding = Forwarding(node, tables, SimpleNamespace(), ServerConfig())  # type: ignore[arg-type]
        whole, gapped = Conn(account=None, owner=False), Conn(account=None, owner=False)
        forwarding.local["whole"] = Forwarded(whole, "table:t1", "n-owner")
        forwarding.local["gapped"] = Forwarded(gapped, "table:t1", "n-owner")
        channel = RedisCluster.node_channel(node.node)
        try:
            for n in (1, 2, 3):
                await owner.publish(channel, {"op": "send", "conn": "whole", "n": n}, f"state {n}")
            await owner.publish(channel, {"op": "send", "conn": "gapped", "n": 1}, "state 1")
            await owner.publish(channel, {"op": "send", "conn": "gapped", "n": 3}, "state 3")  # 2 lost
            for _ in range(500):
                if whole.outbox.qsize() == 3 and gapped.closed:
                    break
                await asyncio.sleep(0.01)
            assert [whole.outbox.get_nowait() for _ in range(3)] == ["state 1", "state 2", "state 3"]
            assert not whole.closed
            assert gapped.close_code == CLOSE_RELOAD
            assert gapped.outbox.get_nowait() is None  # nothing after the gap reaches the browser
        finally:
            await owner.close()
            await node.close()

    asyncio.run(main())


def test_one_round_trip_closes_the_forwarded_sockets_whose_owner_moved_or_died(redis_url):
    async def main() -> None:
        node = RedisCluster(redis_url)
        other = aioredis.from_url(redis_url, decode_responses=True)
        forwarding = Forwarding(node, SimpleNamespace(serve_forwarded=None), SimpleNamespace(), ServerConfig())  # type: ignore[arg-type]
        conns = {name: Conn(account=None, owner=False) for name in ("stays", "moved", "dead", "gone")}
        try:
            await other.set(RedisCluster.alive_key("n-a"), "1")
            await other.set(RedisCluster.lease_key("table:t1"), "n-a:1")
            await other.set(RedisCluster.lease_key("table:t2"), "n-b:2")  # taken over by n-b
            await other.set(RedisCluster.lease_key("table:t3"), "n-c:1")  # n-c is not alive
            targets = {"stays": ("table:t1", "n-a"), "moved": ("table:t2", "n-a"),
                       "dead": ("table:t3", "n-c"), "gone": ("table:t4", "n-a")}  # t4: no owner
            for name, conn in conns.items():
                forwarding.local[name] = Forwarded(conn, *targets[name])
            await forwarding.watch_once()
            assert not conns["stays"].closed
            assert {name for name, c in conns.items() if c.close_code == CLOSE_RELOAD} == {"moved", "dead", "gone"}
        finally:
            await other.aclose()
            await node.close()

    asyncio.run(main())
