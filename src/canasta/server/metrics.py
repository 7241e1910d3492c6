"""Prometheus metrics (``/metrics``) of one server process, with ``prometheus-client``.

Each app has a registry of its own (tests build many apps in one process).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

__all__ = ["CONTENT_TYPE_LATEST", "LAG_PROBE_SECONDS", "Metrics"]

LAG_PROBE_SECONDS = 0.25


class Metrics:
    """Live tables and sockets, handled messages, committed changes, refusals, and action
    latency."""

    def __init__(self, tables: Callable[[], float], sockets: Callable[[], float]) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        Gauge(
            "canasta_tables_live", "Tables held in memory", registry=self.registry
        ).set_function(tables)
        Gauge(
            "canasta_sockets_open", "Open table websockets", registry=self.registry
        ).set_function(sockets)
        self.messages = Counter(
            "canasta_messages", "Table messages handled, by type", ["type"], registry=self.registry
        )
        self.errors = Counter(
            "canasta_errors", "Refused table messages, by error code", ["code"], registry=self.registry
        )
        self.changes = Counter(
            "canasta_changes",
            "Table changes committed, by kind (action, next_hand, undo, settings ...)",
            ["kind"],
            registry=self.registry,
        )
        self.computer_moves = Counter(
            "canasta_computer_moves",
            "Computer seats' moves, by how they were chosen: forced (one legal action), worker "
            "(a worker process; the moves of a worker's run too, forced or not), loop (this "
            "process), first_legal (the player failed)",
            ["how"],
            registry=self.registry,
        )
        self.placed = Counter(
            "canasta_matches_placed", "New online matches started on another, less loaded node",
            registry=self.registry,
        )
        self.handed_over = Counter(
            "canasta_tables_handed_over",
            "Tables with nobody at them given to the node a returning player's socket reached",
            registry=self.registry,
        )
        self.action_seconds = Histogram(
            "canasta_action_seconds",
            "From a table taking up an action to its commit and the states queued",
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
            registry=self.registry,
        )

        self.loop_lag_seconds = Histogram(
            "canasta_loop_lag_seconds",
            "How late the event loop woke a task that slept 0.25 s: every table waits this long",
            buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
            registry=self.registry,
        )

        #: counts not yet added to the counters: every change counts two or three, and a
        #: prometheus-client counter takes a lock for each; they are added when the page is
        #: rendered (:meth:`flush`), so the page shows every count made before it
        self._pending: dict[tuple[Counter, str], int] = {}

    def count(self, counter: Counter, label: str) -> None:
        """Add one to ``counter`` (one of this registry's labelled counters) for ``label``."""
        key = (counter, label)
        pending = self._pending
        pending[key] = pending.get(key, 0) + 1

    def flush(self) -> None:
        """Add the counts made since the last flush to the counters."""
        pending, self._pending = self._pending, {}
        for (counter, label), n in pending.items():
            counter.labels(label).inc(n)

    async def probe_loop_lag(self) -> None:
        """Sleep a quarter second at a time, forever, and record how late each wake-up is:
        the time the loop spent on other work (or the process waited for a core)."""
        while True:
            asked = time.perf_counter() + LAG_PROBE_SECONDS
            await asyncio.sleep(LAG_PROBE_SECONDS)
            self.loop_lag_seconds.observe(max(0.0, time.perf_counter() - asked))

    def render(self) -> bytes:
        self.flush()
        return bytes(generate_latest(self.registry))
