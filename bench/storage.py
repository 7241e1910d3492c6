"""Storage probe: what saving one change costs early in a match and a thousand changes later.

    python bench/storage.py [--changes 1000] [--db URL] [--json]

Plays a pass-and-play table by random legal actions (the next hand dealt when one ends) and
times each commit of a change: the append-only log (one row per change, the record rewritten only
when a hand ends) against rewriting the whole record with every change, as the previous release
did. Prints medians (ms) over the first and the last 50 changes. Uses a temporary SQLite file
unless ``--db`` names a database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from canasta import Settings  # noqa: E402
from canasta.server.db import Store  # noqa: E402
from canasta.server.table import Table  # noqa: E402


async def run(url: str, changes: int, seed: int) -> dict[str, object]:
    store = Store(url)
    await store.migrate()
    rng = random.Random(seed)
    log_ms: list[float] = []
    full_ms: list[float] = []
    record_kb: list[float] = []
    try:
        table = Table.create(
            table_id=f"bench-{seed}-{time.time_ns()}",
            profile="bench",
            mode="local",
            settings=Settings.preset("classic", target=5000),
            difficulty="normal",
            store=store,
            delay_ms=0,
            seed=seed,
        )
        await store.save_table(table.row_values())
        table.mark_saved()
        twin = f"{table.id}-full"  # the same match saved the old way, in a row of its own
        await store.save_table({**table.row_values(), "id": twin})
        for _ in range(changes):
            game = table.game
            if game.is_over:  # random play rarely reaches 5000; stop if it does
                break
            if game.state.is_over:
                game.next_hand()
                change = "next_hand"
            else:
                game.apply(rng.choice(game.state.legal_actions()))
                change = "action"
            t0 = time.perf_counter()
            await table._changed(change)
            t1 = time.perf_counter()
            values = {**table.row_values(), "id": twin}
            await store.save_table(values, expected_version=table.version - 1)
            t2 = time.perf_counter()
            log_ms.append((t1 - t0) * 1000)
            full_ms.append((t2 - t1) * 1000)
            record_kb.append(len(json.dumps(values["record"])) / 1024)
    finally:
        await store.dispose()

    def med(xs: list[float]) -> float:
        return round(statistics.median(xs), 3)

    return {
        "changes": len(log_ms),
        "db": url.split("://", 1)[0],
        "log_first50_ms": med(log_ms[:50]),
        "log_last50_ms": med(log_ms[-50:]),
        "full_record_first50_ms": med(full_ms[:50]),
        "full_record_last50_ms": med(full_ms[-50:]),
        "record_kb_first": round(record_kb[0], 1),
        "record_kb_last": round(record_kb[-1], 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--changes", type=int, default=1000)
    p.add_argument("--db", default=None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if not 100 <= args.changes <= 20_000:
        p.error("--changes is 100..20000")
    with tempfile.TemporaryDirectory() as tmp:
        url = args.db or f"sqlite+aiosqlite:///{Path(tmp) / 'storage.sqlite3'}"
        figures = asyncio.run(run(url, args.changes, args.seed))
    print(json.dumps(figures, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
