"""Online-play tests run on the server tests' databases (SQLite, and PostgreSQL in CI)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from tests.server.conftest import db_url, sqlite_url

__all__ = ["db_url", "sqlite_url"]


async def _forget_online(url: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            exists = await conn.run_sync(lambda c: c.dialect.has_table(c, "lobby_entries"))
            if not exists:
                return
            await conn.execute(text("DELETE FROM lobby_entries"))
            await conn.execute(
                text(
                    "DELETE FROM table_log WHERE table_id IN "
                    "(SELECT id FROM tables WHERE mode = 'online')"
                )
            )
            await conn.execute(text("DELETE FROM tables WHERE mode = 'online'"))
    finally:
        await engine.dispose()


@pytest.fixture(autouse=True)
def _a_clean_lobby(request: pytest.FixtureRequest) -> None:
    """The PostgreSQL database is shared by every test: each online test starts with no queue,
    no room and no online match of an earlier test (a server loads those at start)."""
    if "db_url" not in request.fixturenames:
        return
    url = request.getfixturevalue("db_url")
    if url.startswith("postgresql"):
        asyncio.run(_forget_online(url))
