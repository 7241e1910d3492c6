"""Columns and steps several migrations declare alike.

The migrations are history: what a helper here builds must never change, or an old migration
would build another schema. A new shape is a new helper.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


def timestamp(name: str, *, nullable: bool = False) -> sa.Column:  # type: ignore[type-arg]
    """A time with its time zone."""
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def account_ref(**kw: object) -> sa.Column:  # type: ignore[type-arg]
    """``account_id``: the account the row belongs to (deleted with it)."""
    return sa.Column(
        "account_id", sa.String(40), sa.ForeignKey("accounts.id", ondelete="CASCADE"), **kw
    )


def key(name: str, kind: sa.types.TypeEngine) -> sa.Column:  # type: ignore[type-arg]
    """A primary-key column (two of them make a composite key)."""
    return sa.Column(name, kind, primary_key=True)


def id_key() -> sa.Column:  # type: ignore[type-arg]
    """``id``, the primary key of a table whose rows the server names (up to 40 characters)."""
    return key("id", sa.String(40))


def token_hash() -> sa.Column:  # type: ignore[type-arg]
    """The primary key of a table of tokens: the SHA-256 of the token (hex), never the token."""
    return key("token_hash", sa.String(64))


def add_table_counter(name: str) -> None:
    """A new number of each table, starting at the table's ``version``."""
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column(name, sa.Integer(), nullable=False, server_default="0"))
    op.execute(f"UPDATE tables SET {name} = version")


def drop_table_column(name: str) -> None:
    """The undoing of :func:`add_table_counter`."""
    with op.batch_alter_table("tables") as batch:
        batch.drop_column(name)


def columns(kind: sa.types.TypeEngine, *names: str, nullable: bool = False) -> list[sa.Column]:  # type: ignore[type-arg]
    """Columns of one type, in the order named (each a fresh column; ``kind`` may be shared)."""
    return [sa.Column(name, kind, nullable=nullable) for name in names]


def create_token_table(name: str, *own: sa.Column) -> None:  # type: ignore[type-arg]
    """A table of single-use tokens for an account: its hash, the account, the token's ``own``
    columns, when it expires, was used and was made; indexed by account."""
    op.create_table(
        name,
        token_hash(),
        account_ref(nullable=False),
        *own,
        timestamp("expires_at"),
        timestamp("used_at", nullable=True),
        timestamp("created_at"),
    )
    op.create_index(f"ix_{name}_account_id", name, ["account_id"])
