"""Tables and profile statistics."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from canasta.server.migrations.shared import timestamp

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("profile", sa.String(80), nullable=True),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("handoff", sa.Integer(), nullable=True),
        sa.Column("viewer", sa.Integer(), nullable=True),
        sa.Column("hands_counted", sa.Integer(), nullable=False),
        sa.Column("match_counted", sa.Boolean(), nullable=False),
        timestamp("created_at"),
        timestamp("updated_at"),
    )
    op.create_index("ix_tables_profile", "tables", ["profile"])
    op.create_index("ix_tables_updated_at", "tables", ["updated_at"])
    op.create_table(
        "profile_stats",
        sa.Column("profile", sa.String(80), primary_key=True),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("best_hand", sa.Integer(), nullable=True),
        sa.Column("canastas", sa.Integer(), nullable=False),
        sa.Column("streak", sa.Integer(), nullable=False),
        sa.Column("best_streak", sa.Integer(), nullable=False),
        timestamp("updated_at"),
    )


def downgrade() -> None:
    op.drop_table("profile_stats")
    op.drop_index("ix_tables_updated_at", "tables")
    op.drop_index("ix_tables_profile", "tables")
    op.drop_table("tables")
