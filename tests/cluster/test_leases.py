"""Leases in Redis (docs/deploy.md): a node renews every lease it holds each beat, in one
round trip however many tables it owns, and gives up only the ones another node took."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from canasta.server.cluster import LEASE_SECONDS, RedisCluster


def test_one_renewal_keeps_hundreds_of_leases_and_drops_only_the_lost_one(cluster_urls):
    _, redis_url = cluster_urls

    async def main() -> None:
        lost: list[str] = []
        node = RedisCluster(redis_url, on_lost=lost.append)
        other = aioredis.from_url(redis_url, decode_responses=True)
        try:
            resources = [f"table:t{i}" for i in range(600)]
            for r in resources:
                assert await node.acquire(r)
            # every lease is about to lapse (2 s left); one was taken by another node meanwhile
            async with other.pipeline(transaction=False) as pipe:
                for r in resources:
                    pipe.pexpire(node.lease_key(r), 2000)
                await pipe.execute()
            await other.set(node.lease_key("table:t7"), "n-other:99")
            await node.renew()
            assert lost == ["table:t7"]
            assert not node.owns("table:t7") and node.owns("table:t6")
            async with other.pipeline(transaction=False) as pipe:
                for r in resources:
                    if r != "table:t7":
                        pipe.pttl(node.lease_key(r))
                ttls = await pipe.execute()
            assert min(ttls) > 2000 + 1000  # renewed to the full lease (5 s), not left at 2 s
            assert await other.pttl(node.alive_key(node.node)) > LEASE_SECONDS * 1000 - 2000
            assert await node.owner("table:t7") == "n-other"
            # a lease this node released is not reported lost
            await node.release("table:t8")
            await node.renew()
            assert lost == ["table:t7"]
        finally:
            await other.aclose()
            await node.redis.aclose()

    asyncio.run(main())
