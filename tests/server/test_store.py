"""The storage layer directly (async): migrations, table rows, statistics."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text, update

from canasta import Game, Settings
from canasta.server.db import (
    SESSION_LIFETIME,
    Base,
    SessionRow,
    StatsDelta,
    Store,
    now,
    resolve_db_url,
    token_hash,
)
from canasta.server.table import Table

from .support import new_profile, new_table


@pytest.mark.asyncio
async def test_migrations_run_twice_and_reach_head(db_url: str) -> None:
    store = Store(db_url)
    try:
        await store.migrate()
        await store.migrate()
        async with store.engine.connect() as conn:
            version = (
                await conn.execute(text("select version_num from alembic_version"))
            ).scalar_one()
        assert version == "0008_report_player"
        async with store.engine.connect() as conn:
            diff = await conn.run_sync(
                lambda c: compare_metadata(MigrationContext.configure(c), Base.metadata)
            )
        assert diff == [], "the models and the migrations disagree"
    finally:
        await store.dispose()


@pytest.mark.asyncio
async def test_a_session_finds_its_account_until_it_lapses(db_url: str) -> None:
    """A session token finds its account; its use is recorded once a day; a session unused
    for longer than a session lives, or a token never issued, finds nothing."""
    store = Store(db_url)
    await store.migrate()
    try:
        token, account = await store.new_session()
        found = await store.session_account(token)
        assert found is not None and found.id == account.id
        assert await store.session_account(token + "x") is None

        async def age(days: float) -> None:
            async with store.engine.begin() as conn:
                await conn.execute(
                    update(SessionRow).where(SessionRow.token_hash == token_hash(token))
                    .values(last_seen_at=now() - dt.timedelta(days=days))
                )

        async def last_seen() -> dt.datetime:
            async with store.sessions() as s:
                row = await s.get(SessionRow, token_hash(token))
                assert row is not None
                return row.last_seen_at if row.last_seen_at.tzinfo else row.last_seen_at.replace(tzinfo=dt.UTC)

        await age(0.5)  # used within the day: not written again
        before = await last_seen()
        assert (await store.session_account(token)) is not None and await last_seen() == before
        await age(2)  # two days ago: this use is recorded
        assert (await store.session_account(token)) is not None
        assert now() - await last_seen() < dt.timedelta(minutes=1)
        await age(SESSION_LIFETIME.days + 1)  # lapsed
        assert await store.session_account(token) is None
    finally:
        await store.dispose()


@pytest.mark.asyncio
async def test_a_saved_table_reloads_to_the_same_game(db_url: str) -> None:
    store = Store(db_url)
    await store.migrate()
    try:
        table = Table.create(
            table_id=new_profile(),
            profile="p",
            mode="computer",
            settings=Settings.preset("classic"),
            difficulty="normal",
            store=store,
            delay_ms=0,
            seed=17,
        )
        game = table.game
        for _ in range(30):
            game.apply(game.state.legal_actions()[-1])
        table.version = 30
        await store.save_table(table.row_values())
        row = await store.load_table(table.id)
        assert row is not None
        again = Table.from_row(row, store)
        assert again.version == 30
        assert again.game.to_record() == game.to_record()
        for seat in range(4):
            assert again.game.state.view(seat).to_json() == game.state.view(seat).to_json()
        assert again.seats == table.seats
        assert isinstance(again.game, Game)
    finally:
        await store.dispose()


@pytest.mark.asyncio
async def test_stats_deltas_accumulate_and_reset(db_url: str) -> None:
    store = Store(db_url)
    await store.migrate()
    profile = new_profile()
    try:
        table = Table.create(
            table_id=new_profile(),
            profile=profile,
            mode="computer",
            settings=Settings.preset("classic"),
            difficulty="normal",
            store=store,
            delay_ms=0,
        )
        values = table.row_values()
        await store.save_table(
            values, [StatsDelta(profile, canastas=2, best_hand=300, finished=True, won=True)]
        )
        await store.save_table(
            values, [StatsDelta(profile, canastas=1, best_hand=-50, finished=True, won=True)]
        )
        await store.save_table(
            values, [StatsDelta(profile, best_hand=900, finished=True, won=False)]
        )
        await store.save_table(values, [StatsDelta(profile, finished=True, won=True)])
        assert await store.get_stats(profile) == {
            "played": 4,
            "won": 3,
            "best_hand": 900,
            "canastas": 3,
            "streak": 1,
            "best_streak": 2,
        }
        await store.reset_stats(profile)
        assert (await store.get_stats(profile))["played"] == 0
    finally:
        await store.dispose()


def test_database_urls(tmp_path: Path) -> None:
    assert resolve_db_url(str(tmp_path / "x.db")) == f"sqlite+aiosqlite:///{tmp_path / 'x.db'}"
    assert resolve_db_url("sqlite:///a.db") == "sqlite+aiosqlite:///a.db"
    assert resolve_db_url("postgresql://u@h/db") == "postgresql+asyncpg://u@h/db"
    assert resolve_db_url("postgresql+asyncpg://u@h/db") == "postgresql+asyncpg://u@h/db"
    assert resolve_db_url(None).startswith("sqlite+aiosqlite:///")


def test_the_state_saved_with_each_change_has_every_state_field() -> None:
    """``Table._state_values`` writes its fields out (it runs at every change): it must still
    give exactly the columns a rollback and a reload put back."""
    from canasta.server.table import _STATE_FIELDS

    table = new_table(None, "fields")
    for n, name in enumerate(_STATE_FIELDS):  # a distinct value each: no field read for another
        setattr(table, name, f"value {n}")
    values = table._state_values()
    assert set(values) == {"game_version", "options", "status", *_STATE_FIELDS}
    assert all(values[name] == getattr(table, name) for name in _STATE_FIELDS)


@pytest.mark.parametrize("url", ["sqlite+aiosqlite:///:memory:", "sqlite+aiosqlite://", "sqlite:///:memory:"])
def test_an_in_memory_database_opens(url: str) -> None:
    """File databases take their pool's last-used connection first; an in-memory one has a
    single connection (no such pool) and must still open."""
    assert Store(url).sqlite_path() is None
