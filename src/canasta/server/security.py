"""Checks every request passes before the app sees it, and what every answer carries.

- Host: only the configured names (a guard against DNS rebinding of a loopback server).
- Origin: websockets and state-changing requests only from an allowed origin (same origin by
  default), so another site cannot act for a browser that holds a session cookie.
- Bodies: at most ``max_body`` bytes, counted as they arrive (Content-Length may lie or be absent).
- Security headers on every HTTP answer, and one access-log line per request (method, path,
  status, time: never the query string or cookies).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from .config import BODY_LIMITS, ServerConfig

access_log = logging.getLogger("canasta.access")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})

#: the static client loads only its own files; it opens sockets to its own origin only (styles,
#: fonts and connections fall back to ``default-src``; every answer carries the policy, so it
#: says no more than it must)
CSP = (
    "default-src 'self'; script-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
#: headers of the static files that the ETag makes redundant (revalidation) or no client uses
_DROPPED = frozenset({b"last-modified", b"accept-ranges"})
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
#: headers that mean something only on a page (a document): the browser ignores them elsewhere
DOCUMENT_HEADERS = [
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=(), payment=()"),
]


def _cache_control(path: str) -> bytes:
    """API answers are per session and never stored; the client's files are revalidated
    (their ETag answers 304 when unchanged), since their names carry no version."""
    if path.startswith("/api/") or path in ("/healthz", "/metrics"):
        return b"no-store"
    return b"no-cache"


class _BodyTooLarge(Exception):
    pass


def number(raw: str | None, digits: int) -> int | None:
    """``raw`` as a number when it is 1 to ``digits`` ASCII digits, else None (``str.isdigit``
    admits ``"²"`` and other digits that ``int`` refuses, and ``int`` refuses a string of more
    than 4,300 digits: checked so, neither becomes a server error)."""
    if raw is None or not 0 < len(raw) <= digits or not raw.isascii() or not raw.isdigit():
        return None
    return int(raw)


def client_address(scope: Scope) -> str:
    """The client's address as limits count it: an IPv6 address by its /64 (one subscriber
    holds a whole /64, so counting single addresses would not limit anyone)."""
    client = scope.get("client")
    if not client:
        return "unknown"
    host = str(client[0])
    if ":" in host:
        try:
            ip = ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            return host
        if ip.ipv4_mapped is not None:  # an IPv4 client of a dual-stack socket: its own address
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return host


#: headers a reverse proxy adds: a request carrying one came from elsewhere through it
_FORWARDING = (b"forwarded", b"x-forwarded-for", b"x-real-ip")


def is_loopback(scope: Scope) -> bool:
    """Whether the request comes from this machine itself: from a loopback address, and not
    through a reverse proxy (one on this machine connects from loopback too, for every
    client; without ``--forwarded-allow-ips`` the client address would be the proxy's)."""
    if any(name in _FORWARDING for name, _ in scope.get("headers", ())):
        return False
    client = scope.get("client")
    try:
        return bool(client) and ipaddress.ip_address(client[0]).is_loopback
    except ValueError:
        return False


def _logged_path(scope: Scope) -> str:
    """The path as sent (still percent-encoded: no decoded newline can forge a log line)."""
    raw = scope.get("raw_path")
    if isinstance(raw, bytes):
        return raw.decode("latin-1")
    return repr(scope.get("path", ""))[1:-1]


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key == name:
            try:
                return str(value.decode("latin-1"))
            except Exception:  # pragma: no cover - latin-1 decodes every byte
                return None
    return None


class SecurityMiddleware:
    """Host and Origin checks, body limits, security headers and the access log."""

    def __init__(self, app: ASGIApp, *, config: ServerConfig, max_body: int) -> None:
        self.app = app
        self.config = config
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    def _refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        host = _header(scope, b"host")
        if not self.config.host_allowed(host):
            return 400, "bad_host", "this server does not answer to that host name"
        unsafe = scope["type"] == "websocket" or scope.get("method") in _UNSAFE
        if not unsafe:
            return None
        origin = _header(scope, b"origin")
        if origin is not None and not self.config.origin_allowed(
            origin, host, scope.get("scheme", "http")
        ):
            return 403, "bad_origin", "requests from that origin are not allowed"
        if origin is None and _header(scope, b"sec-fetch-site") == "cross-site":
            return 403, "bad_origin", "cross-site requests are not allowed"
        return None

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        refusal = self._refusal(scope)
        if refusal is not None:
            access_log.info("WS %s %d", _logged_path(scope), refusal[0])
            # closing before accepting answers the handshake with HTTP 403
            await send({"type": "websocket.close", "code": 4403, "reason": refusal[1]})
            return
        access_log.info("WS %s open", _logged_path(scope))
        await self.app(scope, receive, send)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = time.perf_counter()
        status = 0
        started = False

        async def send_wrapper(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status = int(message["status"])
                started = True
                headers = [h for h in message.get("headers") or [] if h[0].lower() not in _DROPPED]
                present = {k.lower() for k, _ in headers}
                headers.extend(h for h in SECURITY_HEADERS if h[0] not in present)
                if any(k.lower() == b"content-type" and v.startswith(b"text/html") for k, v in headers):
                    headers.extend(h for h in DOCUMENT_HEADERS if h[0] not in present)
                if b"cache-control" not in present:
                    headers.append((b"cache-control", _cache_control(scope.get("path", ""))))
                message = {**message, "headers": headers}
            await send(message)

        async def error(code_status: int, code: str, text: str) -> None:
            body = json.dumps({"error": {"code": code, "message": text}}).encode()
            await send_wrapper(
                {
                    "type": "http.response.start",
                    "status": code_status,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send_wrapper({"type": "http.response.body", "body": body})

        max_body = BODY_LIMITS.get(scope.get("path", ""), self.max_body)
        try:
            refusal = self._refusal(scope)
            length = _header(scope, b"content-length")
            if refusal is not None:
                await error(*refusal)
            elif length is not None and ((size := number(length, 18)) is None or size > max_body):
                await error(
                    413, "body_too_large", f"request bodies are limited to {max_body} bytes"
                )
            else:
                received = 0

                async def counting_receive() -> Message:
                    nonlocal received
                    message = await receive()
                    if message["type"] == "http.request":
                        received += len(message.get("body") or b"")
                        if received > max_body:
                            raise _BodyTooLarge
                    return message

                try:
                    await self.app(scope, counting_receive, send_wrapper)
                except _BodyTooLarge:
                    if started:
                        raise
                    await error(
                        413,
                        "body_too_large",
                        f"request bodies are limited to {max_body} bytes",
                    )
        finally:
            access_log.info(
                "%s %s %d %.1fms",
                scope.get("method", "?"),
                _logged_path(scope),
                status,
                (time.perf_counter() - start) * 1000,
            )
