"""An append-only log of each table's changes; the match record becomes a snapshot."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from canasta.server.migrations.shared import (
    add_table_counter,
    columns,
    drop_table_column,
    key,
    timestamp,
)

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    # existing tables need no log: their record is a snapshot at their current version
    add_table_counter("snapshot_seq")
    op.create_table(
        "table_log",
        sa.Column(
            "table_id",
            sa.String(40),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        key("seq", sa.Integer()),
        *columns(sa.JSON(), "entry"),
        timestamp("created_at"),
    )


def downgrade() -> None:
    op.drop_table("table_log")
    drop_table_column("snapshot_seq")
