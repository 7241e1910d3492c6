"""Websocket compression: permessage-deflate for the large messages only (server/transport.py).

RFC 7692 section 6.1: a message is compressed when its first frame has RSV1 set; a sender may
leave any message uncompressed. The server compresses what is at least ``COMPRESS_FROM``
bytes long and sends the rest as it is; one client decodes both, in any order.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.extensions.permessage_deflate import (
    ClientPerMessageDeflateFactory,
    ServerPerMessageDeflateFactory,
)
from websockets.frames import Frame, Opcode

from canasta.server.transport import COMPRESS_FROM, LargeOnly, LargeOnlyDeflateFactory, text_frame

from .support import bench_module

flood = bench_module("flood")


def _negotiated() -> tuple[LargeOnly, Any]:
    """The server's and the client's ends of one negotiation, with the server's settings."""
    client = ClientPerMessageDeflateFactory(client_max_window_bits=True)
    server = LargeOnlyDeflateFactory(
        ServerPerMessageDeflateFactory(
            server_max_window_bits=12, client_max_window_bits=12, compress_settings={"memLevel": 5}
        )
    )
    response, ours = server.process_request_params(client.get_request_params(), [])
    theirs = client.process_response_params(response, [])
    assert isinstance(ours, LargeOnly)
    return ours, theirs


def test_small_messages_go_as_they_are_and_large_ones_compressed() -> None:
    ours, theirs = _negotiated()
    small = json.dumps({"type": "state", "view": {"turn": 2}}).encode()
    large = json.dumps({"type": "state", "view": {"legal": ["discard 5H"] * 400}}).encode()
    assert len(small) < COMPRESS_FROM <= len(large)
    # interleaved: skipping a small message must not upset the compressor's shared window
    for data in (large, small, large, small, small, large):
        sent = ours.encode(Frame(Opcode.TEXT, data))
        assert sent.rsv1 is (len(data) >= COMPRESS_FROM)
        if sent.rsv1:
            assert len(sent.data) < len(data) // 4
        else:
            assert sent.data == data
        assert theirs.decode(sent).data == data


def test_the_threshold_is_counted_in_bytes_of_the_frame() -> None:
    ours, theirs = _negotiated()
    for size in (COMPRESS_FROM - 1, COMPRESS_FROM, COMPRESS_FROM - 1):
        data = b'"' + b"x" * (size - 2) + b'"'
        sent = ours.encode(Frame(Opcode.TEXT, data))
        assert sent.rsv1 is (size >= COMPRESS_FROM)
        assert theirs.decode(sent).data == data


def test_a_fragmented_message_is_compressed_whatever_its_size() -> None:
    ours, theirs = _negotiated()
    first = ours.encode(Frame(Opcode.TEXT, b'{"a":', fin=False))
    rest = ours.encode(Frame(Opcode.CONT, b"1}"))
    assert first.rsv1 and not rest.rsv1  # RSV1 on the first frame of a compressed message
    assert theirs.decode(first).data + theirs.decode(rest).data == b'{"a":1}'


def test_control_frames_and_what_the_client_sends_are_handled_as_before() -> None:
    ours, theirs = _negotiated()
    ping = Frame(Opcode.PING, b"x")
    assert ours.encode(ping) == ping
    data = json.dumps({"type": "action", "action": "draw"}).encode()
    assert ours.decode(theirs.encode(Frame(Opcode.TEXT, data))).data == data


@pytest.mark.parametrize("size", [0, 1, 125, 126, 127, 300, COMPRESS_FROM - 1, 65535, 65536, 70000])
def test_a_frame_written_directly_is_the_protocol_objects_frame(size: int) -> None:
    """``text_frame`` (the served socket's direct send) gives the very bytes websockets' own
    frame gives for a server's unfragmented, uncompressed text message, at each length
    encoding's bounds (7 bits, 16 bits, 64 bits), with text of several bytes a character."""
    text = ("é" * size)[: size // 2] + "x" * (size - 2 * (size // 2))
    data = text.encode()
    assert text_frame(data) == Frame(Opcode.TEXT, data).serialize(mask=False, extensions=[])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Any]:
    s = flood.ServerProcess(str(tmp_path / "transport.sqlite3"))  # canasta.server.run
    s.start()
    yield s
    s.stop()


def test_the_served_socket_compresses_only_its_large_messages(server: Any) -> None:
    """A browser-like client (it offers permessage-deflate) at a computer table: the patches
    after each move are small and arrive as they are; a whole state with its history (a sync)
    is large and arrives compressed; every message is compressed exactly when it is large."""
    from websockets.asyncio.client import connect

    seen: list[tuple[bool, int]] = []  # (RSV1, decoded length) of each text message

    class Recording(ClientPerMessageDeflateFactory):
        def process_response_params(self, params: Any, accepted: Any) -> Any:
            extension = super().process_response_params(params, accepted)
            decode = extension.decode

            def recorded(frame: Frame, *, max_size: int | None = None) -> Frame:
                out = decode(frame, max_size=max_size)
                if frame.opcode is Opcode.TEXT:
                    seen.append((frame.rsv1, len(out.data)))
                return out

            extension.decode = recorded
            return extension

    cookie = server.session()
    table = server.post("/api/tables", {"mode": "computer"}, cookie)["table"]
    url = server.url.replace("http://", "ws://") + f"/ws/tables/{table}?history=delta&state=patch"

    async def main() -> None:
        async with connect(
            url,
            additional_headers={"Cookie": cookie},
            extensions=[Recording(client_max_window_bits=True)],
            compression=None,
        ) as ws:
            held = json.loads(await ws.recv())
            for _ in range(40):  # our moves and the computer seats' until enough patches came
                view = held["view"]
                if view["turn"] == view["seat"] and view["legal"]:
                    action = view["legal"][-1]
                    await ws.send(json.dumps({"type": "action", "version": held["version"], "action": action}))
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                if message["type"] != "state":
                    continue
                held = {**message, "view": {**held["view"], **message["view"]}}
                if sum(1 for _, n in seen if n < COMPRESS_FROM) >= 5:
                    break
            # the whole state again, its history whole: large whatever the deal (a first
            # state is about as large as the threshold, above or below it by the deal)
            await ws.send(json.dumps({"type": "sync"}))
            while json.loads(await asyncio.wait_for(ws.recv(), timeout=10))["type"] != "state":
                pass

    asyncio.run(main())
    assert sum(1 for _, n in seen if n < COMPRESS_FROM) >= 5, seen
    assert seen[-1][1] >= COMPRESS_FROM, seen  # the synced state
    assert all(rsv1 is (n >= COMPRESS_FROM) for rsv1, n in seen), seen


# ---------------------------------------------------------------------- the headers' deadline

HEADER_SERVER = """
import sys
from canasta.server import run
run(host="127.0.0.1", port=int(sys.argv[2]), db=sys.argv[1], access_log=False, header_seconds=1.0)
"""


@pytest.fixture
def strict_server(tmp_path: Path) -> Iterator[Any]:
    s = flood.ServerProcess(str(tmp_path / "headers.sqlite3"), HEADER_SERVER)
    s.start()
    yield s
    s.stop()


def _closed_within(sock: socket.socket, seconds: float, drip: bytes = b"") -> float | None:
    """How long until the server closes ``sock`` (None: still open after ``seconds``), while
    ``drip`` is sent a byte every 0.2 s."""
    start = time.monotonic()
    sock.settimeout(0.2)
    while time.monotonic() - start < seconds:
        if drip:
            try:
                sock.sendall(drip[:1])
            except OSError:  # closed meanwhile
                return time.monotonic() - start
            drip = drip[1:]
        try:
            if sock.recv(1024) == b"":
                return time.monotonic() - start
        except TimeoutError:
            continue
        except OSError:
            return time.monotonic() - start
    return None


def test_a_silent_connection_and_one_sending_its_headers_slowly_are_closed(strict_server: Any) -> None:
    with socket.create_connection(("127.0.0.1", strict_server.port)) as silent:
        closed = _closed_within(silent, 5.0)
        assert closed is not None and 0.8 <= closed < 3.0, closed
    with socket.create_connection(("127.0.0.1", strict_server.port)) as slow:
        slow.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        closed = _closed_within(slow, 5.0, drip=b"X-Slow: " + b"a" * 100)
        assert closed is not None and closed < 3.0, closed


def _get(sock: socket.socket, path: str) -> bytes:
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    sock.settimeout(5)
    answer = b""

    def more() -> bytes:
        got = sock.recv(4096)
        assert got, "the server closed the connection"
        return got

    while b"\r\n\r\n" not in answer:
        answer += more()
    head, _, body = answer.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
    while len(body) < length:
        body += more()
    return head.split(b"\r\n")[0]


def test_a_kept_alive_connection_has_the_deadline_again_after_each_answer(strict_server: Any) -> None:
    # stray line ends after an answer (which begin no request) and a next request's headers
    # sent slowly are both cut, as a first request's are
    for after in (b"\r\n", b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"):
        with socket.create_connection(("127.0.0.1", strict_server.port)) as sock:
            assert _get(sock, "/healthz").endswith(b"200 OK")
            sock.sendall(after)
            closed = _closed_within(sock, 5.0)
            assert closed is not None and closed < 3.0, (after, closed)


def test_requests_in_time_and_open_websockets_are_not_cut(strict_server: Any) -> None:
    with socket.create_connection(("127.0.0.1", strict_server.port)) as sock:
        time.sleep(0.5)
        assert _get(sock, "/healthz").endswith(b"200 OK")
        # kept alive past the deadline counted from the opening: a later request has its own
        time.sleep(1.5)
        assert _get(sock, "/healthz").endswith(b"200 OK")
    cookie = strict_server.session()
    table = strict_server.post("/api/tables", {"mode": "computer", "preset": "classic"}, cookie)["table"]

    async def idle_then_sync() -> dict[str, Any]:
        from websockets.asyncio.client import connect

        url = strict_server.url.replace("http://", "ws://") + f"/ws/tables/{table}"
        async with connect(url, additional_headers={"Cookie": cookie}) as ws:
            await asyncio.sleep(2.0)  # twice the deadline, idle
            await ws.send('{"type":"sync"}')
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if msg["type"] == "state" and msg["change"] == "sync":
                    return dict(msg)

    assert asyncio.run(idle_then_sync())["table"]["id"] == table


async def _slow_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An ASGI app whose ``/slow`` answers after 0.8 s, and every other path at once."""
    if scope["path"] == "/slow":
        await asyncio.sleep(0.8)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


def test_a_pipelined_request_has_its_deadline_from_the_end_of_the_answer_before_it() -> None:
    asyncio.run(_pipelined())


async def _pipelined() -> None:
    import uvicorn

    from canasta.server import ServerConfig
    from canasta.server.transport import uvicorn_options

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(
        _slow_app, lifespan="off", log_level="warning", **uvicorn_options(ServerConfig(header_seconds=0.3))
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve(sockets=[listener]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)

        async def answers(first: bytes, rest: bytes, pause: float, count: int = 0) -> tuple[bytes, float | None]:
            """What the server sends until it closes, and when it closed (seconds after the
            first bytes were sent), or until ``count`` answers came (then None); ``rest``
            follows ``first`` after ``pause``."""
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            start = time.monotonic()
            writer.write(first)
            got = b""
            sent_rest = not rest
            try:
                async with asyncio.timeout(5):
                    while True:
                        wait = None if sent_rest else max(0.0, start + pause - time.monotonic())
                        try:
                            chunk = await asyncio.wait_for(reader.read(4096), wait)
                        except TimeoutError:
                            writer.write(rest)
                            sent_rest = True
                            continue
                        if not chunk:
                            return got, time.monotonic() - start
                        got += chunk
                        if count and got.count(b"\r\n\r\nok") == count:
                            return got, None
            finally:
                writer.close()

        slow = b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        partial = b"GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        # the second request's headers never end: the slow answer still comes whole, and the
        # connection is closed one deadline after it (not one deadline after the bytes came)
        got, closed = await answers(slow + partial, b"", 0)
        assert got.startswith(b"HTTP/1.1 200") and got.endswith(b"\r\n\r\nok"), got
        assert closed is not None and 0.8 + 0.3 - 0.05 <= closed < 0.8 + 0.3 + 1.0, closed
        # their end comes after the slow answer and within the deadline from it: both answered
        got, closed = await answers(slow + partial, b"\r\n", 1.0, count=2)
        assert closed is None and got.count(b"HTTP/1.1 200") == 2, got
    finally:
        server.should_exit = True
        await serving
