"""Tables and profile statistics.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


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
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
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
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("profile_stats")
    op.drop_index("ix_tables_updated_at", "tables")
    op.drop_index("ix_tables_profile", "tables")
    op.drop_table("tables")
