"""One websocket connection as the tables see it: who it is, and its bounded outbox."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from ..view import SeatView
from .config import ServerConfig
from .encoding import dumps
from .limits import TokenBucket
from .mailbox import Mailbox

#: websocket close codes the server uses (docs/protocol.md, "Limits")
CLOSE_POLICY = 1008  # too many messages: the socket is abusive
CLOSE_TOO_BIG = 1009  # a frame over the size limit
CLOSE_TRY_AGAIN = 1013  # the client could not keep up with its messages, or the server is full
CLOSE_RELOAD = 4409  # the table was reloaded elsewhere: reconnect
CLOSE_SESSION_ENDED = 4401  # the session the socket was opened with ended: reconnect


def as_text(message: dict[str, Any] | str) -> str:
    """A message as the socket sends it: its JSON text (given, or encoded now)."""
    return message if isinstance(message, str) else dumps(message)


class Conn:
    """A socket at a table: its account, whether it controls the table, and its outbox.

    The outbox holds at most ``outbox_limit`` messages: a reader that falls that far behind
    is dropped (it reconnects and is sent the current state) instead of buffered forever.
    ``inflight`` bounds how many of its messages wait in the table's queue.
    """

    def __init__(
        self,
        *,
        account: str | None,
        owner: bool,
        outbox_limit: int = 64,
        inflight_limit: int = 8,
        rate: float = 10.0,
        burst: int = 30,
        suggest_rate: float = 1.0,
        suggest_burst: int = 3,
    ) -> None:
        self.account = account
        self.owner = owner
        #: the hash of the session token the socket was opened with (a browser's socket, on
        #: the node it reached; None for the copies a table's owner node keeps of sockets
        #: forwarded to it): see :class:`SessionSockets`
        self.session: str | None = None
        #: the client's address (a lobby socket on the node it reached: it starts matches,
        #: counted against the address's new tables); None where unknown
        self.address: str | None = None
        #: messages to send: a dict, or JSON text already encoded (shared by an audience)
        self.outbox: Mailbox[dict[str, Any] | str | None] = Mailbox(outbox_limit + 1)
        self.inflight = asyncio.Semaphore(inflight_limit)
        self.bucket = TokenBucket(rate, burst)
        self.suggest_bucket = TokenBucket(suggest_rate, suggest_burst)
        #: whether the table counted this socket among its owner's when it joined
        self.joined_as_owner = False
        self.close_code: int | None = None
        self.close_reason = ""
        #: set when the socket is dropped: its handler stops reading and writing at once
        self.dead = asyncio.Event()
        #: the client keeps the hand's history and is sent only the events it has not seen
        #: (``?history=delta``); ``history_mark`` is what it holds: (the table's history
        #: epoch, the events sent), or None before its first state
        self.history_delta = False
        self.history_mark: tuple[int, int] | None = None
        #: the client keeps the last state and is sent only the parts of the next one that
        #: differ (``?state=patch``); ``state_held`` is what it holds: (that message's number,
        #: the view it was built from and its table), or None before its first state and
        #: after a ``sync``
        self.state_patch = False
        self.state_held: tuple[int, SeatView, dict[str, Any]] | None = None
        #: set by the socket's writer while it runs, when the server can write a message at
        #: once (``transport.SEND_NOW``): :meth:`send` then writes a message itself whenever
        #: the writer waits for one, instead of waking the writer for it
        self.send_now: Callable[[str], bool] | None = None

    @staticmethod
    def limits(config: ServerConfig) -> dict[str, Any]:
        """The server's per-socket limits, as keyword arguments of a connection."""
        return {
            "outbox_limit": config.outbox_limit,
            "inflight_limit": config.inflight_per_conn,
            "rate": config.message_rate,
            "burst": config.message_burst,
            "suggest_rate": config.suggest_rate,
            "suggest_burst": config.suggest_burst,
        }

    @classmethod
    def with_limits(cls, config: ServerConfig, *, account: str | None, owner: bool) -> Conn:
        """A connection with the server's per-socket limits."""
        return cls(account=account, owner=owner, **cls.limits(config))

    @property
    def closed(self) -> bool:
        return self.close_code is not None

    def send(self, message: dict[str, Any] | str) -> None:
        """Send a message (or its JSON text) to this socket: written at once when its writer
        waits for one (so nothing is queued or being written ahead of it) and the socket takes
        it, else queued for the writer; a full outbox drops the socket."""
        if self.closed:
            return
        send_now = self.send_now
        if send_now is not None and self.outbox.reader_waits:
            try:
                if send_now(as_text(message)):
                    return
            except Exception:  # the socket broke: queued, its writer finds out and ends
                pass
        if self.outbox.qsize() >= self.outbox.maxsize - 1:
            self.drop(CLOSE_TRY_AGAIN, "too slow: reconnect")
            return
        self.outbox.put_nowait(message)

    def drop(self, code: int, reason: str) -> None:
        """Close this socket with ``code`` once what is already queued ahead is thrown away."""
        if self.closed:
            return
        self.close_code, self.close_reason = code, reason
        while not self.outbox.empty():
            self.outbox.get_nowait()
        self.outbox.put_nowait(None)
        self.dead.set()

    @property
    def dropped(self) -> bool:
        return self.dead.is_set()

    def close(self, code: int = 1000, reason: str = "") -> None:
        """End the writer after the messages already queued (by default a normal close)."""
        if self.closed:
            return
        self.close_code, self.close_reason = code, reason
        with contextlib.suppress(asyncio.QueueFull):
            self.outbox.put_nowait(None)
            return
        self.outbox.get_nowait()
        self.outbox.put_nowait(None)


class SessionSockets:
    """This node's browser sockets by the account and session they were opened with.

    A socket reads its account from the session cookie once, when it opens; when that session
    ends (a logout, logging out everywhere, a password changed or reset, a login replacing
    the browser's session), :meth:`end` closes its sockets (:data:`CLOSE_SESSION_ENDED`), so
    that none acts for the account afterwards. The page reconnects with whatever session it
    holds now (another account, a guest, or none: then it only watches)."""

    def __init__(self) -> None:
        self._by_account: dict[str, set[Conn]] = {}

    def add(self, conn: Conn) -> None:
        if conn.account is not None and conn.session is not None:
            self._by_account.setdefault(conn.account, set()).add(conn)

    def discard(self, conn: Conn) -> None:
        if conn.account is None:
            return
        conns = self._by_account.get(conn.account)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self._by_account[conn.account]

    def end(self, account: str, *, keep: str | None = None, only: str | None = None) -> int:
        """Close ``account``'s sockets opened with a session now ended: every one but those
        of session ``keep``, or only those of session ``only`` (hashes); how many."""
        ended = [
            c
            for c in self._by_account.get(account, ())
            if c.session != keep and (only is None or c.session == only)
        ]
        for conn in ended:
            conn.drop(CLOSE_SESSION_ENDED, "your session ended: reconnect")
            self.discard(conn)
        return len(ended)
