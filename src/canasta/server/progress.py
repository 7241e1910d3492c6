"""A player's progress against the computer beyond the counted results: the win streak broken
by a match left unfinished, and "Reset progress", which also sets the unfinished matches aside.

A table set aside keeps its row (its finished matches stay replayable) but carries
``options["set_aside"]``: it is no longer offered under Continue and its socket answers
``table_not_found``, so the position is gone for the player.
"""

from __future__ import annotations

from sqlalchemy import update

from .db import StatsRow, Store, TableRow
from .table import MODES
from .tables import Tables

#: the modes whose unfinished matches are "your position" (online matches belong to everyone)
OFFLINE_MODES = MODES


def set_aside(row: TableRow) -> bool:
    """Whether "Reset progress" set this table aside."""
    return bool((row.options or {}).get("set_aside"))


async def unfinished_computer_match(store: Store, account: str) -> bool:
    """Whether the account has a match against the computer in progress that counts (its
    results would change the statistics: not a chosen deal, not set aside)."""
    for row in await store.list_tables(account):
        if row.mode == "computer" and not (row.options or {}).get("seeded") and not set_aside(row):
            return True
    return False


async def break_streak(store: Store, account: str) -> None:
    """A new match started before the last one finished: the win streak starts again (the
    best streak stays)."""
    async with store.sessions() as s, s.begin():
        await s.execute(
            update(StatsRow)
            .where(StatsRow.profile == account)
            .values(streak=0)
            .execution_options(synchronize_session=False)
        )


async def set_aside_unfinished(store: Store, tables: Tables, account: str) -> list[str]:
    """Set aside every unfinished offline match of the account; their ids."""
    ids = []
    for row in await store.list_tables(account):
        if row.mode not in OFFLINE_MODES or set_aside(row):
            continue
        options = {**(row.options or {}), "set_aside": True}
        # the live table must hold the mark too (a change that saves its options keeps it)
        live = tables.peek(row.id)
        if live is not None:
            live.options["set_aside"] = True
        async with store.sessions() as s, s.begin():
            await s.execute(
                update(TableRow)
                .where(TableRow.id == row.id)
                .values(options=options)
                .execution_options(synchronize_session=False)
            )
        ids.append(row.id)
    return ids
