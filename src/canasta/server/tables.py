"""The set of live tables: created on request, reloaded from the database on first use."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time

from ..rules import Settings
from .db import Store
from .table import Table

log = logging.getLogger("canasta.server")

#: a table nobody has asked for in this long is dropped from memory (it stays in the database)
IDLE_SECONDS = 30 * 60
SWEEP_SECONDS = 5 * 60


class Tables:
    """Live tables by id; each runs its own worker task."""

    def __init__(self, store: Store, bot_delay_ms: int) -> None:
        self.store = store
        self.bot_delay_ms = bot_delay_ms
        self._live: dict[str, Table] = {}
        self._used: dict[str, float] = {}
        self._lock = asyncio.Lock()
        self._sweeper: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._sweeper = asyncio.get_running_loop().create_task(
            self._sweep_forever(), name="table-sweeper"
        )

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
            self._used[table.id] = time.monotonic()
            table.start()
        return table

    async def get(self, table_id: str) -> Table | None:
        """The live table, reloading it (replaying its record) after a restart."""
        async with self._lock:
            self._used[table_id] = time.monotonic()
            table = self._live.get(table_id)
            if table is not None:
                return table
            row = await self.store.load_table(table_id)
            if row is None:
                self._used.pop(table_id, None)
                return None
            try:
                table = Table.from_row(row, self.store)
            except Exception:  # a record the core no longer replays: report it, serve the others
                log.exception("table %s: its record does not replay", table_id)
                self._used.pop(table_id, None)
                return None
            self._live[table_id] = table
            table.start()
            return table

    async def sweep(self, idle_seconds: float = IDLE_SECONDS) -> int:
        """Drop tables with no socket that nobody asked for lately; returns how many."""
        now = time.monotonic()
        async with self._lock:
            idle = [
                t
                for tid, t in self._live.items()
                if not t.conns
                and t.queue.empty()
                and now - self._used.get(tid, now) >= idle_seconds
            ]
            for t in idle:
                del self._live[t.id]
                self._used.pop(t.id, None)
        for t in idle:
            await t.stop()
        return len(idle)

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            try:
                await self.sweep()
            except Exception:  # pragma: no cover - keep sweeping
                log.exception("table sweep failed")

    def __contains__(self, table_id: str) -> bool:
        return table_id in self._live

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        async with self._lock:
            tables = list(self._live.values())
            self._live.clear()
        for table in tables:
            await table.stop()
