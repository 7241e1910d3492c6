"""Storage: SQLAlchemy 2 (async) models, the database URL, Alembic migrations and queries.

The server keeps two kinds of rows: one per table (its options, the match record and the
table's own state such as the version and the pass-and-play handoff) and one per browser
profile with that profile's statistics.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, Integer, String, select
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

HERE = Path(__file__).resolve().parent


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    """A table: its match record plus the table state the record does not hold."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    profile: Mapped[str | None] = mapped_column(String(80), index=True)
    mode: Mapped[str] = mapped_column(String(16))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="playing")
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    handoff: Mapped[int | None] = mapped_column(Integer, nullable=True)
    viewer: Mapped[int | None] = mapped_column(Integer, nullable=True)
    hands_counted: Mapped[int] = mapped_column(Integer, default=0)
    match_counted: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=now)
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), default=now, index=True
    )


class StatsRow(Base):
    """Statistics of one browser profile (computer mode)."""

    __tablename__ = "profile_stats"

    profile: Mapped[str] = mapped_column(String(80), primary_key=True)
    played: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    best_hand: Mapped[int | None] = mapped_column(Integer, nullable=True)
    canastas: Mapped[int] = mapped_column(Integer, default=0)
    streak: Mapped[int] = mapped_column(Integer, default=0)
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=now)


def default_db_path() -> Path:
    """The embedded SQLite file in the user's data directory."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("canasta")) / "canasta.sqlite3"


def resolve_db_url(db: str | None) -> str:
    """An async SQLAlchemy URL from ``db``: a URL, a file path, or None for the default file."""
    if db is None or db == "":
        path = default_db_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        return f"sqlite+aiosqlite:///{path}"
    if "://" not in db:
        path = Path(db).expanduser()
        path.parent.mkdir(parents=True, exist_ok=True)
        return f"sqlite+aiosqlite:///{path}"
    scheme, rest = db.split("://", 1)
    if scheme in ("sqlite", "sqlite+pysqlite"):
        return f"sqlite+aiosqlite://{rest}"
    if scheme in ("postgres", "postgresql", "postgresql+psycopg2", "postgresql+psycopg"):
        return f"postgresql+asyncpg://{rest}"
    return db


def _alembic_upgrade(connection: Connection) -> None:
    from alembic import command
    from alembic.config import Config

    cfg = Config(str(HERE / "alembic.ini"))
    cfg.set_main_option("script_location", str(HERE / "migrations"))
    cfg.attributes["connection"] = connection
    command.upgrade(cfg, "head")


@dataclass
class StatsDelta:
    """What one saved change adds to a profile's statistics."""

    profile: str
    canastas: int = 0
    best_hand: int | None = None
    finished: bool = False
    won: bool = False

    def apply(self, row: StatsRow) -> None:
        row.canastas = (row.canastas or 0) + self.canastas
        if self.best_hand is not None and (row.best_hand is None or self.best_hand > row.best_hand):
            row.best_hand = self.best_hand
        if self.finished:
            row.played = (row.played or 0) + 1
            if self.won:
                row.won = (row.won or 0) + 1
                row.streak = (row.streak or 0) + 1
                row.best_streak = max(row.best_streak or 0, row.streak)
            else:
                row.streak = 0
        row.updated_at = now()


def stats_json(row: StatsRow | None) -> dict[str, Any]:
    if row is None:
        return {
            "played": 0,
            "won": 0,
            "best_hand": None,
            "canastas": 0,
            "streak": 0,
            "best_streak": 0,
        }
    return {
        "played": row.played,
        "won": row.won,
        "best_hand": row.best_hand,
        "canastas": row.canastas,
        "streak": row.streak,
        "best_streak": row.best_streak,
    }


class Store:
    """The database behind the server (SQLite or PostgreSQL)."""

    def __init__(self, url: str | None) -> None:
        url = self.url = resolve_db_url(url)
        kwargs: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": 30}
        self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    async def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision."""
        async with self.engine.begin() as conn:
            await conn.run_sync(_alembic_upgrade)

    async def dispose(self) -> None:
        await self.engine.dispose()

    async def load_table(self, table_id: str) -> TableRow | None:
        async with self.sessions() as s:
            return await s.get(TableRow, table_id)

    async def save_table(
        self, values: dict[str, Any], deltas: list[StatsDelta] | None = None
    ) -> None:
        """Insert or update a table row (and apply statistics) in one transaction."""
        async with self.sessions() as s, s.begin():
            row = await s.get(TableRow, values["id"])
            if row is None:
                row = TableRow(**values)
                s.add(row)
            else:
                for key, value in values.items():
                    setattr(row, key, value)
            row.updated_at = now()
            for delta in deltas or ():
                stats = await s.get(StatsRow, delta.profile)
                if stats is None:
                    stats = StatsRow(
                        profile=delta.profile,
                        played=0,
                        won=0,
                        best_hand=None,
                        canastas=0,
                        streak=0,
                        best_streak=0,
                    )
                    s.add(stats)
                delta.apply(stats)

    async def list_tables(self, profile: str, *, unfinished: bool = True) -> list[TableRow]:
        async with self.sessions() as s:
            q = select(TableRow).where(TableRow.profile == profile)
            if unfinished:
                q = q.where(TableRow.status != "match_over")
            q = q.order_by(TableRow.updated_at.desc())
            return list((await s.scalars(q)).all())

    async def get_stats(self, profile: str) -> dict[str, Any]:
        async with self.sessions() as s:
            return stats_json(await s.get(StatsRow, profile))

    async def reset_stats(self, profile: str) -> None:
        async with self.sessions() as s, s.begin():
            row = await s.get(StatsRow, profile)
            if row is not None:
                await s.delete(row)
