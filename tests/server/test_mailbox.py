"""The one-reader queue of tables and sockets (``server/mailbox.py``)."""

from __future__ import annotations

import asyncio

import pytest

from canasta.server.mailbox import Mailbox


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
