"""Load probe: many four-player tables, a scripted human at each, Normal computer seats.

    python bench/load.py --tables N --think SECONDS [--seconds 30] [--db URL]
                         [--nodes K --redis URL] [--humans K] [--json]

Starts one server (uvicorn, the production limits except the per-address ones, since every
simulated browser here shares 127.0.0.1) on 127.0.0.1 with a temporary SQLite file unless
``--db`` names a database, opens N computer-mode tables (one session and one socket each), and
for ``--seconds`` lets each scripted human act ``--think`` seconds after its turn comes. It
times every human action from sending it to receiving the state it produced (the reply that
echoes the action's request id, as the page matches its replies; an error reply to it is
counted as an error, untimed), then stops
everything and prints one JSON object: tables, nodes, actions_per_s, p50_ms, p95_ms, p99_ms,
errors, rss_mb_per_table, and changes_per_s (the table changes committed: the human's actions, the
computer seats' and the rest). Everything is bounded in count and time and runs on loopback.

The simulated browsers run in ``--clients`` processes of their own (the tables split among
them), so the probe is not limited by one client process: the JSON reports the CPU the
generator used (``client_cpu_pct``, percent of one core over the run, all its processes) and
the server's (``server_cpu_pct`` per node, and ``server_cpu_ms_per_action``), so a reader can
judge which side was the limit on a machine where both share the cores. ``server_loop_lag_p99_ms``
(per node, from the ``canasta_loop_lag_seconds`` metric over the run window, as a bucket bound)
says how late each node's event loop ran: a small lag beside a large round trip means the time
went elsewhere (the generator, or waiting for a core).

The generator's processes run at ``--client-nice`` (10 by default; ``client_nice`` in the JSON):
they stand in for browsers on other machines, and on a machine with few cores they would
otherwise take CPU from the node they measure. The node (the server and its workers) keeps its
priority. ``--client-nice 0`` runs them as the probe did before 5 Dec 2026.

A node chooses its computer seats' moves in worker processes of its own (``--computer-processes``,
by default the server's: one per core but one): ``computer_cpu_pct`` is their CPU (per node, the
workers alive at the end), ``computer_rss_mb`` their memory, and ``node_cpu_ms_per_action`` the
server's and its workers' CPU together per human action. ``--difficulty`` sets the computer
seats' level (Normal by default).

With ``--nodes K`` (K > 1) it starts K server processes on one database (``--db``, a PostgreSQL
URL) and one Redis (``--redis``): each table is created through node ``i % K`` and its browser
connects to a node drawn at random, as behind a load balancer with no sticky sessions. Since 6
Dec 2026 (fifth session) a table made through the API runs on the node its first socket
reaches, so these sockets are no longer forwarded (before, about (K-1)/K of them were).

``--humans K`` (1 by default) sets the people per table. With 1, each table is a match against
the computer made by its page's ``POST /api/tables`` (three computer seats, which move at the
server's floor, ``--bot-delay-ms``). With 2 to 4, each table is an online match its people make
as browsers do: one opens a private room on the lobby socket, the others join it by its code,
the host seats computer players in the other seats (which move at the server's online pace)
and starts it; every person has a session and a table socket of their own, and every change is
sent to each of them. ``humans_per_table`` in the JSON says which; ``actions_per_s`` counts every
person's actions. With no think time and few tables, an online table plays faster than the
per-socket message limit allows (10 a second), and its sockets are closed with 1008: use enough
tables that each one's people act about once a second. The rooms are all made before the
browsers connect (``setup_s`` in the JSON), and a match's clocks run from its start: when that
takes more than a person's grace to connect (20 s), the server plays the first seats for them.

``--warmup W`` lets the browsers connect and play for W seconds before the counted window of
``--seconds`` begins (``warmup_s`` in the JSON; 0 by default, as before); errors count from
the start, the warm-up's too. Several nodes load
their tables when the first sockets arrive, so their runs are compared with one node's after
a warm-up, both past their tables' first states.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import multiprocessing
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from flood import ServerProcess, rss_mb  # noqa: E402

SERVER = """
import sys, uvicorn
from canasta.server import ServerConfig, create_app
from canasta.server.runtime import tune_gc
from canasta.server.transport import uvicorn_options
n = 10**6
redis = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
config = ServerConfig(
    tables_per_minute_per_address=n, sessions_per_minute_per_address=n,
    sockets_per_address=n, socket_opens_per_minute_per_address=n, rooms_per_address=n,
    min_bot_delay_ms=int(sys.argv[3]), live_tables=20000,
    redis_url=redis, single_node=redis is None,
    rate_shared_networks=True,  # the simulated browsers stand in for many machines
    computer_processes=int(sys.argv[5]) if len(sys.argv) > 5 and sys.argv[5] else None,
)
app = create_app(sys.argv[1], bot_delay_ms=int(sys.argv[3]), config=config)
tune_gc()  # as canasta serve does
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="error", access_log=False,
            **uvicorn_options(config))
"""


def load_server(
    db: str, bot_delay_ms: int, redis: str | None = None, computer_processes: int | None = None
) -> ServerProcess:
    """A server for the probe; ``computer_processes``: its computer workers (None: the
    server's default)."""
    extra = "" if computer_processes is None else str(computer_processes)
    return ServerProcess(db, SERVER, (str(bot_delay_ms), redis or "", extra))


try:  # the generator decodes every message: the fast decoder when it is installed
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - orjson comes with the server's dependencies
    from json import loads as _loads


def pick(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A plausible human choice: go out if listed, else take or meld sometimes, else draw."""
    out = [a for a in legal if a["type"] == "meld" and a.get("discard")]
    if out:
        return out[0]
    for kinds, p in ((("take",), 0.5), (("meld",), 0.5), (("answer",), 1.0), (("draw",), 1.0)):
        options = [a for a in legal if a["type"] in kinds]
        if options and rng.random() < p:
            return rng.choice(options)
    return rng.choice(legal)


def _count_error(out: dict[str, Any], code: str) -> None:
    out["errors"] += 1
    out["codes"][code] = out["codes"].get(code, 0) + 1


async def _play(
    ws: Any, think: float, since: float, until: float, rng: random.Random, out: dict[str, Any]
) -> None:
    """Answer the table's states as a browser's player would, until ``until``; the actions
    sent from ``since`` on are counted."""
    sent_at: float | None = None
    sent_version = -1
    # as the page does, each action carries a request id, which the server's reply to it
    # (its state, or an error) echoes: the round trip ends at that reply, not at a guess
    request = 0
    held: dict[str, Any] | None = None  # the last state, which a patch applies to
    ready_for = None  # the finished hand this player asked for the next one after
    while time.time() < until:
        raw = await ws.recv()
        msg = _loads(raw)
        if msg["type"] == "error":
            answers_action = sent_version >= 0 and msg.get("request") == request
            if msg["code"] != "stale_version":
                _count_error(out, msg["code"])
                ready_for = None
                await ws.send('{"type":"sync"}')  # the state again, to act on
            elif not answers_action:  # a stale version answers only an action
                _count_error(out, "stale_version_unasked")
            if answers_action:
                sent_at = None
                sent_version = -1  # the next state may be acted on again
            continue
        if msg["type"] != "state":
            continue
        if "base" in msg:  # a patch: the entries that changed since the state held
            if held is None or held["sid"] != msg["base"]:
                if held is not None:  # once: the patches already under way are dropped
                    _count_error(out, "patch_base")
                    await ws.send('{"type":"sync"}')
                held = None
                continue
            msg["view"] = {**held["view"], **msg["view"]}
            msg["table"] = {**held["table"], **msg["table"]}
        held = msg
        if sent_version >= 0 and msg.get("request") == request:  # the action's own state
            if sent_at is not None:
                out["times"].append((time.perf_counter() - sent_at) * 1000)
                out["actions"] += 1
            sent_at = None
        view = msg["view"]
        if view["phase"] == "over":
            if not msg["table"]["match"]["over"]:
                # once a hand, as the page's button (online: this player is ready for the next;
                # the others' readiness comes as states of the same finished hand)
                if ready_for != view["hand_number"]:
                    ready_for = view["hand_number"]
                    await ws.send('{"type":"next_hand"}')
            elif msg["table"]["mode"] != "online":  # an online match over: its players leave
                ready_for = None
                await ws.send('{"type":"new_match"}')
            continue
        # one action at a time, as the page sends: a state of the version acted on (another
        # player's presence or readiness) waits for the action's answer
        if (
            view["seat"] is not None
            and view["turn"] == view["seat"]
            and view["legal"]
            and msg["version"] > sent_version
        ):
            if think > 0:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            if time.time() >= until:
                break
            action = pick(view["legal"], rng)
            sent_version = msg["version"]
            sent_at = time.perf_counter() if time.time() >= since else None
            request += 1
            await ws.send(
                json.dumps({"type": "action", "version": sent_version, "action": action, "request": request})
            )


async def _human(
    url: str, cookie: str, think: float, since: float, until: float, rng: random.Random,
    out: dict[str, Any],
) -> None:
    from websockets.asyncio.client import connect

    try:
        async with connect(url, additional_headers={"Cookie": cookie}, max_size=None) as ws:
            # one deadline for the whole run (a timeout per message would cost the probe a
            # task and a timer handle for each)
            deadline = asyncio.get_running_loop().time() + max(0.05, until - time.time())
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(deadline):
                    await _play(ws, think, since, until, rng, out)
    except Exception as e:  # a dropped socket is an error of the run, not of the probe
        received = getattr(e, "rcvd", None)  # a closed socket: with the server's close code
        code = getattr(received, "code", None)
        _count_error(out, type(e).__name__ if code is None else f"{type(e).__name__}:{code}")


async def _lobby_until(ws: Any, kind: str) -> dict[str, Any]:
    """The next lobby message of type ``kind`` (an error message fails the set-up)."""
    while True:
        msg = _loads(await ws.recv())
        if msg["type"] == "error":
            raise RuntimeError(f"lobby: {msg['code']}: {msg.get('message')}")
        if msg["type"] == kind:
            return dict(msg)


async def _room_match(
    lobby_urls: list[str], cookies: list[str], difficulty: str, preset: str, target: int
) -> str:
    """One online table as its players make it: the first browser opens a private room, the
    others join it by its code, the host seats computer players in the rest and starts the
    match; returns the table every browser is sent."""
    from websockets.asyncio.client import connect

    async with contextlib.AsyncExitStack() as stack:
        socks = [
            await stack.enter_async_context(connect(url, additional_headers={"Cookie": cookie}))
            for url, cookie in zip(lobby_urls, cookies, strict=True)
        ]
        for ws in socks:
            await _lobby_until(ws, "lobby")
        host = socks[0]
        await host.send(json.dumps({"type": "room_create", "preset": preset, "target": target}))
        room = (await _lobby_until(host, "room"))["room"]
        for ws in socks[1:]:
            await ws.send(json.dumps({"type": "room_join", "code": room["code"]}))
            await _lobby_until(ws, "room")
        for seat in range(len(socks), room["players"]):
            await host.send(json.dumps({"type": "room_bot", "seat": seat, "level": difficulty}))
        await host.send('{"type":"room_start"}')
        tables = {str((await _lobby_until(ws, "match"))["table"]) for ws in socks}
    if len(tables) != 1:
        raise RuntimeError(f"the room's players were sent different tables: {sorted(tables)}")
    return tables.pop()


def online_tables(
    nodes: list[ServerProcess], groups: list[list[str]], difficulty: str, rng: random.Random
) -> list[str]:
    """The online tables of ``groups`` (each the session cookies of one table's people), made
    through the lobby as browsers make them (a few rooms at a time)."""

    async def main() -> list[str]:
        gate = asyncio.Semaphore(16)

        async def one(cookies: list[str]) -> str:
            async with gate, asyncio.timeout(60):  # a bounded probe: a room never made fails it
                urls = [rng.choice(nodes).url.replace("http://", "ws://") + "/ws/lobby" for _ in cookies]
                return await _room_match(urls, cookies, difficulty, "classic", 5000)

        return list(await asyncio.gather(*(one(g) for g in groups)))

    return asyncio.run(main())


def _client_process(
    jobs: list[tuple[str, str, float]], think: float, start: float, since: float, until: float
) -> dict[str, Any]:
    """One generator process: its share of the browsers, from ``start`` to ``until`` (wall
    clock, shared by every process); returns its figures from ``since`` on and the CPU it
    used meanwhile."""
    out: dict[str, Any] = {"times": [], "actions": 0, "errors": 0, "codes": {}}

    async def main() -> None:
        await asyncio.sleep(max(0.0, start - time.time()))

        async def window() -> None:  # the CPU of the run's window (not connecting, closing)
            await asyncio.sleep(max(0.0, since - time.time()))
            cpu = time.process_time()
            await asyncio.sleep(max(0.0, until - time.time()))
            out["cpu_s"] = time.process_time() - cpu

        await asyncio.gather(
            window(),
            *(
                _human(url, cookie, think, since, until, random.Random(seed), out)
                for url, cookie, seed in jobs
            ),
        )

    try:  # as the server does (uvicorn picks uvloop when it is installed): less CPU per message
        from uvloop import run
    except ImportError:  # pragma: no cover - uvloop comes with uvicorn[standard]
        run = asyncio.run
    run(main())
    return out


_TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU a process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (a node's computer workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # gone meanwhile
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _cpu_of(pids: list[int]) -> dict[int, float]:
    """CPU seconds of each of ``pids`` still running."""
    found = {}
    for pid in pids:
        try:
            found[pid] = cpu_seconds(pid)
        except OSError:  # it ended meanwhile
            pass
    return found


def metrics_text(node: ServerProcess) -> str:
    """The node's Prometheus metrics now."""
    import urllib.request

    with urllib.request.urlopen(node.url + "/metrics", timeout=10) as r:
        return str(r.read().decode())


def loop_lag_buckets(text: str) -> list[tuple[float, float]]:
    """The loop-lag histogram in a node's ``text`` metrics: (upper bound in seconds, wake-ups
    up to it)."""
    out = []
    for line in text.splitlines():
        if line.startswith("canasta_loop_lag_seconds_bucket"):
            bound = line.split('le="', 1)[1].split('"', 1)[0]
            out.append((float("inf") if bound == "+Inf" else float(bound), float(line.split()[-1])))
    return out


def changes_committed(text: str) -> float:
    """Table changes a node has committed so far (every kind: the human's actions, the
    computer seats', new hands ...), from the ``canasta_changes`` metric in its ``text``."""
    return sum(
        float(line.split()[-1]) for line in text.splitlines() if line.startswith("canasta_changes_total{")
    )


def lag_p99_ms(before: list[tuple[float, float]], after: list[tuple[float, float]]) -> float | None:
    """The bucket bound (ms) below which 99% of the run window's wake-ups came."""
    counts = [(b, a - c) for (b, a), (_, c) in zip(after, before, strict=True)]
    if not counts or counts[-1][1] <= 0:
        return None
    for bound, n in counts:
        if n >= 0.99 * counts[-1][1]:
            return None if bound == float("inf") else round(bound * 1000, 1)
    return None


def _percentile(ordered: list[float], q: float) -> float | None:
    if not ordered:
        return None
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 1)


def run_load(
    servers: list[ServerProcess] | ServerProcess,
    *,
    tables: int,
    think: float,
    seconds: float,
    seed: int,
    clients: int = 2,
    difficulty: str = "normal",
    client_nice: int = 10,
    warmup: float = 0.0,
    humans: int = 1,
) -> dict[str, Any]:
    nodes = servers if isinstance(servers, list) else [servers]
    rng = random.Random(seed)
    rss_idle = sum(s.rss_mb() for s in nodes)
    made = time.time()
    if humans == 1:  # a table against the computer, made by its page's POST
        cookies = [nodes[i % len(nodes)].session() for i in range(tables)]
        seated = [
            (
                nodes[i % len(nodes)].post(
                    "/api/tables", {"mode": "computer", "preset": "classic", "difficulty": difficulty}, c
                )["table"],
                c,
            )
            for i, c in enumerate(cookies)
        ]
    else:  # an online table: each of its people a session and a socket of their own
        groups = [[nodes[(i + k) % len(nodes)].session() for k in range(humans)] for i in range(tables)]
        ids = online_tables(nodes, groups, difficulty, rng)
        seated = [(t, c) for t, group in zip(ids, groups, strict=True) for c in group]
    # a browser reaches any node (no sticky sessions)
    urls = [rng.choice(nodes).url.replace("http://", "ws://") for _ in seated]
    jobs = [
        # opened as the page opens it: the hand's history arrives as new events only, and each
        # state as the entries that changed
        (f"{ws}/ws/tables/{t}?history=delta&state=patch", c, rng.random())
        for (t, c), ws in zip(seated, urls, strict=True)
    ]
    clients = max(1, min(clients, tables))
    shares = [jobs[k::clients] for k in range(clients)]
    pids = [s.proc.pid for s in nodes if s.proc is not None]
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(
        clients, mp_context=ctx, initializer=os.nice, initargs=(client_nice,)
    ) as pool:
        # the processes start first (spawning one costs a second): the run begins together
        list(pool.map(time.sleep, [0.0] * clients))
        start = time.time() + 1.0
        since = start + warmup  # the browsers connect and play from start; counted from since
        until = since + seconds
        futures = [pool.submit(_client_process, share, think, start, since, until) for share in shares]
        time.sleep(max(0.0, since - time.time()))
        server_cpu = [cpu_seconds(pid) for pid in pids]
        workers = [_cpu_of(children(pid)) for pid in pids]
        texts = [metrics_text(s) for s in nodes]
        lag = [loop_lag_buckets(t) for t in texts]
        changes = sum(changes_committed(t) for t in texts)
        time.sleep(max(0.0, until - time.time()))  # the run's window: what is counted
        server_cpu = [cpu_seconds(pid) - c for pid, c in zip(pids, server_cpu, strict=True)]
        # the computer workers alive at the end (one started during the run counts whole)
        worker_cpu = []
        worker_rss = 0.0
        for pid, before in zip(pids, workers, strict=True):
            total = 0.0
            for w in children(pid):
                try:
                    total += cpu_seconds(w) - before.get(w, 0.0)
                    worker_rss += rss_mb(w)
                except OSError:  # pragma: no cover - it ended meanwhile
                    pass
            worker_cpu.append(total)
        texts = [metrics_text(s) for s in nodes]
        lag = [lag_p99_ms(b, loop_lag_buckets(t)) for b, t in zip(lag, texts, strict=True)]
        changes = sum(changes_committed(t) for t in texts) - changes
        results = [f.result(timeout=120) for f in futures]
    elapsed = until - since
    rss = sum(s.rss_mb() for s in nodes)
    times = sorted(t for r in results for t in r["times"])
    actions = sum(r["actions"] for r in results)
    codes: dict[str, int] = {}
    for r in results:
        for code, n in r["codes"].items():
            codes[code] = codes.get(code, 0) + n
    client_cpu = sum(r["cpu_s"] for r in results)
    return {
        "tables": tables,
        "humans_per_table": humans,
        "nodes": len(nodes),
        "think_s": think,
        "warmup_s": warmup,
        # from the first table made to the browsers' start: an online match's clocks (a
        # person's 20 s of grace to connect) run from its start in this time
        "setup_s": round(start - made, 1),
        "seconds": round(elapsed, 1),
        "human_actions": actions,
        "actions_per_s": round(actions / elapsed, 1),
        "changes_per_s": round(changes / elapsed, 1),
        "changes_per_action": round(changes / actions, 2) if actions else None,
        "p50_ms": _percentile(times, 0.50),
        "p95_ms": _percentile(times, 0.95),
        "p99_ms": _percentile(times, 0.99),
        "errors": sum(r["errors"] for r in results),
        "error_codes": codes,
        "rss_mb": round(rss, 1),
        "rss_mb_per_table": round((rss - rss_idle) / tables, 3),
        "server_cpu_pct": [round(100 * c / elapsed, 1) for c in server_cpu],
        "server_loop_lag_p99_ms": lag,
        "server_cpu_ms_per_action": round(1000 * sum(server_cpu) / actions, 2) if actions else None,
        "computer_cpu_pct": [round(100 * c / elapsed, 1) for c in worker_cpu],
        "computer_rss_mb": round(worker_rss, 1),
        "node_cpu_ms_per_action": (
            round(1000 * (sum(server_cpu) + sum(worker_cpu)) / actions, 2) if actions else None
        ),
        "clients": clients,
        "client_nice": client_nice,
        "client_cpu_pct": round(100 * client_cpu / elapsed, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--tables", type=int, default=50)
    p.add_argument("--think", type=float, default=1.0)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--bot-delay-ms", type=int, default=150)
    p.add_argument("--nodes", type=int, default=1)
    p.add_argument("--db", default=None)
    p.add_argument("--redis", default=None, help="the Redis of several nodes (redis://127.0.0.1:6379/0)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--difficulty", default="normal", choices=("beginner", "normal", "expert"))
    p.add_argument(
        "--computer-processes", type=int, default=None,
        help="each server's computer workers (default: the server's own default; 0: none)",
    )
    p.add_argument("--clients", type=int, default=2, help="processes simulating the browsers")
    p.add_argument(
        "--client-nice", type=int, default=10,
        help="the niceness those processes add (0..19; they stand in for other machines' browsers)",
    )
    p.add_argument(
        "--warmup", type=float, default=0.0,
        help="seconds the browsers play before the counted window (their sockets connect then)",
    )
    p.add_argument(
        "--humans", type=int, default=1,
        help="people per table: 1 plays the computer (3 computer seats); 2-4 meet online "
        "through a private room, the rest computer seats",
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if not 1 <= args.humans <= 4:
        p.error("--humans 1..4")
    if not 1 <= args.nodes <= 8:
        p.error("--nodes 1..8")
    if args.nodes > 1 and (not args.redis or not (args.db or "").startswith("postgres")):
        p.error("several nodes need --db postgresql://... and --redis redis://...")
    if not 1 <= args.clients <= 8:
        p.error("--clients 1..8")
    if not 0 <= args.client_nice <= 19:
        p.error("--client-nice 0..19")
    if not 1 <= args.tables <= 2000 or not 0 < args.seconds <= 300 or args.think < 0:
        p.error("--tables 1..2000, --seconds up to 300, --think >= 0 (a bounded probe)")
    if not 0 <= args.warmup <= 60:
        p.error("--warmup 0..60")
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "load.sqlite3")
        servers = [
            load_server(
                db, args.bot_delay_ms, args.redis if args.nodes > 1 else None, args.computer_processes
            )
            for _ in range(args.nodes)
        ]
        try:
            for server in servers:
                server.start()
            figures = run_load(
                servers,
                tables=args.tables,
                think=args.think,
                seconds=args.seconds,
                seed=args.seed,
                clients=args.clients,
                difficulty=args.difficulty,
                client_nice=args.client_nice,
                warmup=args.warmup,
                humans=args.humans,
            )
        finally:
            for server in servers:
                server.stop()
    print(json.dumps(figures, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
