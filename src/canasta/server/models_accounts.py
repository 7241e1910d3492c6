"""Storage of registered accounts, ratings, coins and reports (migrations 0006 to 0008).

Kept apart from :mod:`canasta.server.db`, whose :class:`AccountRow` stays the identity: these
rows hang off it by account id. Every personal datum (email, password hash) lives in
:class:`CredentialRow`, so deleting an account's personal data is deleting that row and
clearing the account's name.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from .db import AccountRef, Base, Timestamp, TokenHash


class CredentialRow(Base):
    """A registered account's email (normalised, unique) and Argon2id password hash."""

    __tablename__ = "account_credentials"

    account_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    email: Mapped[str] = mapped_column(String(254), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[Timestamp]
    changed_at: Mapped[Timestamp]


class RecoveryTokenRow(Base):
    """A password-recovery token: only its SHA-256 is stored; single use, expiring."""

    __tablename__ = "recovery_tokens"

    token_hash: Mapped[TokenHash]
    account_id: Mapped[AccountRef]
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[Timestamp]


class EmailTokenRow(Base):
    """An email confirmation (migration 0007): a registration waiting for its address to be
    confirmed (``purpose`` "register", with the chosen password's hash), or a new address
    for a registered account ("email"). Only the token's SHA-256 is stored; single use,
    expiring. A row is written whether or not the address is taken (its link is then never
    sent), so the database, like the answer, is the same either way."""

    __tablename__ = "email_tokens"

    token_hash: Mapped[TokenHash]
    account_id: Mapped[AccountRef]
    purpose: Mapped[str] = mapped_column(String(16))
    email: Mapped[str] = mapped_column(String(254))
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    created_at: Mapped[Timestamp]


class WalletRow(Base):
    """An account's coins, its check-in streak and the cosmetics it has chosen."""

    __tablename__ = "wallets"
    #: the last guard: no update, however it is written, leaves a negative balance
    __table_args__ = (CheckConstraint("coins >= 0", name="ck_wallets_coins_not_negative"),)

    account_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    coins: Mapped[int] = mapped_column(Integer, default=0)
    #: the server-time day of the last check-in, ``YYYY-MM-DD``
    checkin_day: Mapped[str | None] = mapped_column(String(10), nullable=True)
    checkin_streak: Mapped[int] = mapped_column(Integer, default=0)
    back: Mapped[str | None] = mapped_column(String(40), nullable=True)
    theme: Mapped[str | None] = mapped_column(String(40), nullable=True)


class OwnedItemRow(Base):
    """A cosmetic an account owns: the primary key makes a second purchase impossible."""

    __tablename__ = "owned_items"

    account_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    item: Mapped[str] = mapped_column(String(40), primary_key=True)
    created_at: Mapped[Timestamp]


class LedgerRow(Base):
    """One change of an account's balance (check-in, purchase), with the balance after it."""

    __tablename__ = "coin_ledger"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[str] = mapped_column(String(40), index=True)
    delta: Mapped[int] = mapped_column(Integer)
    balance: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[Timestamp]


class RatingRow(Base):
    """An account's Weng-Lin (openskill) rating for one kind of online match."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_kind_ordinal", "kind", "ordinal"),)

    account_id: Mapped[str] = mapped_column(
        String(40), ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    #: mu - 3 sigma: what the leaderboard sorts by
    ordinal: Mapped[float] = mapped_column(Float)
    played: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[Timestamp]


class MatchPlayerRow(Base):
    """One player of one finished online match: the profile's recent matches and rating
    history. The unique (table, account) pair makes counting a match twice impossible."""

    __tablename__ = "match_players"
    __table_args__ = (
        UniqueConstraint("table_id", "account_id", name="uq_match_players_table_account"),
        Index("ix_match_players_account_at", "account_id", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(String(40), index=True)
    account_id: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(16))
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    won: Mapped[bool] = mapped_column(Boolean, default=False)
    #: the player's team score and the other team's
    score: Mapped[int] = mapped_column(Integer, default=0)
    against: Mapped[int] = mapped_column(Integer, default=0)
    #: the rating after this match (display scale), null when unrated
    rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[Timestamp]


class ReportRow(Base):
    """A problem a player reported, with the match record when it came from a table."""

    __tablename__ = "reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[str | None] = mapped_column(
        String(40), ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True, index=True
    )
    category: Mapped[str] = mapped_column(String(16))
    description: Mapped[str] = mapped_column(Text)
    table_id: Mapped[str | None] = mapped_column(String(40), nullable=True)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    client: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[Timestamp]
    handled_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    #: the account a report of category "player" is about (None once that account is deleted)
    player_id: Mapped[str | None] = mapped_column(
        String(40),
        ForeignKey("accounts.id", name="fk_reports_player_id_accounts", ondelete="SET NULL"),
        nullable=True,
        index=True,
    )
    #: whether the report named a player: with no ``player_id`` left, that account was deleted
    player_named: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: the player's name when the report was made (a name may be what was reported; None once
    #: that account is deleted)
    player_name: Mapped[str | None] = mapped_column(String(64), nullable=True)


def insert_ignore(url: str, model: type[Base], **values: Any) -> Any:
    """``INSERT … ON CONFLICT DO NOTHING`` of one row (SQLite and PostgreSQL)."""
    if url.startswith("postgresql"):
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    return insert(model).values(**values).on_conflict_do_nothing()
