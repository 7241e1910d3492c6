"""``kill -9`` of the server mid-match (server hardening, point 2): whatever a client was sent as
confirmed is there after a restart, and the restarted server takes the database at once (the
process lock dies with the process)."""

from __future__ import annotations

import json
import os
import random
import signal
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

from .support import bench_module

flood = bench_module("flood")


def _play_until_killed(server: Any, cookie: str, table: str, rng: random.Random) -> dict[str, Any]:
    """Play a random number of changes, then kill the server right after a confirmation."""
    url = server.url.replace("http://", "ws://") + f"/ws/tables/{table}"
    confirmed: dict[str, Any]
    with connect(url, additional_headers={"Cookie": cookie}, max_size=None) as ws:
        confirmed = json.loads(ws.recv())
        for _ in range(rng.randrange(1, 25)):
            t, view = confirmed["table"], confirmed["view"]
            if view["phase"] == "over":
                break
            if t["handoff"] is not None:
                msg: dict[str, Any] = {"type": "reveal", "seat": t["handoff"]}
            else:
                action = rng.choice(view["legal"])
                msg = {"type": "action", "version": confirmed["version"], "action": action}
            ws.send(json.dumps(msg))
            while True:
                reply = json.loads(ws.recv(timeout=30))
                assert reply["type"] != "error", reply
                if reply["type"] == "state" and reply["version"] > confirmed["version"]:
                    confirmed = reply
                    break
        os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait(10)
    return confirmed


def test_kill_9_mid_match_loses_no_confirmed_change(tmp_path: Path) -> None:
    rng = random.Random(7)
    db = str(tmp_path / "crash.sqlite3")
    server = flood.ServerProcess(db)
    server.start()
    try:
        cookie = server.session()
        table = server.post(
            "/api/tables", {"mode": "local", "players": 2, "rules": {"target": "one_hand"}}, cookie
        )["table"]
        for _ in range(5):
            confirmed = _play_until_killed(server, cookie, table, rng)
            server = flood.ServerProcess(db)  # the same database, at once
            server.start()
            url = server.url.replace("http://", "ws://") + f"/ws/tables/{table}"
            with connect(url, additional_headers={"Cookie": cookie}, max_size=None) as ws:
                again = json.loads(ws.recv())
            assert again["version"] == confirmed["version"]
            assert again["view"] == confirmed["view"]
            assert again["table"]["handoff"] == confirmed["table"]["handoff"]
            if again["view"]["phase"] == "over":
                break
    finally:
        server.stop()
