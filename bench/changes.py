"""The event loop's CPU per change and per human action, in one process, without sockets.

    python bench/changes.py [--tables 1000] [--bot-delay-ms 150] [--seconds 20] [--json]

``bench/load.py`` measures a whole node, sockets, the client processes and the machine's
other work included, and its figure moves by 10% from one half hour to the next on a shared
machine. This probe takes only the part the node's event loop does for a change: the same
tables as the load probe's (one person and three Normal computer seats, their moves chosen by a
computer worker process, as a node does), driven on one event loop in this process, committed
to a SQLite file, each state message built, encoded and framed as the server frames it for the person's
socket; the frame's bytes go nowhere, so the socket's system calls and the network are left
out. The person plays the load probe's way,
as soon as it is its turn, with the core choosing from the legal actions.

The figure is the event loop thread's CPU time (``time.thread_time``) over the run, per change
and per person's action; the SQLite driver's thread and the worker process are not in it. Run
it for two versions of the code alternately (``PYTHONPATH=...``) to compare them: runs of the
same code differ by about 1–2%.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent.parent / "src"))  # after PYTHONPATH: compare versions

from websockets.protocol import State as WsState  # noqa: E402
from websockets.server import ServerProtocol  # noqa: E402

from canasta import Settings  # noqa: E402
from canasta.actions import action_to_json  # noqa: E402
from canasta.server.config import ServerConfig  # noqa: E402
from canasta.server.conn import Conn  # noqa: E402
from canasta.server.db import Store  # noqa: E402
from canasta.server.runtime import tune_gc  # noqa: E402
from canasta.server.table import Table  # noqa: E402
from canasta.server.thinkers import Thinkers  # noqa: E402
from canasta.server.transport import COMPRESS_FROM, text_frame  # noqa: E402


class _Socket:
    """A person's socket: its messages framed as a server's websocket frames, then dropped;
    wakes its player on each message."""

    def __init__(self) -> None:
        self.protocol = ServerProtocol()
        self.protocol.state = WsState.OPEN
        self.messages = 0
        self.errors = 0
        self.woken = asyncio.Event()

    def send_now(self, text: str) -> bool:  # as the served socket's (server/transport.py)
        data = text.encode()
        if len(data) < COMPRESS_FROM:
            text_frame(data)
        else:
            self.protocol.send_text(data)
            self.protocol.data_to_send()
        self.messages += 1
        self.errors += text.startswith('{"type":"error"')
        self.woken.set()
        return True


def _pick(legal: list[Any], rng: random.Random) -> Any:
    """The load probe's person (``bench/load.py``'s ``pick``) on the core's actions."""
    out = [a for a in legal if a.kind == "meld" and getattr(a, "discard", None) is not None]
    if out:
        return out[0]
    for kinds, p in ((("take",), 0.5), (("meld",), 0.5), (("answer",), 1.0), (("draw",), 1.0)):
        options = [a for a in legal if a.kind in kinds]
        if options and rng.random() < p:
            return rng.choice(options)
    return rng.choice(legal)


async def _person(table: Table, conn: Conn, socket: _Socket, until: float, rng: random.Random, out: dict[str, int]) -> None:
    acted_at = -1
    ready_for = -1
    while time.monotonic() < until:
        await socket.woken.wait()
        socket.woken.clear()
        game = table.game
        st = game.state
        if st.is_over:
            if game.is_over:
                message = {"type": "new_match"}
            elif ready_for != len(game.hands):
                ready_for = len(game.hands)
                message = {"type": "next_hand"}
            else:
                continue
        elif st.turn == 0 and table.version > acted_at:
            acted_at = table.version
            action = _pick(st.legal_actions(), rng)
            message = {"type": "action", "version": table.version, "action": action_to_json(action)}
            out["actions"] += 1
        else:
            continue
        await table.submit(conn, json.dumps(message))


async def run(tables: int, seconds: float, seed: int, db: str, delay_ms: int) -> dict[str, Any]:
    store = Store(db)
    await store.migrate()
    thinkers = Thinkers(1)
    rng = random.Random(seed)
    live: list[tuple[Table, Conn, _Socket]] = []
    for k in range(tables):
        table = Table.create(
            table_id=f"changes-{seed}-{k}",
            profile="person",
            mode="computer",
            settings=Settings.preset("classic"),
            difficulty="normal",
            store=store,
            delay_ms=delay_ms,
            config=ServerConfig(min_bot_delay_ms=0),
        )
        await store.save_table(table.row_values())
        table.mark_saved()
        table.thinkers = thinkers
        conn = Conn(account="person", owner=True, rate=1e9, burst=10**9)
        conn.state_patch = conn.history_delta = True
        socket = _Socket()
        conn.send_now = socket.send_now
        live.append((table, conn, socket))
    out = {"actions": 0}
    # each socket's writer, waiting for a message as a served socket's does: the table then
    # writes each state at once (see Conn.send); nothing is ever queued for them
    writers = [asyncio.ensure_future(conn.outbox.get()) for _, conn, _ in live]
    tune_gc()  # as a serving process does
    try:
        for table, conn, _ in live:
            table.start()
            table.join(conn)
        await asyncio.sleep(3)  # the worker starts, every table deals and plays its first turns
        changes0 = sum(t.seq for t, _, _ in live)
        actions0 = out["actions"]
        cpu0, wall0 = time.thread_time(), time.monotonic()
        until = wall0 + seconds
        players = [
            asyncio.ensure_future(_person(t, c, s, until, random.Random(rng.random()), out))
            for t, c, s in live
        ]
        # the first state of each table wakes its player
        for _, _, socket in live:
            socket.woken.set()
        await asyncio.wait(players, timeout=seconds + 5)
        cpu, wall = time.thread_time() - cpu0, time.monotonic() - wall0
        changes = sum(t.seq for t, _, _ in live) - changes0
        actions = out["actions"] - actions0
    finally:
        for writer in writers:
            writer.cancel()
        for table, _, _ in live:
            await table.stop()
        await thinkers.close()
        await store.dispose()
    return {
        "tables": tables,
        "seconds": round(wall, 1),
        "human_actions": actions,
        "changes": changes,
        "changes_per_action": round(changes / max(actions, 1), 2),
        "loop_cpu_pct": round(100 * cpu / wall, 1),
        "loop_us_per_change": round(1e6 * cpu / max(changes, 1), 1),
        "loop_us_per_action": round(1e6 * cpu / max(actions, 1), 1),
        "errors": sum(s.errors for _, _, s in live),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--tables", type=int, default=1000)
    p.add_argument("--bot-delay-ms", type=int, default=150)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if not 1 <= args.tables <= 5000 or not 1 <= args.seconds <= 600:
        p.error("--tables is 1..5000 and --seconds 1..600")
    try:
        from uvloop import run as loop_run  # as the server runs
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        loop_run = asyncio.run
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite+aiosqlite:///{Path(tmp) / 'changes.sqlite3'}"
        figures = loop_run(run(args.tables, args.seconds, args.seed, db, args.bot_delay_ms))
    print(json.dumps(figures, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
