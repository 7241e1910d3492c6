"""How the server's websockets are framed: compression (RFC 7692 permessage-deflate) for the
large messages only.

Browsers offer permessage-deflate on every socket, and by default every message would then be
compressed. Most of a table's messages are small: a state patch after a move is a few hundred
bytes, sent to each player several times a second. Compressing one costs tens of microseconds
of the event loop (zlib, with a compressor per socket whose memory is cold by the time that
socket's next message comes); under load that was about a tenth of the server's CPU, to save
a few hundred bytes a message. A message of at least :data:`COMPRESS_FROM` bytes (a whole state
on connect, the end of a hand, a replay, the lobby's lists) is still compressed; a smaller one
goes as it is. RFC 7692 lets a sender choose per message (the first frame's RSV1 bit says which),
so every client decodes both.

Every HTTP connection also has a deadline for its request's headers
(:class:`HeaderDeadlineProtocol`): uvicorn itself waits without limit for a connection that
sends nothing, or its headers a byte at a time, so a host could hold thousands of connections
(file descriptors) with half-sent requests.

It also gives the socket's writer a direct way to send a text message (:data:`SEND_NOW`, an
ASGI scope extension): a socket that is open and not paused by flow control is written at
once, without going through Starlette's send and its middleware's wrappers; otherwise the
writer sends the usual way (which waits for the socket to drain, or fails when it is closed).

``canasta serve``, the load probe and the browser tests run uvicorn with :func:`uvicorn_options`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.extensions.base import Extension, ServerExtensionFactory
from websockets.extensions.permessage_deflate import ServerPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.typing import ExtensionParameter

from .config import ServerConfig
from .protocol import MAX_MESSAGE_BYTES

#: messages shorter than this (bytes) are sent uncompressed
COMPRESS_FROM = 2048

#: the scope extension holding a socket's direct send: ``send_now(text) -> bool``
SEND_NOW = "canasta.send_now"

_DATA = (Opcode.TEXT, Opcode.BINARY)


def text_frame(data: bytes) -> bytes:
    """A server's text message in one uncompressed frame (RFC 6455, 5.2): FIN and the text
    opcode, no mask, the payload's length in 7, 7 + 16 or 7 + 64 bits, then ``data`` (UTF-8)."""
    n = len(data)
    if n < 126:
        return bytes((0x81, n)) + data
    if n < 1 << 16:
        return b"\x81\x7e" + n.to_bytes(2, "big") + data
    return b"\x81\x7f" + n.to_bytes(8, "big") + data


class LargeOnly(Extension):
    """The negotiated permessage-deflate, applied to the messages of at least ``least`` bytes
    sent in one frame (and to every fragmented one); what the client sends is decoded as
    before."""

    def __init__(self, inner: Extension, least: int = COMPRESS_FROM) -> None:
        self.inner = inner
        self.least = least
        self.name = inner.name

    def decode(self, frame: Frame, *, max_size: int | None = None) -> Frame:
        return self.inner.decode(frame, max_size=max_size)

    def encode(self, frame: Frame) -> Frame:
        if frame.fin and frame.opcode in _DATA and len(frame.data) < self.least:
            return frame  # RSV1 clear: an uncompressed message
        return self.inner.encode(frame)


class LargeOnlyDeflateFactory(ServerExtensionFactory):
    """Negotiates permessage-deflate as ``inner`` (websockets' own factory, with its settings)
    does and applies it as :class:`LargeOnly`."""

    def __init__(self, inner: ServerPerMessageDeflateFactory, least: int = COMPRESS_FROM) -> None:
        self.inner = inner
        self.name = inner.name
        self.least = least

    def process_request_params(
        self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
    ) -> tuple[list[ExtensionParameter], Extension]:
        response, extension = self.inner.process_request_params(params, accepted_extensions)
        return response, LargeOnly(extension, self.least)


class WebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websocket protocol (the sans-I/O one), its permessage-deflate (as uvicorn
    sets it up, when ``ws_per_message_deflate`` is on) applied to large messages only."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn.available_extensions = [
            LargeOnlyDeflateFactory(f) if isinstance(f, ServerPerMessageDeflateFactory) else f
            for f in self.conn.available_extensions or []
        ]

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)  # none when the handshake was refused
        if scope is not None and not self.close_sent:
            scope["extensions"][SEND_NOW] = self.send_now

    def send_now(self, text: str) -> bool:
        """Write a text message now if the socket is open and its transport accepts more (as
        uvicorn's own send would, without awaiting anything); False when it cannot: the
        caller then sends it through ASGI."""
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or self.initial_response is not None
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        data = text.encode()
        conn = self.conn
        if (
            len(data) < COMPRESS_FROM
            and conn.state is State.OPEN
            and not conn.expect_continuation_frame
            and not conn.writes
        ):
            # what the protocol object would write for it (sent uncompressed: see LargeOnly),
            # framed here: its frame object, checks and list of writes cost more than the rest
            # of the send, a few times a second per socket
            self.transport.write(text_frame(data))
            return True
        try:
            conn.send_text(data)
        except InvalidState:
            return False
        self.transport.write(b"".join(conn.data_to_send()))
        return True


class HeaderDeadlineProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol (httptools) with a deadline for each request's headers: from
    the connection's opening for its first request, from the first byte after a response on
    a kept-alive connection (uvicorn's keep-alive timeout covers the wait before that byte). A
    request whose headers are not all there by then has its connection closed; a websocket's
    handshake is a request like any other, its socket unaffected once open. Only the headers:
    a request's body may come slowly (a reverse proxy's body timeout bounds that).

    A request pipelined behind one still being answered has its deadline from the end of that
    answer: the client may be waiting for it before it sends the rest, and a slow answer is
    never cut for it."""

    #: seconds for the headers (:attr:`ServerConfig.header_seconds`, set by :func:`uvicorn_options`)
    header_seconds: float = ServerConfig.header_seconds
    _header_timer: asyncio.TimerHandle | None = None
    #: a request has begun whose headers are not all there yet
    _in_headers: bool = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_header_timer()

    def data_received(self, data: bytes) -> None:
        # bytes after a finished response (the next request's, or stray line ends the parser
        # takes without beginning a request) stop uvicorn's keep-alive timer: the deadline
        # starts instead
        if self._answered():
            self._start_header_timer()
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_headers = True
        if self._answered():
            self._start_header_timer()

    def on_headers_complete(self) -> None:
        self._in_headers = False
        self._stop_header_timer()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # a pipelined request's headers still coming: their deadline starts now
        if self._in_headers and not self.transport.is_closing():
            self._start_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_header_timer()
        super().connection_lost(exc)

    def _answered(self) -> bool:
        """No request is being answered (none yet, or the last one's answer is complete)."""
        return self.cycle is None or self.cycle.response_complete

    def _start_header_timer(self) -> None:
        if self._header_timer is None:
            self._header_timer = self.loop.call_later(self.header_seconds, self._headers_late)

    def _stop_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_late(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()


def uvicorn_options(config: ServerConfig) -> dict[str, Any]:
    """The HTTP and websocket settings every server process passes to uvicorn, from the
    process's ``config`` (its ``header_seconds``: the deadline for a request's headers)."""
    http = type("HeaderDeadline", (HeaderDeadlineProtocol,), {"header_seconds": config.header_seconds})
    return {"http": http, "ws": WebSocketProtocol, "ws_max_size": MAX_MESSAGE_BYTES}
