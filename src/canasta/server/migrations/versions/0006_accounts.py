"""Registered accounts, recovery tokens, coins and cosmetics, ratings, match players, reports."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from canasta.server.migrations.shared import account_ref, timestamp, token_hash

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.create_table(
        "account_credentials",
        account_ref(primary_key=True),
        sa.Column("email", sa.String(254), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        timestamp("created_at"),
        timestamp("changed_at"),
    )
    op.create_table(
        "recovery_tokens",
        token_hash(),
        account_ref(nullable=False),
        timestamp("expires_at"),
        timestamp("used_at", nullable=True),
        timestamp("created_at"),
    )
    op.create_index("ix_recovery_tokens_account_id", "recovery_tokens", ["account_id"])
    op.create_table(
        "wallets",
        account_ref(primary_key=True),
        sa.Column("coins", sa.Integer(), nullable=False),
        sa.Column("checkin_day", sa.String(10), nullable=True),
        sa.Column("checkin_streak", sa.Integer(), nullable=False),
        sa.Column("back", sa.String(40), nullable=True),
        sa.Column("theme", sa.String(40), nullable=True),
        sa.CheckConstraint("coins >= 0", name="ck_wallets_coins_not_negative"),
    )
    op.create_table(
        "owned_items",
        account_ref(primary_key=True),
        sa.Column("item", sa.String(40), primary_key=True),
        timestamp("created_at"),
    )
    op.create_table(
        "coin_ledger",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.String(40), nullable=False),
        sa.Column("delta", sa.Integer(), nullable=False),
        sa.Column("balance", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(40), nullable=False),
        timestamp("created_at"),
    )
    op.create_index("ix_coin_ledger_account_id", "coin_ledger", ["account_id"])
    op.create_table(
        "ratings",
        account_ref(primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        timestamp("updated_at"),
    )
    op.create_index("ix_ratings_kind_ordinal", "ratings", ["kind", "ordinal"])
    op.create_table(
        "match_players",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(40), nullable=False),
        sa.Column("account_id", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("against", sa.Integer(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=True),
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
        sa.Column("category", sa.String(16), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("table_id", sa.String(40), nullable=True),
        sa.Column("record", sa.JSON(), nullable=True),
        sa.Column("client", sa.JSON(), nullable=True),
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
