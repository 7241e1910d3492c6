"""Computer seats that think in worker processes (``canasta.bots.worker``), off the event loop.

Choosing a move is the one piece of a table's work that needs nothing from the event loop but
the position: in a process of its own it runs on another core, while the loop serves sockets
and commits. Each table is served by one worker (chosen by its id), which keeps a copy of the
match; a request carries the actions played since the last one (a new hand among them, which
the copy deals itself; the whole record when the copy may be stale: an undo, a reload, a
restarted worker), the seat, its level and its seed. The table asks as soon as a computer seat is to move, so the worker thinks while the
seat's pace delay runs. For a quick seat (Beginner, Normal) the worker also plays on, on a
copy, while quick computer seats are to move, and answers those moves too (the seats' run up
to a person's turn): the table plays them one by one at the seats' pace and asks again only
when the game goes elsewhere or the run ends (``Table._planned``).

The answer is a proposal: the table applies it through the core, which refuses anything
illegal, and a worker that fails or dies only sends the table back to choosing on the event
loop, as it did without workers (``Table._choose``). A dead worker is started again on a later
request (at most once every :data:`RESTART_SECONDS`).

Load and floods: a table asks once per position (a change that leaves the position alone, a
pause or a resume, asks nothing again), and a worker that finds several requests of one table
waiting chooses only for the last; it answers the quick levels' moves (Beginner's, Normal's)
before the searches waiting with them, so one account's many Expert tables hold up no other
table's Normal seats (``canasta.bots.worker.serve``). Each request has a deadline (the seat's pace, its search,
and a margin): past it the request is answered ``late`` and the table plays without it (a
searching seat plays its guide's quick move rather than search on the event loop). A worker is
stopped only when it has answered nothing for ``timeout`` seconds while requests wait: busy
is not hung.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .encoding import dumps_bytes, loads

log = logging.getLogger("canasta.server")

__all__ = ["RESTART_SECONDS", "Thinkers", "default_processes"]

#: the least time between two starts of one worker (a worker that dies at once must not be
#: started again on every move)
RESTART_SECONDS = 5.0

#: the command a worker runs (``-c``: a compiled build has no source module to run with ``-m``)
_COMMAND = "from canasta.bots.worker import main; main()"


def default_processes() -> int:
    """Worker processes for a server that does not say: one per core it may run on but the
    event loop's, at most four (none on a single core, where they would only take turns with
    the loop)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = os.cpu_count() or 1
    return max(0, min(4, cores - 1))


def _gone(why: str) -> dict[str, Any]:
    return {"error": "gone", "message": why}


@dataclass(slots=True, eq=False)
class _Pending:
    future: asyncio.Future[dict[str, Any]]
    #: when the table stops waiting for it (then answered ``late``)
    deadline: float
    #: the process it was written to (None while it waits for the process to start)
    proc: asyncio.subprocess.Process | None
    written: float


class _Worker:
    """One worker process and the requests it has not answered yet."""

    def __init__(self, index: int) -> None:
        self.index = index
        #: a new number each time the process is started: its copies of the matches are new
        self.generation = 0
        self.proc: asyncio.subprocess.Process | None = None
        self.pending: dict[int, _Pending] = {}
        self.reader: asyncio.Task[None] | None = None
        self.starting: asyncio.Task[None] | None = None
        #: requests written before the process was up: sent once it is
        self.backlog: list[tuple[int, bytes]] = []
        self.started_at = -RESTART_SECONDS
        #: when the process last answered (a worker that answers is busy, not hung)
        self.answered_at = 0.0

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None and self.starting is None


class Thinkers:
    """``processes`` worker processes for the computer seats of this server's tables."""

    def __init__(self, processes: int, *, timeout: float = 30.0) -> None:
        if processes < 1:
            raise ValueError("a pool of thinkers needs at least one process")
        self.timeout = timeout
        self._workers = [_Worker(i) for i in range(processes)]
        self._ids = 0
        self._closed = False
        self._watch: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._workers)

    def worker_for(self, table_id: str) -> int:
        """The worker that serves ``table_id`` (always the same one: it keeps the copy)."""
        return zlib.crc32(table_id.encode()) % len(self._workers)

    def generation(self, index: int) -> int:
        """The number of the process a request to worker ``index`` reaches now (the next one
        when it is not running: a request starts it)."""
        worker = self._workers[index]
        return worker.generation + (0 if worker.running else 1)

    def ask(self, index: int, request: dict[str, Any], wait: float | None = None) -> asyncio.Future[dict[str, Any]]:
        """Send ``request`` to worker ``index``; the future gets its answer (never an
        exception: ``{"error": "gone", ...}`` when the worker cannot answer, ``{"error":
        "late"}`` when it has not answered within ``wait`` seconds, by default ``timeout``)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        worker = self._workers[index]
        if self._closed:
            future.set_result(_gone("the server is stopping"))
            return future
        if not worker.running and worker.starting is None:
            if time.monotonic() - worker.started_at < RESTART_SECONDS:
                future.set_result(_gone(f"worker {index} is down"))
                return future
            worker.starting = loop.create_task(self._start(worker), name=f"thinker-{index}-start")
        self._ids += 1
        rid = self._ids
        line = dumps_bytes({**request, "id": rid}) + b"\n"
        now = time.monotonic()
        pending = _Pending(future, now + (self.timeout if wait is None else wait), None, now)
        worker.pending[rid] = pending
        if worker.starting is not None:
            worker.backlog.append((rid, line))
        else:
            assert worker.proc is not None and worker.proc.stdin is not None
            pending.proc = worker.proc
            worker.proc.stdin.write(line)
        if self._watch is None:
            self._watch = loop.create_task(self._watch_forever(), name="thinkers-watch")
        return future

    def forget(self, table_id: str) -> None:
        """Let the table's worker drop its copy (the table is unloaded)."""
        worker = self._workers[self.worker_for(table_id)]
        if worker.running:
            assert worker.proc is not None and worker.proc.stdin is not None
            worker.proc.stdin.write(dumps_bytes({"forget": table_id}) + b"\n")

    async def close(self) -> None:
        """Stop every worker (each ends when its input does; killed after a few seconds)."""
        self._closed = True
        if self._watch is not None:
            self._watch.cancel()
        for worker in self._workers:
            if worker.starting is not None:
                worker.starting.cancel()
                with contextlib.suppress(BaseException):
                    await worker.starting
                worker.starting = None
            await self._stop(worker, "the server is stopping", wait=True)

    # ------------------------------------------------------------------ the processes

    async def _start(self, worker: _Worker) -> None:
        worker.started_at = time.monotonic()
        # the worker imports the very package this server runs (a compiled build included)
        root = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                _COMMAND,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                env=env,
                limit=1 << 20,
            )
        except Exception:
            log.exception("could not start computer worker %d", worker.index)
            worker.starting = None
            self._fail(worker, "it could not be started")
            return
        worker.proc = proc
        worker.generation += 1
        worker.starting = None
        worker.answered_at = time.monotonic()
        assert proc.stdin is not None
        for rid, line in worker.backlog:
            waiting = worker.pending.get(rid)
            if waiting is not None:
                waiting.proc = proc
                waiting.written = worker.answered_at
                proc.stdin.write(line)
        worker.backlog.clear()
        worker.reader = asyncio.get_running_loop().create_task(
            self._read(worker, proc), name=f"thinker-{worker.index}-read"
        )
        log.info("computer worker %d started (pid %d)", worker.index, proc.pid)

    async def _read(self, worker: _Worker, proc: asyncio.subprocess.Process) -> None:
        assert proc.stdout is not None
        try:
            while True:
                line = await proc.stdout.readline()
                if not line:
                    break
                worker.answered_at = time.monotonic()
                answer = loads(line)
                waiting = worker.pending.pop(answer.get("id"), None)
                if waiting is not None and not waiting.future.done():
                    waiting.future.set_result(answer)
        except Exception:  # pragma: no cover - a worker writing garbage is stopped
            log.exception("computer worker %d sent an unreadable answer", worker.index)
        if worker.proc is proc:
            worker.reader = None
            await self._stop(worker, "it stopped")
        else:  # another process already took its place: what this one held is lost
            self._fail(worker, "it stopped", proc)

    async def _stop(self, worker: _Worker, why: str, *, wait: bool = False) -> None:
        proc, worker.proc = worker.proc, None
        self._fail(worker, why)
        if proc is None:
            return
        if worker.reader is not None:
            worker.reader.cancel()
            worker.reader = None
        if proc.returncode is None:
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                await asyncio.wait_for(proc.wait(), timeout=3 if wait else 0.5)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                    proc.kill()
                await proc.wait()
        if not self._closed:
            log.warning("computer worker %d: %s (exit %s)", worker.index, why, proc.returncode)

    def _fail(self, worker: _Worker, why: str, proc: asyncio.subprocess.Process | None = None) -> None:
        """Answer ``gone`` to the worker's requests (only those written to ``proc``, if given)."""
        if proc is None:
            failed, worker.pending = worker.pending, {}
            worker.backlog.clear()
        else:
            failed = {rid: p for rid, p in worker.pending.items() if p.proc is proc}
            for rid in failed:
                del worker.pending[rid]
        for waiting in failed.values():
            if not waiting.future.done():
                waiting.future.set_result(_gone(f"computer worker {worker.index}: {why}"))

    async def _watch_forever(self) -> None:
        """Once a second: a request past its deadline is answered ``late`` (its table chooses
        without it), and a worker that has answered nothing for ``timeout`` seconds while
        requests wait is stopped (a busy worker answers; a hung one does not)."""
        while True:
            await asyncio.sleep(1.0)
            try:
                await self._watch_once(time.monotonic())
            except Exception:  # pragma: no cover - the watch must go on
                log.exception("computer workers' watch failed")

    async def _watch_once(self, now: float) -> None:
        for worker in self._workers:
            for waiting in worker.pending.values():
                if now > waiting.deadline and not waiting.future.done():
                    waiting.future.set_result({"error": "late", "message": "no answer in time"})
            written = [p.written for p in worker.pending.values() if p.proc is worker.proc]
            if worker.proc is not None and written:
                quiet = now - max(worker.answered_at, min(written))
                if quiet > self.timeout:
                    await self._stop(worker, f"no answer in {self.timeout:.0f} s")
