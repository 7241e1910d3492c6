"""The one-reader queue of tables and sockets (``server/mailbox.py``)."""

from __future__ import annotations

import asyncio

import pytest

from canasta.server.conn import Conn
from canasta.server.mailbox import Mailbox
from canasta.server.sockets import write_frames
from canasta.server.transport import SEND_NOW


def test_items_come_out_in_order_within_the_bound() -> None:
    box: Mailbox[int] = Mailbox(3)
    for i in range(3):
        box.put_nowait(i)
    with pytest.raises(asyncio.QueueFull):
        box.put_nowait(3)
    assert box.qsize() == 3 and not box.empty() and box.maxsize == 3
    assert [box.get_nowait() for _ in range(3)] == [0, 1, 2]
    assert box.empty()
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()


@pytest.mark.asyncio
async def test_a_waiting_reader_is_woken_and_a_cancelled_one_loses_nothing() -> None:
    box: Mailbox[str] = Mailbox()
    reader = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    box.put_nowait("a")
    box.put_nowait("b")
    assert await reader == "a"
    assert await box.get() == "b"
    # cancelled while it waits: the next item stays for the next reader
    waiting = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    box.put_nowait("c")
    assert await asyncio.wait_for(box.get(), 1) == "c"
    # woken, then cancelled before it ran: the item is still there
    late = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    box.put_nowait("d")
    late.cancel()
    with pytest.raises(asyncio.CancelledError):
        await late
    assert box.get_nowait() == "d"


@pytest.mark.asyncio
async def test_a_second_reader_is_refused() -> None:
    box: Mailbox[int] = Mailbox()
    first = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="one reader"):
        await box.get()
    box.put_nowait(1)
    assert await first == 1


class _Socket:
    """A websocket as ``write_frames`` uses it: the server's direct send (which takes a
    message only while ``open``) and ASGI's, which waits until ``release`` is set."""

    def __init__(self) -> None:
        self.open = True
        self.sent: list[tuple[str, str]] = []
        self.release = asyncio.Event()
        self.scope = {"extensions": {SEND_NOW: self.send_now}}

    def send_now(self, text: str) -> bool:
        if self.open:
            self.sent.append(("now", text))
        return self.open

    async def send_text(self, text: str) -> None:
        await self.release.wait()
        self.sent.append(("asgi", text))


@pytest.mark.asyncio
async def test_a_connection_writes_at_once_only_while_its_writer_waits_and_keeps_the_order() -> None:
    """A message is written at once by ``Conn.send`` when the socket's writer waits for one;
    one the socket cannot take now goes to the writer, and what is sent while the writer holds
    a message queues behind it: the socket gets every message once, in order."""
    conn = Conn(account=None, owner=True)
    socket = _Socket()
    conn.send({"n": 0})  # before the writer runs: queued
    writer = asyncio.create_task(write_frames(socket, conn))  # type: ignore[arg-type]
    await asyncio.sleep(0)
    assert socket.sent == [("now", '{"n":0}')] and conn.send_now is not None
    conn.send({"n": 1})  # the writer waits: written at once, nothing queued
    assert socket.sent[-1] == ("now", '{"n":1}') and conn.outbox.empty()
    socket.open = False  # the socket takes nothing more now: the writer sends through ASGI
    conn.send({"n": 2})
    await asyncio.sleep(0)
    socket.open = True
    conn.send({"n": 3})  # the writer holds message 2: this one waits behind it
    conn.send("{\"n\":4}")
    assert [text for _, text in socket.sent] == ['{"n":0}', '{"n":1}']
    socket.release.set()
    for _ in range(5):
        await asyncio.sleep(0)
    assert socket.sent[2:] == [("asgi", '{"n":2}'), ("now", '{"n":3}'), ("now", '{"n":4}')]
    conn.close()
    await asyncio.wait_for(writer, 1)
    assert conn.send_now is None
