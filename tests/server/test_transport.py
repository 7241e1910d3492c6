"""Websocket compression: permessage-deflate for the large messages only (server/transport.py).

RFC 7692 section 6.1: a message is compressed when its first frame has RSV1 set; a sender may
leave any message uncompressed. The server compresses what is at least ``COMPRESS_FROM``
bytes long and sends the rest as it is; one client decodes both, in any order.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.extensions.permessage_deflate import (
    ClientPerMessageDeflateFactory,
    ServerPerMessageDeflateFactory,
)
from websockets.frames import Frame, Opcode

from canasta.server.transport import COMPRESS_FROM, LargeOnly, LargeOnlyDeflateFactory

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
