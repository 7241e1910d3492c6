"""An append-only log of each table's changes; the match record becomes a snapshot.

Existing tables need no log: their record is a snapshot at their current version.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(
            sa.Column("snapshot_seq", sa.Integer(), nullable=False, server_default="0")
        )
    op.execute("UPDATE tables SET snapshot_seq = version")
    op.create_table(
        "table_log",
        sa.Column(
            "table_id",
            sa.String(40),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("entry", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("table_log")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("snapshot_seq")
