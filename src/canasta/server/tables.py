"""The set of live tables: created on request, reloaded from the database on first use."""

from __future__ import annotations

import asyncio
import secrets

from ..rules import Settings
from .db import Store
from .table import Table


class Tables:
    """Live tables by id; each runs its own worker task."""

    def __init__(self, store: Store, bot_delay_ms: int) -> None:
        self.store = store
        self.bot_delay_ms = bot_delay_ms
        self._live: dict[str, Table] = {}
        self._lock = asyncio.Lock()

    async def create(
        self,
        *,
        profile: str | None,
        mode: str,
        settings: Settings,
        difficulty: str,
        seed: int | None = None,
    ) -> Table:
        table = Table.create(
            table_id=secrets.token_urlsafe(12),
            profile=profile,
            mode=mode,
            settings=settings,
            difficulty=difficulty,
            store=self.store,
            delay_ms=self.bot_delay_ms,
            seed=seed,
        )
        await self.store.save_table(table.row_values())
        async with self._lock:
            self._live[table.id] = table
            table.start()
        return table

    async def get(self, table_id: str) -> Table | None:
        """The live table, reloading it (replaying its record) after a restart."""
        async with self._lock:
            table = self._live.get(table_id)
            if table is not None:
                return table
            row = await self.store.load_table(table_id)
            if row is None:
                return None
            table = Table.from_row(row, self.store)
            self._live[table_id] = table
            table.start()
            return table

    async def close(self) -> None:
        async with self._lock:
            tables = list(self._live.values())
            self._live.clear()
        for table in tables:
            await table.stop()
