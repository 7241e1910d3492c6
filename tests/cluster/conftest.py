"""Several-node tests: real server processes on one PostgreSQL database and one Redis.

CI (``.ci/run``) starts both and sets ``CANASTA_TEST_PG_URL`` and ``CANASTA_TEST_REDIS_URL``;
without them the tests that need them are skipped. Each test gets a database of its own (so
no other test's online matches are loaded) and an emptied Redis database.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator

import pytest

PG_URL = os.environ.get("CANASTA_TEST_PG_URL")
REDIS_URL = os.environ.get("CANASTA_TEST_REDIS_URL")


@pytest.fixture
def cluster_urls() -> Iterator[tuple[str, str]]:
    """(database URL, Redis URL) of a fresh PostgreSQL database and an empty Redis db."""
    if not PG_URL or not REDIS_URL:
        pytest.skip("CANASTA_TEST_PG_URL and CANASTA_TEST_REDIS_URL are not set")
    import asyncpg
    import redis

    name = f"canasta_nodes_{secrets.token_hex(4)}"
    base = PG_URL.replace("postgresql+asyncpg://", "postgresql://")
    admin = base.rsplit("/", 1)[0] + "/postgres"

    async def ddl(sql: str) -> None:
        conn = await asyncpg.connect(admin)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(ddl(f'CREATE DATABASE "{name}"'))
    redis_url = REDIS_URL.rsplit("/", 1)[0] + "/7"
    r = redis.Redis.from_url(redis_url)
    r.flushdb()
    try:
        yield base.rsplit("/", 1)[0] + f"/{name}", redis_url
    finally:
        r.flushdb()
        r.close()
        asyncio.run(ddl(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@pytest.fixture
def redis_url() -> Iterator[str]:
    """An emptied Redis database (no PostgreSQL needed)."""
    if not REDIS_URL:
        pytest.skip("CANASTA_TEST_REDIS_URL is not set")
    import redis

    url = REDIS_URL.rsplit("/", 1)[0] + "/6"
    r = redis.Redis.from_url(url)
    r.flushdb()
    try:
        yield url
    finally:
        r.flushdb()
        r.close()
