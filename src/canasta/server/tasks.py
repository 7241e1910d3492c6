"""The server's background tasks: started by name, stopped together, jobs repeated forever."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

log = logging.getLogger("canasta.server")


def start_tasks(jobs: dict[str, Coroutine[Any, Any, None]]) -> list[asyncio.Task[None]]:
    """Each job as a task of the running loop, named by its key."""
    loop = asyncio.get_running_loop()
    return [loop.create_task(job, name=name) for name, job in jobs.items()]


async def stop_tasks(tasks: list[asyncio.Task[None]]) -> None:
    """Cancel background tasks and wait until they have ended."""
    for task in tasks:
        task.cancel()
    for task in tasks:
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task


async def repeat(
    seconds: float, job: Callable[[], Awaitable[object]], what: str, first: float | None = None
) -> None:
    """Run ``job`` every ``seconds``, forever (the first time after ``first`` seconds, if
    given): a failed run is logged (as ``what`` failed) and the next one comes all the same."""
    wait = seconds if first is None else first
    while True:
        await asyncio.sleep(wait)
        wait = seconds
        try:
            await job()
        except Exception:  # pragma: no cover - keep going
            log.exception("%s failed", what)
