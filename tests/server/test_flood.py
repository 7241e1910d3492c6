"""Floods (issue: server hardening, point 1): no socket can freeze the server or grow it.

These run the real server (``canasta.server.run``: uvicorn with the production limits) in a child
process. Latency targets are measured by ``bench/flood.py``; here the checks are that the flood
is cut off, the other table keeps playing throughout, and memory stays bounded.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import bench_module

flood = bench_module("flood")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[object]:
    s = flood.ServerProcess(str(tmp_path / "flood.sqlite3"))
    s.start()
    yield s
    s.stop()


def test_a_sync_flood_is_cut_off_and_another_table_keeps_playing(server: object) -> None:
    figures = flood.run_flood(server, seconds=4.0, flooders=12, reconnects=3)
    # every flooding socket was closed for policy (1008), none was served without limit
    assert figures["flood_closes"].get("1008", 0) >= 12, figures
    # frames a flooder gets in before its close are bounded by the burst plus what was in flight
    assert figures["flood_frames_sent"] / max(1, sum(figures["flood_closes"].values())) < 5000
    during = figures["round_trip_during_flood"]
    assert figures["player_actions_during_flood"] >= 5, figures
    # not frozen: before the limits, the same flood blocked every request for 12.8 s
    assert during["max_ms"] < 2000, figures
    assert figures["server_rss_mb_after"] - figures["server_rss_mb_before"] < 100, figures


def test_oversized_frames_close_the_socket(server: object) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    cookie = server.session()  # type: ignore[attr-defined]
    table = server.post("/api/tables", {"mode": "computer"}, cookie)["table"]  # type: ignore[attr-defined]
    url = server.url.replace("http://", "ws://") + f"/ws/tables/{table}"  # type: ignore[attr-defined]

    async def main() -> int | None:
        async with connect(url, additional_headers={"Cookie": cookie}, max_size=None) as ws:
            json.loads(await ws.recv())
            await ws.send(json.dumps({"type": "sync", "pad": "x" * 100_000}))
            try:
                while True:
                    await asyncio.wait_for(ws.recv(), timeout=10)
            except ConnectionClosed as e:
                return e.rcvd.code if e.rcvd is not None else None

    assert asyncio.run(main()) == 1009  # message too big: uvicorn's frame limit
