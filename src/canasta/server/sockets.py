"""Serving one accepted websocket: reading its frames within its limits, writing its outbox,
and closing it the same way whether it is a table's, the lobby's or a forwarded one."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

from starlette.websockets import WebSocket, WebSocketDisconnect

from .conn import CLOSE_POLICY, Conn, as_text
from .protocol import MAX_MESSAGE_BYTES, error_message
from .transport import SEND_NOW


def frame_size(raw: str | bytes) -> int:
    if isinstance(raw, bytes):
        return len(raw)
    if len(raw) * 4 <= MAX_MESSAGE_BYTES:  # cheap: no encoding needed to know it fits
        return len(raw)
    return len(raw.encode("utf-8", "surrogatepass"))


async def read_frames(
    websocket: WebSocket,
    conn: Conn,
    deliver: Callable[[str | bytes], Awaitable[None]],
    version: Callable[[], int | None] = lambda: None,
) -> None:
    """Hand a socket's frames to ``deliver``, within the socket's rate and size limits."""
    with contextlib.suppress(WebSocketDisconnect):
        while not conn.closed:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                return
            if not conn.bucket.take():
                conn.drop(CLOSE_POLICY, "too many messages")
                return
            raw = message.get("text")
            if raw is None:
                raw = message.get("bytes") or b""
            if frame_size(raw) > MAX_MESSAGE_BYTES:
                conn.send(
                    error_message(
                        "message_too_large",
                        f"messages are limited to {MAX_MESSAGE_BYTES} bytes",
                        version=version(),
                    )
                )
                continue
            await deliver(raw)


async def write_frames(websocket: WebSocket, conn: Conn) -> None:
    """Send one connection's messages in order: at once when the server offers it
    (``transport.SEND_NOW``) and the socket can take it, else through ASGI. While it runs and
    waits for a message, :meth:`Conn.send` writes one at once itself (the same way): only one
    of them ever writes, and in the order the messages were sent."""
    send_now = (websocket.scope.get("extensions") or {}).get(SEND_NOW)
    conn.send_now = send_now  # while this writer waits, the connection writes itself
    try:
        while True:
            message = await conn.outbox.get()
            if message is None:
                return
            text = as_text(message)
            try:
                if send_now is None or not send_now(text):
                    await websocket.send_text(text)
            except Exception:
                return
    finally:
        conn.send_now = None


async def run_socket(
    websocket: WebSocket,
    conn: Conn,
    reader: Awaitable[None],
    *,
    ending: Callable[[], Awaitable[None] | None],
    watch: Awaitable[None] | None = None,
    default_code: int = CLOSE_POLICY,
) -> None:
    """Read and write until the socket ends (or ``watch`` ends it); then ``ending`` (leave the
    table or the lobby), and close: at once when the connection was dropped (a flood, a slow
    reader, a moved table), else after what is already queued."""
    writer = asyncio.ensure_future(write_frames(websocket, conn))
    tasks = {asyncio.ensure_future(reader), writer, asyncio.ensure_future(conn.dead.wait())}
    if watch is not None:
        tasks.add(asyncio.ensure_future(watch))
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        result = ending()
        if result is not None:
            with contextlib.suppress(Exception):
                await result
        if conn.dropped:
            for task in tasks:
                task.cancel()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    websocket.close(code=conn.close_code or default_code, reason=conn.close_reason),
                    timeout=1.0,
                )
        else:
            conn.close()  # the writer sends what is queued, then ends
            with contextlib.suppress(Exception):
                await asyncio.wait_for(writer, timeout=2.0)
            for task in tasks:
                task.cancel()
            if conn.close_code not in (None, 1000):  # a refusal after its reason (try again)
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(
                        websocket.close(code=conn.close_code, reason=conn.close_reason), timeout=1.0
                    )
