"""Flood probe: hostile sockets flood one table while a player plays at another.

    python bench/flood.py [--seconds 5] [--flooders 20] [--json]

Starts ``canasta serve``'s server (``canasta.server.run``, default limits, a temporary SQLite
file) on 127.0.0.1, then for a bounded time:

- ``--flooders`` sockets, spectators of table A, send ``sync`` frames as fast as they can without
  reading, reconnecting when the server closes them (each at most ``--reconnects`` times);
- a player plays a pass-and-play table B (reveal, draw, discard) at a person's pace (0.15 s
  between moves), timing each action from sending it to receiving the state it produced.

Prints one JSON object: the player's round trips (ms) before and during the flood, how many
frames the flooders got in and how their sockets were closed, and the server's memory.
Everything runs on loopback and stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

SRC = Path(__file__).resolve().parent.parent / "src"

SERVER = """
import sys
from canasta.server import run
run(host="127.0.0.1", port=int(sys.argv[2]), db=sys.argv[1], access_log=False)
"""


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` (Linux ``/proc``), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``canasta.server.run`` in a child process on a free loopback port."""

    def __init__(
        self, db: str, code: str = SERVER, args: tuple[str, ...] = (), log: Path | None = None
    ) -> None:
        self.db = db
        self.code = code
        self.args = args
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        #: where the server's log goes (None: a pipe, read only if it exits at start; a
        #: long-lived server that logs much should have a file, a full pipe would stall it)
        self.log = log

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        # the source comes after a given PYTHONPATH, so a compiled build there (bench/mypyc_build.py)
        # is the one served
        given = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": f"{given}{os.pathsep}{SRC}" if given else str(SRC)}
        err = self.log.open("ab") if self.log is not None else subprocess.PIPE
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", self.code, self.db, str(self.port), *self.args],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        finally:
            if self.log is not None:
                err.close()  # type: ignore[union-attr]
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                text = self.log.read_text() if self.log is not None else self.proc.stderr.read().decode()  # type: ignore[union-attr]
                raise RuntimeError(f"server exited: {text[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/api/presets", timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start")

    def rss_mb(self) -> float:
        assert self.proc is not None
        return rss_mb(self.proc.pid)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def session(self) -> str:
        """A new browser session; returns its cookie header value."""
        req = urllib.request.Request(
            self.url + "/api/session",
            data=b"{}",
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            cookie = r.headers["set-cookie"].split(";", 1)[0]
        return str(cookie)

    def post(self, path: str, body: dict[str, Any], cookie: str) -> dict[str, Any]:
        req = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json", "Cookie": cookie},
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            data = json.loads(r.read())
        assert isinstance(data, dict)
        return data


async def _flooder(url: str, until: float, reconnects: int, out: dict[str, Any]) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    frame = '{"type":"sync"}'
    for _ in range(reconnects + 1):
        if time.monotonic() >= until:
            return
        try:
            async with connect(url, max_size=None, max_queue=None, open_timeout=5, close_timeout=1) as ws:
                try:
                    while time.monotonic() < until:
                        await asyncio.wait_for(ws.send(frame), timeout=max(0.01, until - time.monotonic()))
                        out["frames"] += 1
                        await asyncio.sleep(0)  # let the client notice the server's close
                except ConnectionClosed as e:
                    code = e.rcvd.code if e.rcvd is not None else None
                    out["closes"][str(code)] += 1
                except TimeoutError:
                    out["closes"]["blocked_by_backpressure"] += 1
                    return
        except (OSError, TimeoutError) as e:
            out["closes"][f"refused:{type(e).__name__}"] += 1
            await asyncio.sleep(0.05)


async def _player(
    url: str, cookie: str, until: float, times: list[float], think: float = 0.15
) -> int:
    """Play at a person's pace (``think`` seconds between moves: within the socket's rate)."""
    from websockets.asyncio.client import connect

    actions = 0
    async with connect(url, additional_headers={"Cookie": cookie}, max_size=None) as ws:
        state = json.loads(await ws.recv())
        while time.monotonic() < until:
            table, view = state["table"], state["view"]
            if view["phase"] == "over":
                break
            if table["handoff"] is not None:
                msg: dict[str, Any] = {"type": "reveal", "seat": table["handoff"]}
            else:
                legal = view["legal"]
                pick = next((a for a in legal if a["type"] == "draw"), None) or next(
                    (a for a in legal if a["type"] == "discard"), legal[0]
                )
                msg = {"type": "action", "version": state["version"], "action": pick}
            sent = time.perf_counter()
            await ws.send(json.dumps(msg))
            while True:
                reply = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
                if reply["type"] == "state" and reply["version"] > state["version"]:
                    break
                if reply["type"] == "error":
                    raise RuntimeError(f"the player's move was refused: {reply}")
            times.append((time.perf_counter() - sent) * 1000)
            actions += 1
            state = reply
            await asyncio.sleep(think)
    return actions


def _figures(times: list[float]) -> dict[str, float | int | None]:
    if not times:
        return {"n": 0, "p50_ms": None, "p95_ms": None, "max_ms": None}
    ordered = sorted(times)
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 2),
        "max_ms": round(ordered[-1], 2),
    }


def run_flood(
    server: ServerProcess, *, seconds: float = 5.0, flooders: int = 20, reconnects: int = 5
) -> dict[str, Any]:
    """Run the probe against a started server; returns the figures."""
    victim = server.session()
    host = server.session()
    table_a = server.post("/api/tables", {"mode": "computer", "preset": "classic"}, host)["table"]
    table_b = server.post(
        "/api/tables", {"mode": "local", "players": 2, "rules": {"target": "one_hand"}}, victim
    )["table"]
    ws = server.url.replace("http://", "ws://")
    out: dict[str, Any] = {"frames": 0, "closes": Counter()}
    quiet: list[float] = []
    loud: list[float] = []
    rss_before = server.rss_mb()

    async def main() -> int:
        await _player(f"{ws}/ws/tables/{table_b}", victim, time.monotonic() + 1.0, quiet)
        until = time.monotonic() + seconds
        tasks = [
            asyncio.create_task(_flooder(f"{ws}/ws/tables/{table_a}", until, reconnects, out))
            for _ in range(flooders)
        ]
        await asyncio.sleep(0.2)  # let the flood start first
        played = await _player(f"{ws}/ws/tables/{table_b}", victim, until, loud)
        for t in tasks:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(t, timeout=30)
        return played

    played = asyncio.run(main())
    return {
        "seconds": seconds,
        "flooders": flooders,
        "flood_frames_sent": out["frames"],
        "flood_closes": dict(out["closes"]),
        "player_actions_during_flood": played,
        "round_trip_quiet": _figures(quiet),
        "round_trip_during_flood": _figures(loud),
        "server_rss_mb_before": round(rss_before, 1),
        "server_rss_mb_after": round(server.rss_mb(), 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--flooders", type=int, default=20)
    p.add_argument("--reconnects", type=int, default=5)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if not 0 < args.seconds <= 120 or not 0 < args.flooders <= 60:
        p.error("--seconds is at most 120 and --flooders at most 60 (a bounded probe)")
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(str(Path(tmp) / "flood.sqlite3"))
        server.start()
        try:
            figures = run_flood(
                server, seconds=args.seconds, flooders=args.flooders, reconnects=args.reconnects
            )
        finally:
            server.stop()
    print(json.dumps(figures, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
