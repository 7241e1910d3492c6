"""Two server nodes on one PostgreSQL and one Redis; kill -9 of owners; a SQLite node killed
20 times. Every process is real (uvicorn in a child process) and every loop is bounded."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from canasta.server.tables import HAND_OVER_AFTER
from tests.server.support import bench_module, over_held

flood = bench_module("flood")

NODE = """
import json, sys, uvicorn
from canasta.server import ServerConfig, create_app
from canasta.server.transport import uvicorn_options
extra = json.loads(sys.argv[4])
config = ServerConfig(single_node=False, redis_url=sys.argv[3] or None, min_bot_delay_ms=0,
                      message_rate=1000.0, message_burst=1000, **extra)
uvicorn.run(create_app(sys.argv[1], bot_delay_ms=0, config=config), host="127.0.0.1",
            port=int(sys.argv[2]), log_level="warning", **uvicorn_options(config))
"""

CLOCKS = {"move_seconds": 120.0, "grace_seconds": 120.0, "online_bot_delay_ms": 0}


def node(db: str, redis_url: str, config: dict[str, Any] | None = None) -> Any:
    log = Path(tempfile.mkstemp(prefix="canasta-node-", suffix=".log")[1])
    proc = flood.ServerProcess(db, NODE, (redis_url, json.dumps(config or CLOCKS)), log=log)
    proc.start()
    return proc


def node_logs(nodes: list[Any]) -> str:
    return "\n".join(f"--- node {n.port}\n{n.log.read_text()[-3000:]}" for n in nodes if n.log)


def kill9(proc: Any) -> None:
    assert proc.proc is not None
    os.kill(proc.proc.pid, signal.SIGKILL)
    proc.proc.wait()


class Player:
    """One browser: a session cookie, and a socket to whichever node it reaches."""

    def __init__(self, cookie: str) -> None:
        self.cookie = cookie
        self.ws: Any = None
        self.state: dict[str, Any] | None = None
        self.patches = 0  # states that came as patches

    async def connect(self, url: str, nodes: list[Any], deadline: float) -> None:
        """Connect to ``url`` (a path), trying the live nodes until one serves a state."""
        from websockets.asyncio.client import connect

        while time.monotonic() < deadline:
            for n in nodes:
                if n.proc is None or n.proc.poll() is not None:
                    continue
                try:
                    ws = await connect(
                        n.url.replace("http", "ws") + url,
                        additional_headers={"Cookie": self.cookie},
                        open_timeout=3,
                    )
                    msg = json.loads(await asyncio.wait_for(ws.recv(), timeout=3))
                except Exception:
                    await asyncio.sleep(0.2)
                    continue
                if msg.get("type") == "state":
                    self.ws, self.state = ws, msg
                    return
                await ws.close()
                await asyncio.sleep(0.3)
        raise AssertionError("no node served the table in time")

    async def until(self, pred: Any, timeout: float = 20.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            msg = json.loads(await asyncio.wait_for(self.ws.recv(), timeout=max(0.1, end - time.monotonic())))
            if msg.get("type") == "state":
                if "base" in msg:  # a patch (``?state=patch``): over the state this page holds
                    msg = over_held(self.state, msg)
                    self.patches += 1
                self.state = msg
            if pred(msg):
                return msg


def pick(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    for kind in ("draw", "discard", "decline", "answer", "take"):
        options = [a for a in legal if a["type"] == kind]
        if options:
            return rng.choice(options) if kind == "discard" else options[0]
    return legal[0]


async def lobby_match(nodes: list[Any], cookies: list[str], preset: str) -> str:
    """Queue every player through the lobby socket of the node it is given; the match id."""
    from websockets.asyncio.client import connect

    socks = []
    for i, cookie in enumerate(cookies):
        n = nodes[i % len(nodes)]
        ws = None
        for _ in range(50):  # the lobby starts on its node within a moment
            ws = await connect(n.url.replace("http", "ws") + "/ws/lobby", additional_headers={"Cookie": cookie})
            first = json.loads(await asyncio.wait_for(ws.recv(), timeout=5))
            if first.get("type") == "lobby":
                break
            await ws.close()
            await asyncio.sleep(0.2)
        assert ws is not None
        socks.append(ws)
    for ws in socks:
        await ws.send(json.dumps({"type": "queue_join", "preset": preset, "target": 5000}))
    ids = set()
    for ws in socks:
        while True:
            msg = json.loads(await asyncio.wait_for(ws.recv(), timeout=20))
            assert msg.get("type") != "error", msg
            if msg.get("type") == "match":
                ids.add(msg["table"])
                break
        await ws.close()
    assert len(ids) == 1
    return ids.pop()


def owner_of(redis_url: str, table: str) -> str | None:
    import redis

    r = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        value = r.get(f"canasta:lease:table:{table}")
        return None if value is None else str(value).rsplit(":", 1)[0]
    finally:
        r.close()


def published_loads(redis_url: str) -> dict[str, int]:
    """Each node's last published load (live tables), as placement reads it."""
    import redis

    r = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        return {n: int(json.loads(raw)[0]) for n, raw in r.hgetall("canasta:load").items()}
    finally:
        r.close()


def loads_counted(loads: dict[str, int], owners: list[str]) -> bool:
    """Both nodes have published, each counting exactly the matches it owns."""
    return (
        len(loads) == 2
        and sum(loads.values()) == len(owners)
        and all(loads.get(o) == owners.count(o) for o in owners)
    )


@contextmanager
def logged(nodes: list[Any]) -> Iterator[None]:
    """Run a test's body on these nodes: their logs are printed when it fails, and every node
    is stopped after it either way."""
    try:
        yield
    except BaseException:
        print(node_logs(nodes))
        raise
    finally:
        for n in nodes:
            n.stop()


def test_two_nodes_play_an_online_hand_through_two_owner_crashes(cluster_urls):
    db, redis_url = cluster_urls
    nodes = [node(db, redis_url), node(db, redis_url)]
    with logged(nodes):
        cookies = [nodes[i % 2].session() for i in range(4)]
        table = asyncio.run(lobby_match(nodes, cookies, "classic"))
        asyncio.run(_play_through_crashes(nodes, cookies, table, db, redis_url))


async def _play_through_crashes(nodes: list[Any], cookies: list[str], table: str, db: str, redis_url: str) -> None:
    rng = random.Random(4)
    path = f"/ws/tables/{table}?history=delta&state=patch"  # as the page opens it
    players = [Player(c) for c in cookies]
    for i, p in enumerate(players):  # spread over both nodes: half of them are forwarded
        await p.connect(path, [nodes[i % 2], nodes[(i + 1) % 2]], time.monotonic() + 20)
    acked = players[0].state["version"]
    crashes = {6, 18}
    actions = 0
    for _step in range(600):
        state = max((p.state for p in players), key=lambda s: s["version"])
        view = state["view"]
        if view["phase"] == "over":
            break
        actor = next(p for p in players if p.state["view"]["seat"] == view["turn"])
        if actor.state["version"] != state["version"]:
            await actor.until(lambda m, v=state["version"]: m.get("type") == "state" and m["version"] >= v)
        legal = actor.state["view"]["legal"]
        action = pick(legal, rng)
        sent_version = actor.state["version"]
        await actor.ws.send(json.dumps({"type": "action", "version": sent_version, "action": action}))
        if actions in crashes:
            # kill -9 the owner right after the action was sent: it may or may not be saved
            owner = owner_of(redis_url, table)
            victim = next(n for n in nodes if _is_owner(n, owner, redis_url))
            kill9(victim)
            nodes.remove(victim)
            nodes.append(node(db, redis_url))
            for p in players:
                with contextlib_suppress():
                    await p.ws.close()
                await p.connect(path, nodes, time.monotonic() + 40)
            version = players[0].state["version"]
            # nothing acknowledged is lost; the unacknowledged action is there at most once
            assert version in (acked, acked + 1), (version, acked)
            if version == acked:  # not saved before the crash: send it again
                actor_now = next(p for p in players if p.state["view"]["seat"] == view["turn"])
                await actor_now.ws.send(json.dumps({"type": "action", "version": sent_version, "action": action}))
            else:  # saved: the same move again is refused, never applied twice
                actor_now = next(p for p in players if p.state["view"]["seat"] == view["turn"])
                await actor_now.ws.send(json.dumps({"type": "action", "version": sent_version, "action": action}))
                err = await actor_now.until(lambda m: m.get("type") == "error")
                assert err["code"] == "stale_version"
        target = sent_version + 1
        for p in players:
            if p.state["version"] < target:
                await p.until(lambda m, v=target: m.get("type") == "state" and m["version"] >= v)
        acked = target
        actions += 1
    else:
        raise AssertionError("the hand did not end")
    assert actions > max(crashes)
    # every node agrees: the stored match holds exactly the acknowledged actions
    for p in players:
        assert p.state["version"] == acked
    # forwarded or not, every page was sent patches and rebuilt each state from them
    assert all(p.patches > 10 for p in players)


def _is_owner(n: Any, owner: str | None, redis_url: str) -> bool:
    """Whether node process ``n`` holds the lease ``owner`` (asked through its /healthz)."""
    import urllib.request

    with urllib.request.urlopen(n.url + "/healthz", timeout=5) as r:
        return bool(json.loads(r.read()).get("node") == owner)


class contextlib_suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> bool:
        return True


LOCAL = """
import json, sys, uvicorn
from canasta.server import ServerConfig, create_app
from canasta.server.transport import uvicorn_options
config = ServerConfig(allow_seeds=True, min_bot_delay_ms=0, message_rate=1000.0, message_burst=1000)
uvicorn.run(create_app(sys.argv[1], bot_delay_ms=0, config=config), host="127.0.0.1",
            port=int(sys.argv[2]), log_level="warning", **uvicorn_options(config))
"""


def test_a_sqlite_node_killed_20_times_loses_no_acknowledged_action(tmp_path: Path):
    db = f"sqlite:///{tmp_path / 'canasta.db'}"
    server = flood.ServerProcess(db, LOCAL)
    server.start()
    port = server.port
    try:
        cookie = server.session()
        table = server.post("/api/tables", {"mode": "local", "preset": "two-player", "seed": 11}, cookie)["table"]
        asyncio.run(_kill_loop(server, port, cookie, table))
    finally:
        server.stop()


async def _kill_loop(server: Any, port: int, cookie: str, table: str) -> None:
    from websockets.asyncio.client import connect

    rng = random.Random(20)
    acked_history: list[Any] = []
    acked_version = 0
    kills = 0
    deadline = time.monotonic() + 240
    while kills < 20 and time.monotonic() < deadline:
        ws = await connect(f"ws://127.0.0.1:{port}/ws/tables/{table}", additional_headers={"Cookie": cookie})
        state = json.loads(await ws.recv())
        # the stored table holds every acknowledged change (the version counts them)
        assert state["version"] >= acked_version
        if state["view"]["hand_number"] == 1:
            assert len(state["view"]["history"]) >= len(acked_history)
        kill_after = time.monotonic() + rng.uniform(0.05, 0.6)
        try:
            while time.monotonic() < kill_after:
                if state["view"]["phase"] == "over":
                    msg = {"type": "next_hand"}
                elif state["table"]["handoff"] is not None:
                    msg = {"type": "reveal", "seat": state["table"]["handoff"]}
                else:
                    legal = state["view"]["legal"]
                    msg = {"type": "action", "version": state["version"], "action": pick(legal, rng)}
                await ws.send(json.dumps(msg))
                while True:
                    reply = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                    if reply["type"] == "state" and reply["version"] > state["version"]:
                        state = reply
                        if state["view"]["hand_number"] == 1 and state["change"] == "action":
                            acked_history = state["view"]["history"]
                        acked_version = max(acked_version, state["version"])
                        break
                    if reply["type"] == "error":
                        raise AssertionError(reply)
        finally:
            kill9(server)
            kills += 1
            with contextlib_suppress():
                await ws.close()
        server.port = port
        server.start()
    assert kills == 20
    assert acked_version > 20
    _ = tempfile  # (the database is the test's own temporary file)


def test_sigterm_drains_a_node_and_another_takes_its_tables_at_once(cluster_urls):
    db, redis_url = cluster_urls
    a, b = node(db, redis_url), node(db, redis_url)
    try:
        cookie = a.session()
        table = a.post("/api/tables", {"mode": "computer", "preset": "classic", "difficulty": "normal"}, cookie)["table"]
        asyncio.run(_drain(a, b, cookie, table, redis_url))
    finally:
        a.stop()
        b.stop()


async def _drain(a: Any, b: Any, cookie: str, table: str, redis_url: str) -> None:
    first = Player(cookie)  # a table runs where its first socket is: on a
    await first.connect(f"/ws/tables/{table}", [a], time.monotonic() + 20)
    player = Player(cookie)
    await player.connect(f"/ws/tables/{table}", [b], time.monotonic() + 20)  # forwarded to a
    before = player.state["version"]
    assert _is_owner(a, owner_of(redis_url, table), redis_url)
    stopped = time.monotonic()
    a.stop()  # SIGTERM: a saves and unloads its tables and releases their leases
    await player.connect(f"/ws/tables/{table}", [b], time.monotonic() + 20)
    took = time.monotonic() - stopped
    assert player.state["version"] >= before
    assert owner_of(redis_url, table) is not None and _is_owner(b, owner_of(redis_url, table), redis_url)
    # well inside a lease's lifetime: the lease was handed over, not left to lapse
    assert took < 5.0, took


def test_a_new_table_runs_on_the_node_its_first_socket_reaches(cluster_urls):
    """A table made through one node is only saved there; the node its player's socket
    reaches loads it and takes its lease, so that socket is not forwarded. A second socket
    through the other node is forwarded to it as before."""
    db, redis_url = cluster_urls
    a, b = node(db, redis_url), node(db, redis_url)
    with logged([a, b]):
        cookie = a.session()
        table = a.post("/api/tables", {"mode": "computer", "preset": "two-player", "difficulty": "normal"}, cookie)["table"]
        assert owner_of(redis_url, table) is None  # saved, run by nobody yet
        asyncio.run(_first_socket_claims(a, b, cookie, table, redis_url))


async def _first_socket_claims(a: Any, b: Any, cookie: str, table: str, redis_url: str) -> None:
    player = Player(cookie)
    await player.connect(f"/ws/tables/{table}", [b], time.monotonic() + 20)
    assert _is_owner(b, owner_of(redis_url, table), redis_url)
    other_tab = Player(cookie)  # the same player in another tab, through the other node
    await other_tab.connect(f"/ws/tables/{table}", [a], time.monotonic() + 20)
    assert _is_owner(b, owner_of(redis_url, table), redis_url)
    rng = random.Random(3)
    for _ in range(4):  # the player acts; both tabs see each change
        version = await _act(player, rng)
        await other_tab.until(lambda m, v=version: m.get("type") == "state" and m["version"] >= v)
    await player.ws.close()
    await other_tab.ws.close()


def test_a_table_nobody_is_at_moves_to_the_node_its_player_comes_back_through(cluster_urls):
    """A player's socket drops and comes back through another node (no sticky sessions): the
    table, with nobody at it, is handed over to that node instead of the socket being
    forwarded for the rest of the match. With a socket still at it, it stays put."""
    db, redis_url = cluster_urls
    a, b = node(db, redis_url), node(db, redis_url)
    with logged([a, b]):
        cookie = a.session()
        table = a.post("/api/tables", {"mode": "computer", "preset": "two-player", "difficulty": "normal"}, cookie)["table"]
        asyncio.run(_comes_back(a, b, cookie, table, redis_url))


def _metric(n: Any, name: str) -> float:
    with urllib.request.urlopen(n.url + "/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    return 0.0


async def _act(player: Player, rng: random.Random) -> int:
    """One action of the player's, waiting for its turn; the version it produced."""
    state = player.state
    assert state is not None
    if not state["view"]["legal"]:
        state = await player.until(lambda m: m.get("type") == "state" and bool(m["view"]["legal"]))
    action = pick(state["view"]["legal"], rng)
    await player.ws.send(json.dumps({"type": "action", "version": state["version"], "action": action}))
    done = await player.until(lambda m, v=state["version"]: m.get("type") == "state" and m["version"] > v)
    return int(done["version"])


async def _comes_back(a: Any, b: Any, cookie: str, table: str, redis_url: str) -> None:
    rng = random.Random(5)
    player = Player(cookie)
    await player.connect(f"/ws/tables/{table}", [a], time.monotonic() + 20)
    assert _is_owner(a, owner_of(redis_url, table), redis_url)
    acked = [await _act(player, rng) for _ in range(3)][-1]
    await player.ws.close()
    # a table is handed over only when nobody asked for it lately (it does not bounce)
    await asyncio.sleep(HAND_OVER_AFTER + 0.2)
    deadline = time.monotonic() + 10
    while _metric(a, "canasta_sockets_open") > 0 and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    back = Player(cookie)  # the same player, through the other node
    await back.connect(f"/ws/tables/{table}", [b], time.monotonic() + 20)
    assert _is_owner(b, owner_of(redis_url, table), redis_url)
    assert back.state is not None and back.state["version"] >= acked  # nothing acknowledged lost
    assert _metric(a, "canasta_tables_handed_over_total") == 1.0
    assert _metric(a, "canasta_tables_live") == 0.0
    await _act(back, rng)
    other_tab = Player(cookie)  # someone is at the table now: this socket is forwarded to b
    await other_tab.connect(f"/ws/tables/{table}", [a], time.monotonic() + 20)
    assert _is_owner(b, owner_of(redis_url, table), redis_url)
    assert _metric(b, "canasta_tables_handed_over_total") == 0.0
    version = await _act(back, rng)
    await other_tab.until(lambda m: m.get("type") == "state" and m["version"] >= version)
    await back.ws.close()
    await other_tab.ws.close()


def test_new_matches_start_on_the_node_serving_fewer_tables(cluster_urls):
    """Lobby placement (issue 12): the lobby's node starts a match itself only while it serves
    no more tables than the other node; otherwise the other node adopts it at once."""
    db, redis_url = cluster_urls
    nodes = [node(db, redis_url), node(db, redis_url)]
    try:
        owners = []
        for _ in range(4):
            cookies = [nodes[i % 2].session() for i in range(2)]
            table = asyncio.run(lobby_match(nodes, cookies, "two-player"))
            deadline = time.monotonic() + 10
            while (owner := owner_of(redis_url, table)) is None and time.monotonic() < deadline:
                time.sleep(0.1)
            assert owner is not None, node_logs(nodes)
            owners.append(owner)
            # each node publishes its load once a second: wait until both have counted every
            # match so far (a busy machine can delay a node's beat past any fixed sleep)
            deadline = time.monotonic() + 15
            while not loads_counted(published_loads(redis_url), owners) and time.monotonic() < deadline:
                time.sleep(0.1)
        # alternating: the lobby's node, the other, the lobby's (a tie), the other
        assert owners[0] == owners[2] != owners[1] == owners[3], (owners, node_logs(nodes))
    finally:
        for n in nodes:
            n.stop()


def test_a_new_name_shows_at_once_in_a_room_whichever_node_is_asked(cluster_urls):
    """A name changed through a node that does not run the lobby reaches the lobby's node at
    once (it used to wait until the account's lobby socket joined again): each of two players,
    one per node, opens a private room through its node, renames itself through the same node,
    and sees the room show the new name."""
    db, redis_url = cluster_urls
    nodes = [node(db, redis_url), node(db, redis_url)]
    with logged(nodes):
        asyncio.run(_rename_in_rooms(nodes))


async def _rename_in_rooms(nodes: list[Any]) -> None:
    from websockets.asyncio.client import connect

    for i, n in enumerate(nodes):
        cookie = n.session()
        ws = None
        for _ in range(50):  # the lobby starts on its node within a moment
            ws = await connect(n.url.replace("http", "ws") + "/ws/lobby", additional_headers={"Cookie": cookie})
            if json.loads(await asyncio.wait_for(ws.recv(), timeout=5)).get("type") == "lobby":
                break
            await ws.close()
            await asyncio.sleep(0.2)
        assert ws is not None
        await ws.send(json.dumps({"type": "room_create", "preset": "two-player", "target": 5000}))

        async def room_names(ws: Any = ws) -> list[str]:
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                assert msg.get("type") != "error", msg
                if msg.get("type") == "room" and msg.get("room"):
                    return [s["name"] for s in msg["room"]["seats"] if s]

        assert (await room_names())[0].startswith("Guest")
        name = f"Player {i} renamed"
        req = urllib.request.Request(
            n.url + "/api/account",
            data=json.dumps({"name": name}).encode(),
            method="PATCH",
            headers={"Content-Type": "application/json", "Cookie": cookie},
        )
        with urllib.request.urlopen(req, timeout=10) as r:
            assert json.loads(r.read())["account"]["name"] == name
        assert await room_names() == [name]
        await ws.close()


def test_a_lobby_tab_over_the_cap_is_refused_alike_through_either_node(cluster_urls):
    """docs/protocol.md, the lobby's limits: an account's ninth lobby socket is told
    ``too_many_sockets`` and closed with 1013 (try again later), whether the node it reaches
    runs the lobby or forwards it there (the refusal's message comes before the close)."""
    db, redis_url = cluster_urls
    a, b = node(db, redis_url), node(db, redis_url)
    with logged([a, b]):
        asyncio.run(_ninth_lobby_tab(a, b, a.session()))


async def _ninth_lobby_tab(a: Any, b: Any, cookie: str) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    async def open_tab(n: Any) -> tuple[Any, dict[str, Any]]:
        ws = await connect(n.url.replace("http", "ws") + "/ws/lobby", additional_headers={"Cookie": cookie})
        return ws, json.loads(await asyncio.wait_for(ws.recv(), timeout=5))

    tabs = []
    for i in range(50):  # the lobby starts on its node within a moment
        ws, first = await open_tab((a, b)[i % 2])
        if first.get("type") == "lobby":
            tabs.append(ws)
            if len(tabs) == 8:
                break
        else:
            await ws.close()
            await asyncio.sleep(0.2)
    assert len(tabs) == 8
    for n in (a, b):
        ws, first = await open_tab(n)
        assert first.get("type") == "error" and first.get("code") == "too_many_sockets", first
        try:
            await asyncio.wait_for(ws.recv(), timeout=5)
        except ConnectionClosed as e:
            assert e.rcvd is not None and e.rcvd.code == 1013, e.rcvd
        else:  # pragma: no cover - the refusal is the socket's last message
            raise AssertionError("the refused socket stayed open")
    for ws in tabs:
        await ws.close()


def test_a_session_ended_through_one_node_closes_its_sockets_on_every_node(cluster_urls):
    """Logging out everywhere through node a closes the session's sockets wherever they are:
    the one node b serves (told over Redis) and the one a forwards to b; a reconnect with the
    dead cookie only watches."""
    db, redis_url = cluster_urls
    a, b = node(db, redis_url), node(db, redis_url)
    with logged([a, b]):
        cookie = a.session()
        table = a.post("/api/tables", {"mode": "computer", "preset": "two-player", "difficulty": "normal"}, cookie)["table"]
        asyncio.run(_session_ends_elsewhere(a, b, cookie, table))


async def _session_ends_elsewhere(a: Any, b: Any, cookie: str, table: str) -> None:
    from websockets.exceptions import ConnectionClosed

    player = Player(cookie)
    await player.connect(f"/ws/tables/{table}", [b], time.monotonic() + 20)
    other_tab = Player(cookie)
    await other_tab.connect(f"/ws/tables/{table}", [a], time.monotonic() + 20)
    await asyncio.sleep(2.5)  # each node has published itself (once a second)
    assert a.post("/api/account/logout-all", {}, cookie)["revoked"] == 1
    for p in (player, other_tab):
        try:
            await p.until(lambda m: False, timeout=10)
        except ConnectionClosed as e:
            assert e.rcvd is not None and e.rcvd.code == 4401
        else:  # pragma: no cover - until() only returns on its predicate
            raise AssertionError("the socket stayed open")
    watcher = Player(cookie)
    await watcher.connect(f"/ws/tables/{table}", [b], time.monotonic() + 20)
    assert watcher.state is not None and watcher.state["table"]["seat"] is None
    await watcher.ws.close()


def test_an_account_deleted_through_another_node_is_renamed_at_the_table_owner(cluster_urls):
    """docs/protocol.md, deleting an account, with several nodes: a player leaves a match the
    other plays on, then deletes the account through the node that does not run the table.
    That node tells the owner over Redis: the seat is renamed for the player still at the
    table, whose socket stays open, and the match plays on."""
    db, redis_url = cluster_urls
    nodes = [node(db, redis_url), node(db, redis_url)]
    with logged(nodes):
        cookies = [nodes[0].session(), nodes[1].session()]
        asyncio.run(_delete_through_another_node(nodes, cookies, redis_url))


async def _delete_through_another_node(nodes: list[Any], cookies: list[str], redis_url: str) -> None:
    table = await lobby_match(nodes, cookies, "two-player")
    path = f"/ws/tables/{table}"
    deadline = time.monotonic() + 20
    while owner_of(redis_url, table) is None and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    owner = next(n for n in nodes if _is_owner(n, owner_of(redis_url, table), redis_url))
    elsewhere = next(n for n in nodes if n is not owner)
    leaver, stayer = Player(cookies[0]), Player(cookies[1])
    await leaver.connect(path, [owner], deadline)
    await stayer.connect(path, [owner], deadline)
    await leaver.ws.send(json.dumps({"type": "leave"}))
    await stayer.until(lambda m: m.get("type") == "state" and "left" in m["table"]["online"]["auto"])
    await leaver.ws.close()
    # the other node learns that the player left from the owner's published summary (once a
    # second): until then it answers in_match
    while True:
        req = urllib.request.Request(
            elsewhere.url + "/api/account",
            data=json.dumps({"confirm": True}).encode(),
            method="DELETE",
            headers={"Content-Type": "application/json", "Cookie": cookies[0]},
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                assert json.loads(r.read()) == {"deleted": True}
            break
        except urllib.error.HTTPError as e:
            assert e.code == 409 and time.monotonic() < deadline + 10, e.read()
            await asyncio.sleep(0.5)
    renamed = await stayer.until(lambda m: m.get("type") == "state" and m.get("change") == "rename", timeout=10)
    assert "Deleted player" in [seat["name"] for seat in renamed["table"]["seats"]]
    await stayer.ws.close()
