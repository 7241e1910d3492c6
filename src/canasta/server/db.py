"""Storage: SQLAlchemy 2 (async) models, the database URL, Alembic migrations and queries.

The server keeps a row per table (its options, the match record and the table's own state such
as the version and the pass-and-play handoff), a row per account with its statistics, and the
sessions that identify browsers (only a hash of each session token is stored).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import functools
import hashlib
import os
import secrets
import sqlite3
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Annotated, Any

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    bindparam,
    case,
    delete,
    event,
    or_,
    select,
    text,
    update,
)
from sqlalchemy import insert as insert_row
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from .encoding import dumps, loads

HERE = Path(__file__).resolve().parent


def now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Base(DeclarativeBase):
    pass


#: a moment with its time zone: when the row was written, unless given
Timestamp = Annotated[dt.datetime, mapped_column(DateTime(timezone=True), default=now)]
#: the account a row belongs to: rows are looked up by it and deleted with it
AccountRef = Annotated[
    str, mapped_column(String(40), ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
]
#: a token's row is keyed by the token's SHA-256 (hex), never by the token itself
TokenHash = Annotated[str, mapped_column(String(64), primary_key=True)]


class TableRow(Base):
    """A table: the table state the record does not hold (current, small, rewritten with each
    change), and a snapshot of the match record as of change ``snapshot_seq``; the changes
    after it are rows of :class:`TableLogRow`."""

    __tablename__ = "tables"
    #: the online matches in play are looked up at start (their clocks run)
    __table_args__ = (Index("ix_tables_mode_status", "mode", "status"),)

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
    #: the game version clients quote with their moves (``version`` counts every change,
    #: cosmetic ones too: it is the log's sequence number)
    game_version: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: the version (log sequence number) the ``record`` snapshot is at
    snapshot_seq: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[Timestamp]
    updated_at: Mapped[dt.datetime] = mapped_column(
        DateTime(timezone=True), default=now, index=True
    )


class TableLogRow(Base):
    """One accepted change of a table: its sequence number is the version it produced.

    The primary key (table, seq) is the last guard against two writers: a second writer of
    the same version cannot commit.
    """

    __tablename__ = "table_log"

    table_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    entry: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[Timestamp]


class AccountRow(Base):
    """A player: a guest account now; registration adds its credentials to this row later."""

    __tablename__ = "accounts"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), default="guest")
    name: Mapped[str | None] = mapped_column(String(40), nullable=True)
    #: the browser-made profile id this account took over (once) when sessions arrived
    legacy_profile: Mapped[str | None] = mapped_column(String(80), nullable=True, unique=True)
    created_at: Mapped[Timestamp]


class SessionRow(Base):
    """A browser's session: the SHA-256 of its random token, never the token itself."""

    __tablename__ = "sessions"

    token_hash: Mapped[TokenHash]
    account_id: Mapped[AccountRef]
    created_at: Mapped[Timestamp]
    last_seen_at: Mapped[Timestamp]


class LobbyRow(Base):
    """A piece of the lobby that outlives a restart: a quick-match queue entry (``kind``
    "queue", keyed by account) or a private room ("room", keyed by its code)."""

    __tablename__ = "lobby_entries"

    key: Mapped[str] = mapped_column(String(80), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), index=True)
    value: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_at: Mapped[Timestamp]


def stats_key(account: str, scope: str = "offline") -> str:
    """The statistics row of an account: its id for games against the computer,
    ``online:<id>`` for online matches (counted apart)."""
    return account if scope == "offline" else f"{scope}:{account}"


class StatsRow(Base):
    """Statistics of one account: ``profile`` is :func:`stats_key` of the account and scope."""

    __tablename__ = "profile_stats"

    profile: Mapped[str] = mapped_column(String(80), primary_key=True)
    played: Mapped[int] = mapped_column(Integer, default=0)
    won: Mapped[int] = mapped_column(Integer, default=0)
    best_hand: Mapped[int | None] = mapped_column(Integer, nullable=True)
    canastas: Mapped[int] = mapped_column(Integer, default=0)
    streak: Mapped[int] = mapped_column(Integer, default=0)
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[Timestamp]


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

    def params(self, moment: dt.datetime) -> dict[str, Any]:
        """The bound values of :func:`stats_update` for this delta."""
        return {
            "d_profile": self.profile,
            "d_canastas": self.canastas,
            "d_best": self.best_hand,
            "d_now": moment,
        }

    def statement(self) -> Any:
        return stats_update(self.best_hand is not None, self.finished, self.won)


@functools.cache
def stats_update(best: bool, finished: bool, won: bool) -> Any:
    """``UPDATE profile_stats`` by a delta of one shape (a best hand or not, a finished match
    won or lost, or none), as SQL expressions of the row's own columns: concurrent saves of
    one account's tables each add their part (no read-modify-write to lose an update). Every
    value is a bound parameter (:meth:`StatsDelta.params`), so each of the few shapes is built
    and compiled once, not at every hand's end."""
    c = StatsRow.__table__.c
    d_best = bindparam("d_best", type_=Integer)
    values: dict[Any, Any] = {
        c.canastas: c.canastas + bindparam("d_canastas", type_=Integer),
        c.updated_at: bindparam("d_now", type_=c.updated_at.type),
    }
    if best:
        values[c.best_hand] = case(
            (or_(c.best_hand.is_(None), c.best_hand < d_best), d_best), else_=c.best_hand
        )
    if finished:
        values[c.played] = c.played + 1
        if won:
            values[c.won] = c.won + 1
            values[c.streak] = c.streak + 1
            # every right-hand side reads the row as it was before this update
            values[c.best_streak] = case(
                (c.best_streak < c.streak + 1, c.streak + 1), else_=c.best_streak
            )
        else:
            values[c.streak] = 0
    return update(StatsRow.__table__).where(c.profile == bindparam("d_profile")).values(values)


#: the statistics a player is shown, in order: the columns of :class:`StatsRow` but its key
#: and time; a player with no row has played nothing (no best hand yet)
STATS_SHOWN = ("played", "won", "best_hand", "canastas", "streak", "best_streak")


def stats_json(row: StatsRow | None) -> dict[str, Any]:
    if row is None:
        return {name: None if name == "best_hand" else 0 for name in STATS_SHOWN}
    return {name: getattr(row, name) for name in STATS_SHOWN}


class VersionConflict(Exception):
    """The stored table changed since this process read it (another writer)."""


class NodeLockTaken(Exception):
    """Another server process already serves this database."""


#: a session unused this long is no identity any more (browsers keep the cookie 400 days)
SESSION_LIFETIME = dt.timedelta(days=400)


def _aware(moment: dt.datetime) -> dt.datetime:
    """SQLite hands back naive datetimes of what was stored as UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


#: URL settings SQLAlchemy's asyncpg adapter takes for itself (the writer's own connection
#: leaves them out)
_SQLALCHEMY_ONLY = ("prepared_statement_cache_size", "prepared_statement_name_func", "async_creator_fn")

#: changes committed in one transaction at most (group commit)
GROUP_COMMIT_MAX = 256


class _Separately(Exception):
    """A batch written together met a stale version: write it again change by change."""


@dataclass(slots=True, eq=False)
class _Change:
    """One table change waiting for the group commit (compared by identity)."""

    table_id: str
    seq: int
    entry: dict[str, Any]
    values: dict[str, Any]
    deltas: list[StatsDelta]
    done: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    conflict: bool = False

    def succeed(self) -> None:
        if not self.done.done():
            self.done.set_result(None)

    def fail(self, error: Exception) -> None:
        if not self.done.done():
            self.done.set_exception(error)


def _fail_batch(batch: list[_Change], error: BaseException) -> None:
    """Fail each change of a batch that was not committed; a cancellation carries on."""
    for change in batch:
        change.fail(error if isinstance(error, Exception) else RuntimeError("cancelled"))
    if not isinstance(error, Exception):
        raise error


#: the log row of one change (a Core statement: no ORM work on the per-change path)
_LOG_INSERT = insert_row(TableLogRow.__table__)


@functools.cache
def _sqlite_time_processor(dialect: Any) -> Any:
    return DateTime(timezone=True).dialect_impl(dialect).bind_processor(dialect)


def _sqlite_time(dialect: Any, moment: dt.datetime) -> Any:
    """``moment`` as SQLite's ``DateTime`` column stores it (the ORM's own conversion)."""
    process = _sqlite_time_processor(dialect)
    return moment if process is None else process(moment)


def _aiosqlite_calls() -> bool:
    """Whether aiosqlite runs a function in a connection's thread as this store calls it."""
    try:
        from aiosqlite import Connection
    except ImportError:  # pragma: no cover - a dependency of the server
        return False
    return callable(getattr(Connection, "_execute", None)) and isinstance(
        getattr(Connection, "_conn", None), property
    )


#: rows per statement of SQLite's batch (each row has a dozen parameters: SQLite allows 32,766)
_SQLITE_ROWS = 500


def _chunks(rows: list[Any], n: int) -> list[list[Any]]:
    return [rows[i : i + n] for i in range(0, len(rows), n)]


def _positions(given: list[str], wanted: Any) -> Any:
    """A getter that takes a row of the ``given`` parameters and returns them in the
    ``wanted`` order (a compiled statement's positional parameters)."""
    if wanted is None or sorted(wanted) != sorted(given):  # pragma: no cover - a new column
        raise ValueError(f"the statement's parameters {wanted} are not {given}")
    return itemgetter(*(given.index(name) for name in wanted))


def _sqlite_wal(dbapi_connection: Any, record: Any) -> None:
    """SQLite in write-ahead-log mode: a commit is one append and one fsync of the log (not
    three fsyncs of a rollback journal), still durable (``synchronous=FULL``), and readers
    never wait for the writer."""
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.close()


#: pg_try_advisory_lock key of a server process (single-node mode)
_NODE_LOCK_KEY = 0x63616E61


class Store:
    """The database behind the server (SQLite or PostgreSQL)."""

    def __init__(self, url: str | None, *, sqlite_busy_seconds: float = 30.0) -> None:
        url = self.url = resolve_db_url(url)
        # every change saves its JSON columns: the fast encoder (same JSON, see ``encoding``)
        kwargs: dict[str, Any] = {"json_serializer": dumps, "json_deserializer": loads}
        self._pg_connect_args: dict[str, Any] = {}
        if url.startswith("sqlite"):
            kwargs["connect_args"] = {"timeout": sqlite_busy_seconds}
            if self.sqlite_path() is not None and "mode=memory" not in url:  # a pool of files
                # the connection used last is taken first: each SQLite connection has its own
                # page cache (and aiosqlite its own thread), which a write through another
                # connection empties; the group commit, taking connections in turn, found them
                # all cold (an in-memory database has one connection and no such pool)
                kwargs["pool_use_lifo"] = True
        else:
            # a connection broken by a database restart is replaced, not handed out again
            kwargs["pool_pre_ping"] = True
            # a burst of sockets opening at a busy node waits for a connection (each checkout
            # holds one for a few turns of its loop) rather than failing after 5 s
            kwargs["pool_timeout"] = 15
            # a database that stops answering fails a save in seconds instead of hanging a table
            kwargs["connect_args"] = self._pg_connect_args = {"timeout": 5, "command_timeout": 15}
        self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        if url.startswith("sqlite") and ":memory:" not in url:
            event.listen(self.engine.sync_engine, "connect", _sqlite_wal)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self._lock_conn: AsyncConnection | None = None
        self._lock_file: int | None = None
        #: the group commit: changes waiting, and the task that commits them
        self._pending: list[_Change] = []
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        #: the per-change UPDATE statements, by the columns they set
        self._updates: dict[tuple[str, ...], Any] = {}
        #: whether the driver reports the rows an executemany updated (SQLite does; asyncpg
        #: does not, so there each change is its own statement)
        self._multi_rowcount = bool(self.engine.dialect.supports_sane_multi_rowcount)
        self._postgres = url.startswith("postgresql")
        #: PostgreSQL: the changes of a batch that carry no statistics are committed by one
        #: statement on a connection the writer keeps (``_pg_commit``), instead of a checkout
        #: with its ping, a BEGIN, an UPDATE, an INSERT and a COMMIT: one round trip, not
        #: six, each of which waited for a busy event loop to take up its answer
        self._pg_writer: Any = None  # an asyncpg connection of its own, not the pool's
        self._pg_writer_loop: asyncio.AbstractEventLoop | None = None
        self._pg_statements: dict[tuple[tuple[str, ...], frozenset[str]], tuple[str, frozenset[str]]] = {}
        #: SQLite writes a batch in one call to its driver, with a statement or two per
        #: batch (``_sqlite_in_one_call``): the ORM's work per row was about a third of the
        #: CPU that saving a change costs
        self._sqlite = url.startswith("sqlite")
        #: (its UPDATE … FROM needs SQLite 3.33, and the call aiosqlite's own ``_execute``; an
        #: older SQLite, another driver or a shared in-memory database takes the ORM's path)
        self._sqlite_one_call = (
            self._sqlite
            and self._multi_rowcount
            and sqlite3.sqlite_version_info >= (3, 33)
            and ":memory:" not in url
            and _aiosqlite_calls()
        )
        self._sqlite_insert: tuple[str, Any] | None = None
        #: other statements compiled for SQLite's one-call batch, by statement
        self._sqlite_compiled: dict[Any, Any] = {}
        #: the insert of an empty statistics row (:meth:`ensure_stats`), built at first use
        self._insert_stats: Any = None
        #: False once another process holds this database: then nothing may be written
        self.writable = True

    async def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision."""
        async with self.engine.begin() as conn:
            await conn.run_sync(_alembic_upgrade)

    async def dispose(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writer
        for change in self._pending:
            change.fail(RuntimeError("the database is closing"))
        self._pending.clear()
        await self._drop_pg_writer()
        await self.release_node_lock()
        await self.engine.dispose()

    async def ping(self) -> None:
        """Raise unless the database could take a write now. SQLite (write-ahead log) serves
        reads even while another process holds its write lock, so there the probe takes the
        write lock too (an update of nothing, rolled back); PostgreSQL answers a read."""
        async with self.engine.connect() as conn:
            await asyncio.wait_for(
                conn.execute(text("select version_num from alembic_version")), timeout=5
            )
            if self.url.startswith("sqlite"):
                await asyncio.wait_for(
                    conn.execute(text("update alembic_version set version_num = version_num")),
                    timeout=5,
                )
                await conn.rollback()

    # ------------------------------------------------------------------ one process per database

    def sqlite_path(self) -> Path | None:
        if not self.url.startswith("sqlite"):
            return None
        rest = self.url.split(":///", 1)[1] if ":///" in self.url else ""
        if not rest or rest.startswith(":memory:"):
            return None
        return Path(rest.split("?", 1)[0])

    async def acquire_node_lock(self) -> None:
        """Hold a lock no other server process on this database can take (released at exit,
        including by ``kill -9``: a file lock for SQLite, an advisory lock for PostgreSQL)."""
        path = self.sqlite_path()
        if path is not None:
            import fcntl

            fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                os.close(fd)
                raise NodeLockTaken(f"another canasta server is using {path}") from e
            self._lock_file = fd
        elif self.url.startswith("postgresql"):
            conn = await self.engine.connect()
            got = (
                await conn.execute(text("select pg_try_advisory_lock(:k)"), {"k": _NODE_LOCK_KEY})
            ).scalar_one()
            if not got:
                await conn.close()
                raise NodeLockTaken("another canasta server is using this database")
            await conn.commit()
            self._lock_conn = conn

    async def keep_node_lock(self) -> bool:
        """Whether this process still holds its lock, taking it again if its connection was
        lost (a PostgreSQL restart ends the session that held it). False: another process has
        it now, and this one must not write."""
        if self._lock_file is not None or not self.url.startswith("postgresql"):
            return True
        if self._lock_conn is not None:
            try:
                await asyncio.wait_for(self._lock_conn.execute(text("select 1")), timeout=5)
                return True
            except Exception:
                with contextlib.suppress(Exception):
                    await self._lock_conn.invalidate()
                self._lock_conn = None
        try:
            await self.acquire_node_lock()
        except NodeLockTaken:
            return False
        return True

    async def deleted_accounts(self, ids: list[str]) -> set[str]:
        """Those of ``ids`` whose account was deleted."""
        if not ids:
            return set()
        async with self.sessions() as s:
            found = await s.scalars(
                select(AccountRow.id).where(AccountRow.id.in_(ids), AccountRow.kind == "deleted")
            )
            return set(found.all())

    async def stored_version(self, table_id: str) -> int | None:
        """The version a table's row holds now (None: no such row)."""
        async with self.sessions() as s:
            return await s.scalar(select(TableRow.version).where(TableRow.id == table_id))

    async def release_node_lock(self) -> None:
        if self._lock_file is not None:
            os.close(self._lock_file)  # closing the descriptor releases the flock
            self._lock_file = None
        if self._lock_conn is not None:
            with contextlib.suppress(Exception):
                await self._lock_conn.execute(
                    text("select pg_advisory_unlock(:k)"), {"k": _NODE_LOCK_KEY}
                )
                await self._lock_conn.commit()
            with contextlib.suppress(Exception):
                await self._lock_conn.close()
            self._lock_conn = None

    # ------------------------------------------------------------------ accounts and sessions

    async def new_session(self) -> tuple[str, AccountRow]:
        """A new guest account and a session for it; returns (token, account)."""
        token = secrets.token_urlsafe(32)
        account = AccountRow(
            id="a" + secrets.token_hex(12),
            kind="guest",
            name=f"Guest {secrets.randbelow(9000) + 1000}",
            created_at=now(),
        )
        async with self.sessions() as s, s.begin():
            s.add(account)
            await s.flush()
            s.add(SessionRow(token_hash=token_hash(token), account_id=account.id))
        return token, account

    async def session_account(self, token: str) -> AccountRow | None:
        """The account a session token belongs to (None: unknown, revoked or unused for
        longer than a session lives). Use is recorded at most once a day per session."""
        key = token_hash(token)
        async with self.sessions() as s:  # one query: every socket and request asks it
            found = (
                await s.execute(
                    select(AccountRow, SessionRow.last_seen_at)
                    .join(SessionRow, SessionRow.account_id == AccountRow.id)
                    .where(SessionRow.token_hash == key)
                )
            ).first()
            if found is None:
                return None
            account, last_seen = found
            seen = _aware(last_seen)
            current = now()
            if current - seen > SESSION_LIFETIME:
                return None
            if current - seen > dt.timedelta(days=1):
                await s.execute(
                    update(SessionRow).where(SessionRow.token_hash == key).values(last_seen_at=current)
                )
                await s.commit()
            return account

    async def claim_legacy_profile(self, account_id: str, legacy: str) -> bool:
        """Move a browser-made profile's tables and statistics to the account, once ever.

        Only an id no account holds can be claimed (an account id is not a legacy profile),
        and only by an account that has claimed none: the account row is updated on that
        condition, so two racing claims cannot both succeed.
        """
        try:
            async with self.sessions() as s, s.begin():
                if await s.get(AccountRow, legacy) is not None:
                    return False
                taken = await s.scalar(
                    select(AccountRow.id).where(AccountRow.legacy_profile == legacy)
                )
                if taken is not None:
                    return False
                result = await s.execute(
                    update(AccountRow)
                    .where(AccountRow.id == account_id, AccountRow.legacy_profile.is_(None))
                    .values(legacy_profile=legacy)
                    .execution_options(synchronize_session=False)
                )
                if result.rowcount != 1:  # type: ignore[attr-defined]
                    return False
                await s.execute(
                    update(TableRow).where(TableRow.profile == legacy).values(profile=account_id)
                )
                old = await s.get(StatsRow, legacy)
                if old is not None:
                    # a fresh account: nothing else writes its statistics yet
                    await self.ensure_stats(s, account_id)
                    mine = await s.get(StatsRow, account_id)
                    assert mine is not None
                    mine.played += old.played
                    mine.won += old.won
                    mine.canastas += old.canastas
                    mine.streak += old.streak
                    mine.best_streak = max(mine.best_streak, old.best_streak)
                    if old.best_hand is not None and (
                        mine.best_hand is None or old.best_hand > mine.best_hand
                    ):
                        mine.best_hand = old.best_hand
                    await s.delete(old)
                return True
        except IntegrityError:  # another account claimed it at the same moment
            return False

    # ------------------------------------------------------------------ tables

    async def load_table(self, table_id: str) -> TableRow | None:
        async with self.sessions() as s:
            return await s.get(TableRow, table_id)

    async def save_table(
        self,
        values: dict[str, Any],
        deltas: list[StatsDelta] | None = None,
        *,
        expected_version: int | None = None,
    ) -> None:
        """Insert or update a table row (and apply statistics) in one transaction.

        With ``expected_version`` the row is updated only if it still holds that version (the
        one this process last saved): otherwise :class:`VersionConflict`, and nothing changes.
        """
        async with self.sessions() as s, s.begin():
            if expected_version is not None:
                result = await s.execute(
                    update(TableRow)
                    .where(TableRow.id == values["id"], TableRow.version == expected_version)
                    .values(**values, updated_at=now())
                    .execution_options(synchronize_session=False)
                )
                if result.rowcount != 1:  # type: ignore[attr-defined]
                    raise VersionConflict(values["id"])
            else:
                row = await s.get(TableRow, values["id"])
                if row is None:
                    row = TableRow(**values)
                    s.add(row)
                else:
                    for key, value in values.items():
                        setattr(row, key, value)
                row.updated_at = now()
            await self._apply_deltas(s, deltas)

    async def _apply_deltas(self, s: Any, deltas: list[StatsDelta] | None) -> None:
        moment = now()
        for delta in deltas or ():
            await self.ensure_stats(s, delta.profile)
            await s.execute(delta.statement(), delta.params(moment))

    async def ensure_stats(self, s: Any, profile: str) -> None:
        """``INSERT … ON CONFLICT DO NOTHING`` of an empty stats row of ``profile`` (both
        databases), on the connection or session ``s``: the statement is built once."""
        await s.execute(self._insert_stats_statement(), {"e_profile": profile, "e_now": now()})

    def _insert_stats_statement(self) -> Any:
        statement = self._insert_stats
        if statement is None:
            if self._postgres:
                from sqlalchemy.dialects.postgresql import insert
            else:
                from sqlalchemy.dialects.sqlite import insert
            c = StatsRow.__table__.c
            statement = self._insert_stats = (
                insert(StatsRow.__table__)
                .values(
                    {
                        c.profile: bindparam("e_profile", type_=c.profile.type),
                        c.played: 0,
                        c.won: 0,
                        c.best_hand: None,
                        c.canastas: 0,
                        c.streak: 0,
                        c.best_streak: 0,
                        c.updated_at: bindparam("e_now", type_=c.updated_at.type),
                    }
                )
                .on_conflict_do_nothing(index_elements=["profile"])
            )
        return statement

    async def append_change(
        self,
        table_id: str,
        *,
        seq: int,
        entry: dict[str, Any],
        values: dict[str, Any],
        deltas: list[StatsDelta] | None = None,
    ) -> None:
        """Commit one change of a table: its log row, the columns of the table's state it
        changed (``values``, with a new ``record`` snapshot when it holds one; the row keeps
        the others) and statistics, in one transaction.

        The row must hold version ``seq - 1``, and no change ``seq`` may exist yet; otherwise
        :class:`VersionConflict` and nothing changes. The cost does not grow with the match.

        Changes of different tables that arrive while a commit is under way are committed
        together in the next transaction (group commit): each caller still returns only once
        its own change is committed, but a hundred tables cost one fsync, not a hundred.
        """
        change = _Change(table_id, seq, entry, values, deltas or [])
        loop = asyncio.get_running_loop()
        if self._writer is not None and self._writer.get_loop() is not loop:
            # the same store served from another event loop (tests restart apps): start afresh
            self._writer, self._pending, self._wake = None, [], asyncio.Event()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_forever(), name="store-writer")
        self._pending.append(change)
        self._wake.set()
        await change.done

    async def _write_forever(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._pending:
                batch, self._pending = self._pending[:GROUP_COMMIT_MAX], self._pending[GROUP_COMMIT_MAX:]
                await self._commit_batch(batch)

    async def _commit_batch(self, batch: list[_Change]) -> None:
        if self._postgres:  # what carries no statistics in one statement, the rest below
            plain = [c for c in batch if not c.deltas]
            if plain:
                await self._pg_commit(plain)
            batch = [c for c in batch if c.deltas]
            if not batch:
                return
        try:
            try:
                if self._sqlite_one_call:
                    await self._sqlite_in_one_call(batch)
                else:
                    async with self.engine.begin() as conn:
                        await self._write_batch(conn, batch, together=self._multi_rowcount)
            except _Separately:
                # a stale version somewhere in the batch: again, one statement per change,
                # so only the stale ones are refused
                async with self.engine.begin() as conn:
                    await self._write_batch(conn, batch, together=False)
        except (IntegrityError, sqlite3.IntegrityError):
            # a (table, seq) that exists already: find whose, one transaction each
            if len(batch) == 1:
                batch[0].fail(VersionConflict(batch[0].table_id))
                return
            for change in batch:
                change.conflict = False
                await self._commit_batch([change])
            return
        except BaseException as e:  # the database is away: nothing of this batch happened
            _fail_batch(batch, e)
            return
        for change in batch:
            if change.conflict:
                change.fail(VersionConflict(change.table_id))
            else:
                change.succeed()

    async def _write_batch(self, conn: AsyncConnection, batch: list[_Change], *, together: bool) -> None:
        """The batch's changes inside one transaction, as SQLAlchemy Core statements built
        once per set of columns: each table row is updated only if it holds the version
        before the change (a stale one changes nothing and is marked ``conflict``), then the
        log rows are inserted. ``together``: one executemany per statement (the driver
        reports the rows it updated in all; any shortfall raises :class:`_Separately`).
        PostgreSQL writes here only the changes that carry statistics (the rest take
        :meth:`_pg_commit`), each with its own UPDATE."""
        moment = now()

        def params(change: _Change) -> dict[str, Any]:
            return {
                **{f"v_{k}": v for k, v in change.values.items()},
                "v_version": change.seq,
                "v_updated_at": moment,
                "w_id": change.table_id,
                "w_prev": change.seq - 1,
            }

        if together:  # (a table has one change at a time in flight: no order among them)
            groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
            for change in batch:
                change.conflict = False
                groups.setdefault(tuple(change.values), []).append(params(change))
            for keys, many in groups.items():
                result = await conn.execute(self._update_statement(keys), many)
                if result.rowcount != len(many):
                    raise _Separately
        else:
            for change in batch:
                result = await conn.execute(self._update_statement(tuple(change.values)), params(change))
                change.conflict = result.rowcount != 1
        rows = [
            {"table_id": c.table_id, "seq": c.seq, "entry": c.entry, "created_at": moment}
            for c in batch
            if not c.conflict
        ]
        if rows:
            await conn.execute(_LOG_INSERT, rows)
        for change in batch:
            if change.deltas and not change.conflict:
                await self._apply_deltas(conn, change.deltas)

    async def _pg_commit(self, batch: list[_Change]) -> None:
        """PostgreSQL: commit ``batch`` (changes without statistics) with one statement
        (:meth:`_pg_statement`), on its own an atomic transaction: each table row holding the
        version before its change is updated and its log row inserted; the changes whose row
        held another version change nothing and fail with :class:`VersionConflict`. A log row
        that exists already fails the statement: then each change is committed alone, to
        find whose it was. Anything else fails the whole batch and drops the connection (the
        next batch opens another): its tables go back to what they last had confirmed, and a
        commit whose answer was lost with the connection shows at a table's next change as a
        stale version, on which the table reloads from the database."""
        import asyncpg  # the PostgreSQL driver (only PostgreSQL takes this path)

        try:
            updated = await self._pg_write(batch)
        except asyncpg.IntegrityConstraintViolationError:
            if len(batch) == 1:
                batch[0].fail(VersionConflict(batch[0].table_id))
                return
            for change in batch:
                await self._pg_commit([change])
            return
        except BaseException as e:
            await self._drop_pg_writer()
            _fail_batch(batch, e)
            return
        for change in batch:
            if change.table_id in updated:
                change.succeed()
            else:
                change.fail(VersionConflict(change.table_id))

    async def _pg_write(self, batch: list[_Change]) -> set[str]:
        """The statement of :meth:`_pg_commit` sent on the writer's connection (opened, with
        the engine's settings, when there is none or it was closed); the ids it updated."""
        loop = asyncio.get_running_loop()
        if self._pg_writer is not None and self._pg_writer_loop is not loop:
            self._pg_writer = None  # opened on an event loop that has ended (tests restart apps)
        raw = self._pg_writer
        if raw is not None and raw.is_closed():  # the server restarted or the link broke
            await self._drop_pg_writer()
            raw = None
        if raw is None:
            import asyncpg

            # the engine's own connection settings (the URL's, then ``connect_args``)
            _, options = self.engine.dialect.create_connect_args(self.engine.url)
            for key in _SQLALCHEMY_ONLY:  # settings of SQLAlchemy's adapter, not of asyncpg
                options.pop(key, None)
            raw = self._pg_writer = await asyncpg.connect(**{**options, **self._pg_connect_args})
            self._pg_writer_loop = loop
        keys: tuple[str, ...] = tuple(dict.fromkeys(k for c in batch for k in c.values))
        masked = frozenset(k for k in keys if any(k not in c.values for c in batch))
        sql, json_columns = self._pg_statement(keys, masked)
        args: list[Any] = [
            [c.table_id for c in batch],
            [c.seq for c in batch],
            [dumps(c.entry) for c in batch],
            now(),
        ]
        for k in keys:
            values = [c.values.get(k) for c in batch]
            if k in json_columns:
                values = [None if v is None else dumps(v) for v in values]
            args.append(values)
            if k in masked:
                args.append([k in c.values for c in batch])
        # asyncpg runs a statement with no transaction open as its own transaction
        rows = await raw.fetch(sql, *args)
        return {row[0] for row in rows}

    async def _drop_pg_writer(self) -> None:
        writer, self._pg_writer = self._pg_writer, None
        if writer is not None and self._pg_writer_loop is asyncio.get_running_loop():
            with contextlib.suppress(Exception):
                writer.terminate()  # at once: it may be broken

    def _pg_statement(self, keys: tuple[str, ...], masked: frozenset[str]) -> tuple[str, frozenset[str]]:
        """PostgreSQL: the statement of :meth:`_pg_write` for a batch whose changes set
        ``keys`` (those in ``masked`` only in some changes: a flag per row says whether to set
        it), and which of them travel as JSON text. Its parameters: the ids, the new
        versions, the log entries (JSON text) and the time, then per column its values (and
        its flags when masked). One ``WITH``: the rows as arrays, the UPDATE of the rows
        holding the version before (returning their ids), the INSERT of the log rows of
        exactly those, in one statement and so one transaction. Built once per shape."""
        built = self._pg_statements.get((keys, masked))
        if built is not None:
            return built
        t = TableRow.__table__
        dialect = self.engine.dialect
        json_columns = frozenset(k for k in keys if isinstance(t.c[k].type, JSON))
        arrays = ["$1::VARCHAR[]", "$2::INTEGER[]", "$3::TEXT[]"]
        names = ["w_id", "w_seq", "w_entry"]
        sets = []
        for k in keys:
            sql_type = "TEXT" if k in json_columns else t.c[k].type.compile(dialect=dialect)
            arrays.append(f"${len(arrays) + 2}::{sql_type}[]")
            names.append(f"v_{k}")
            value = f"CAST(v.v_{k} AS JSON)" if k in json_columns else f"v.v_{k}"
            if k in masked:
                arrays.append(f"${len(arrays) + 2}::BOOLEAN[]")
                names.append(f"m_{k}")
                value = f"CASE WHEN v.m_{k} THEN {value} ELSE tables.{k} END"
            sets.append(f"{k} = {value}")
        sql = (
            f"WITH v AS (SELECT * FROM unnest({', '.join(arrays)}) AS v({', '.join(names)})), "
            f"u AS (UPDATE tables SET {', '.join(sets)}, version = v.w_seq, "
            "updated_at = $4::TIMESTAMPTZ FROM v "
            "WHERE tables.id = v.w_id AND tables.version = v.w_seq - 1 RETURNING tables.id), "
            "i AS (INSERT INTO table_log (table_id, seq, entry, created_at) "
            "SELECT v.w_id, v.w_seq, CAST(v.w_entry AS JSON), $4::TIMESTAMPTZ "
            "FROM v JOIN u ON u.id = v.w_id) "
            "SELECT id FROM u"
        )
        built = self._pg_statements[(keys, masked)] = (sql, json_columns)
        return built

    async def _sqlite_in_one_call(self, batch: list[_Change]) -> None:
        """SQLite: the whole transaction of a batch, begun, written (the rows of
        :meth:`_sqlite_rows`, then the statistics of the changes not in conflict, as
        :meth:`_apply_deltas` writes them) and committed, in one call to the driver's thread
        instead of a call for each step. Each call waits for the event loop to take up its
        answer, and under load the loop is busy: with a dozen calls a transaction took ~75 ms
        while the tables waited for it. Anything that fails rolls the whole transaction back;
        a stale version raises :class:`_Separately` as the other path does."""
        moment = now()
        updates, log_rows = self._sqlite_rows(batch, moment)
        stats = [bound for c in batch for d in c.deltas for bound in self._sqlite_stats(d, moment)]
        # the statements and their parameters, built here (not in the driver's thread, which
        # would need the GIL for them while the event loop holds it)
        statements: list[tuple[str, list[Any], int]] = []
        for keys, rows in updates:
            for chunk in _chunks(rows, _SQLITE_ROWS):
                sql = self._sqlite_update_many(keys, len(chunk))
                statements.append((sql, [v for r in chunk for v in r], len(chunk)))
        for chunk in _chunks(log_rows, _SQLITE_ROWS):
            sql, order = self._sqlite_insert_many(len(chunk))
            statements.append((sql, [v for r in chunk for v in order(r)], -1))
        statements += [(sql, list(params), -1) for sql, params in stats]

        def write(db: sqlite3.Connection) -> None:  # in the driver's thread
            cursor = db.cursor()
            try:
                if db.in_transaction:  # never commit what another caller began
                    raise RuntimeError("the connection is already in a transaction")
                cursor.execute("BEGIN IMMEDIATE")
                for sql, params, rows in statements:
                    cursor.execute(sql, params)
                    if rows >= 0 and cursor.rowcount != rows:
                        raise _Separately
                db.commit()
            except BaseException:
                db.rollback()
                raise
            finally:
                cursor.close()

        async with self.engine.connect() as conn:
            driver = (await conn.get_raw_connection()).driver_connection
            if driver is None:  # pragma: no cover - a connection checked out has one
                raise RuntimeError("no driver connection")
            # aiosqlite runs a function in the connection's own thread with ``_execute``
            # (every one of its calls goes through it)
            await driver._execute(write, driver._conn)

    def _sqlite_rows(
        self, batch: list[_Change], moment: dt.datetime
    ) -> tuple[list[tuple[tuple[str, ...], list[list[Any]]]], list[tuple[Any, ...]]]:
        """SQLite: a batch as plain rows for the driver: per set of columns, the table rows
        (the columns' values, the new version and time, the id and the previous version);
        then the log rows (table, seq, entry, time). The JSON columns are encoded as the ORM
        encodes them, the time as its SQLite type stores it. Marks every change not in
        conflict."""
        stamp = _sqlite_time(self.engine.dialect, moment)
        by_keys: dict[tuple[str, ...], list[_Change]] = {}
        for change in batch:
            change.conflict = False
            by_keys.setdefault(tuple(change.values), []).append(change)
        updates = []
        for keys, changes in by_keys.items():
            json_columns = self._sqlite_json_columns(keys)
            rows = []
            for c in changes:
                values = c.values
                row: list[Any] = [
                    dumps(values[k]) if j and values[k] is not None else values[k]
                    for k, j in zip(keys, json_columns, strict=True)
                ]
                row += (c.seq, stamp, c.table_id, c.seq - 1)
                rows.append(row)
            updates.append((keys, rows))
        log_rows = [(c.table_id, c.seq, dumps(c.entry), stamp) for c in batch]
        return updates, log_rows

    def _sqlite_json_columns(self, keys: tuple[str, ...]) -> tuple[bool, ...]:
        t = TableRow.__table__
        return tuple(isinstance(t.c[k].type, JSON) for k in keys)

    def _sqlite_update_many(self, keys: tuple[str, ...], n: int) -> str:
        """SQLite (3.33 and later): ``_update_statement`` for ``n`` tables at once, one
        statement instead of ``n``: ``UPDATE tables SET <keys>, version, updated_at FROM
        (VALUES (...), ...) AS v WHERE id and version = previous``, its rows as
        :meth:`_sqlite_rows` gives them (SQLite names the columns of ``VALUES`` column1,
        column2 ...). The rows it changed are the driver's rowcount (a statement that does
        not start with UPDATE would have none)."""
        q = self.engine.dialect.identifier_preparer.quote
        t = TableRow.__table__
        columns = (*keys, "version", "updated_at")
        width = len(columns) + 2  # then the id and the previous version
        row = "(" + ", ".join("?" * width) + ")"
        table = q(t.name)
        return (
            f"UPDATE {table} SET "
            + ", ".join(f"{q(t.c[c].name)} = v.column{i + 1}" for i, c in enumerate(columns))
            + f" FROM (VALUES {', '.join([row] * n)}) AS v"
            f" WHERE {table}.{q(t.c.id.name)} = v.column{width - 1}"
            f" AND {table}.{q(t.c.version.name)} = v.column{width}"
        )

    def _sqlite_insert_many(self, n: int) -> tuple[str, Any]:
        """SQLite: the log insert (``_LOG_INSERT``, compiled once) of ``n`` rows in one
        statement (its row of parameters repeated), and the getter that puts a row given as
        (table, seq, entry, time) in its parameters' order."""
        sql, order = self._sqlite_log_insert()
        head, values = sql.split(" VALUES ", 1)
        return f"{head} VALUES {', '.join([values] * n)}", order

    def _sqlite_stats(self, delta: StatsDelta, moment: dt.datetime) -> list[tuple[str, tuple[Any, ...]]]:
        """SQLite: the statements :meth:`_apply_deltas` runs for ``delta`` (the empty row
        ``ensure_stats`` inserts if missing, then the delta's update), each compiled once to
        SQL with positional parameters, and their parameters processed as the ORM binds them."""
        return [
            self._sqlite_bound(self._insert_stats_statement(), {"e_profile": delta.profile, "e_now": moment}),
            self._sqlite_bound(delta.statement(), delta.params(moment)),
        ]

    def _sqlite_bound(self, statement: Any, params: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
        compiled = self._sqlite_compiled.get(statement)
        if compiled is None:
            compiled = self._sqlite_compiled[statement] = statement.compile(dialect=self.engine.dialect)
        dialect = self.engine.dialect
        values = compiled.construct_params(params)
        bound = []
        for name in compiled.positiontup:
            process = compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect)
            value = values[name]
            bound.append(value if process is None else process(value))
        return str(compiled), tuple(bound)

    def _sqlite_log_insert(self) -> tuple[str, Any]:
        """SQLite: the log insert (``_LOG_INSERT``) compiled to SQL with positional parameters,
        and a getter that puts a row given as (table, seq, entry, time) in its order."""
        if self._sqlite_insert is None:
            given = ["table_id", "seq", "entry", "created_at"]
            compiled = _LOG_INSERT.compile(dialect=self.engine.dialect, column_keys=given)
            self._sqlite_insert = (str(compiled), _positions(given, compiled.positiontup))
        return self._sqlite_insert

    def _update_statement(self, keys: tuple[str, ...]) -> Any:
        """``UPDATE tables SET <keys>, version, updated_at WHERE id AND version = previous``,
        one statement object per set of columns (SQLAlchemy compiles it once)."""
        statement = self._updates.get(keys)
        if statement is None:
            t = TableRow.__table__
            columns = (*keys, "version", "updated_at")
            statement = (
                update(t)
                .where(t.c.id == bindparam("w_id"), t.c.version == bindparam("w_prev"))
                .values({t.c[k]: bindparam(f"v_{k}") for k in columns})
            )
            self._updates[keys] = statement
        return statement

    async def load_log(self, table_id: str, after: int) -> list[dict[str, Any]]:
        """The table's changes after ``after``, in order."""
        async with self.sessions() as s:
            q = (
                select(TableLogRow.entry)
                .where(TableLogRow.table_id == table_id, TableLogRow.seq > after)
                .order_by(TableLogRow.seq)
            )
            return list((await s.scalars(q)).all())

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

    # ------------------------------------------------------------------ accounts, online

    async def set_name(self, account_id: str, name: str) -> AccountRow | None:
        async with self.sessions() as s, s.begin():
            row = await s.get(AccountRow, account_id)
            if row is not None:
                row.name = name
            return row

    async def accounts_by_id(self, ids: list[str]) -> dict[str, AccountRow]:
        if not ids:
            return {}
        async with self.sessions() as s:
            rows = await s.scalars(select(AccountRow).where(AccountRow.id.in_(ids)))
            return {r.id: r for r in rows}

    async def online_tables_in_play(self) -> list[str]:
        """Ids of online tables whose match is not over (loaded at start: their timers run)."""
        async with self.sessions() as s:
            q = select(TableRow.id).where(
                TableRow.mode == "online", TableRow.status.not_in(("match_over", "abandoned"))
            )
            return list((await s.scalars(q)).all())

    async def lobby_entries(self, kind: str) -> list[dict[str, Any]]:
        async with self.sessions() as s:
            q = select(LobbyRow.value).where(LobbyRow.kind == kind).order_by(LobbyRow.updated_at)
            return list((await s.scalars(q)).all())

    async def put_lobby_entry(self, kind: str, key: str, value: dict[str, Any]) -> None:
        async with self.sessions() as s, s.begin():
            row = await s.get(LobbyRow, f"{kind}:{key}")
            if row is None:
                s.add(LobbyRow(key=f"{kind}:{key}", kind=kind, value=value, updated_at=now()))
            else:
                row.value = value
                row.updated_at = now()

    async def delete_lobby_entries(self, kind: str, keys: list[str]) -> None:
        if not keys:
            return
        async with self.sessions() as s, s.begin():
            await s.execute(delete(LobbyRow).where(LobbyRow.key.in_([f"{kind}:{k}" for k in keys])))


# the account, rating, coin and report tables share this metadata (migration 0006)
from . import models_accounts as _models_accounts  # noqa: E402,F401
