"""A queue with one reader: a table's inbox (its worker task reads it) and a socket's outbox
(its writer task reads it).

Every table change passes through both, a few thousand times a second under load, and
:class:`asyncio.Queue` spends a dozen Python calls on each item for what these queues never
use (several readers, writers that wait, ``join``). A :class:`Mailbox` keeps the same
methods (``put_nowait``, ``get``, ``get_nowait``, ``empty``, ``qsize``, ``maxsize``, and
:class:`asyncio.QueueFull` / :class:`asyncio.QueueEmpty`) for a single reader: an item is
taken from the deque only by the reader once it runs, so a reader cancelled while it waits
loses nothing.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

__all__ = ["Mailbox"]

T = TypeVar("T")


class Mailbox(Generic[T]):
    """Items in order for one reader; ``maxsize`` (0: none) bounds what may wait."""

    __slots__ = ("_items", "_waiter", "maxsize")

    def __init__(self, maxsize: int = 0) -> None:
        self.maxsize = maxsize
        self._items: deque[T] = deque()
        self._waiter: asyncio.Future[None] | None = None

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    @property
    def reader_waits(self) -> bool:
        """Whether the reader waits for an item: nothing is queued, and the reader holds none
        it took before."""
        return self._waiter is not None

    def put_nowait(self, item: T) -> None:
        """Add ``item`` (:class:`asyncio.QueueFull` when ``maxsize`` items wait) and wake the
        reader if it waits."""
        if self.maxsize and len(self._items) >= self.maxsize:
            raise asyncio.QueueFull
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def get_nowait(self) -> T:
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.popleft()

    async def get(self) -> T:
        """The next item, once there is one (the one reader only)."""
        while not self._items:
            if self._waiter is not None:
                raise RuntimeError("a mailbox has one reader")
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        return self._items.popleft()
