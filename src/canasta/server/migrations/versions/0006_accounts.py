"""Registered accounts, recovery tokens, coins and cosmetics, ratings, match players, reports."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from canasta.server.migrations.shared import (
    account_ref,
    columns,
    create_token_table,
    key,
    timestamp,
)

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_table(
        "account_credentials",
        account_ref(primary_key=True),
        sa.Column("email", sa.String(254), nullable=False, unique=True),
        *columns(sa.String(255), "password_hash"),
        timestamp("created_at"),
        timestamp("changed_at"),
    )
    create_token_table("recovery_tokens")
    op.create_table(
        "wallets",
        account_ref(primary_key=True),
        *columns(sa.Integer(), "coins"),
        *columns(sa.String(10), "checkin_day", nullable=True),
        *columns(sa.Integer(), "checkin_streak"),
        *columns(sa.String(40), "back", "theme", nullable=True),
        sa.CheckConstraint("coins >= 0", name="ck_wallets_coins_not_negative"),
    )
    op.create_table(
        "owned_items",
        account_ref(primary_key=True),
        key("item", sa.String(40)),
        timestamp("created_at"),
    )
    op.create_table(
        "coin_ledger",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        *columns(sa.String(40), "account_id"),
        *columns(sa.Integer(), "delta", "balance"),
        *columns(sa.String(40), "reason"),
        timestamp("created_at"),
    )
    op.create_index("ix_coin_ledger_account_id", "coin_ledger", ["account_id"])
    op.create_table(
        "ratings",
        account_ref(primary_key=True),
        key("kind", sa.String(16)),
        *columns(sa.Float(), "mu", "sigma", "ordinal"),
        *columns(sa.Integer(), "played"),
        timestamp("updated_at"),
    )
    op.create_index("ix_ratings_kind_ordinal", "ratings", ["kind", "ordinal"])
    op.create_table(
        "match_players",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        *columns(sa.String(40), "table_id", "account_id"),
        *columns(sa.String(16), "kind"),
        *columns(sa.Boolean(), "rated", "won"),
        *columns(sa.Integer(), "score", "against"),
        *columns(sa.Integer(), "rating", nullable=True),
        timestamp("created_at"),
        sa.UniqueConstraint("table_id", "account_id", name="uq_match_players_table_account"),
    )
    op.create_index("ix_match_players_table_id", "match_players", ["table_id"])
    op.create_index("ix_match_players_account_at", "match_players", ["account_id", "created_at"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id",
            sa.String(40),
            sa.ForeignKey("accounts.id", ondelete="SET NULL"),
            nullable=True,
        ),
        *columns(sa.String(16), "category"),
        *columns(sa.Text(), "description"),
        *columns(sa.String(40), "table_id", nullable=True),
        *columns(sa.JSON(), "record", "client", nullable=True),
        timestamp("created_at"),
        timestamp("handled_at", nullable=True),
    )
    op.create_index("ix_reports_account_id", "reports", ["account_id"])


def downgrade() -> None:
    for table in (
        "reports",
        "match_players",
        "ratings",
        "coin_ledger",
        "owned_items",
        "wallets",
        "recovery_tokens",
        "account_credentials",
    ):
        op.drop_table(table)
