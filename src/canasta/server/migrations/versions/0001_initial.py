"""Tables and profile statistics."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from canasta.server.migrations.shared import columns, id_key, key, timestamp

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "tables",
        id_key(),
        *columns(sa.String(80), "profile", nullable=True),
        *columns(sa.String(16), "mode"),
        *columns(sa.JSON(), "options", "record"),
        *columns(sa.Integer(), "version"),
        *columns(sa.String(16), "status"),
        *columns(sa.Boolean(), "paused"),
        *columns(sa.Integer(), "handoff", "viewer", nullable=True),
        *columns(sa.Integer(), "hands_counted"),
        *columns(sa.Boolean(), "match_counted"),
        timestamp("created_at"),
        timestamp("updated_at"),
    )
    op.create_index("ix_tables_profile", "tables", ["profile"])
    op.create_index("ix_tables_updated_at", "tables", ["updated_at"])
    op.create_table(
        "profile_stats",
        key("profile", sa.String(80)),
        *columns(sa.Integer(), "played", "won"),
        *columns(sa.Integer(), "best_hand", nullable=True),
        *columns(sa.Integer(), "canastas", "streak", "best_streak"),
        timestamp("updated_at"),
    )


def downgrade() -> None:
    op.drop_table("profile_stats")
    op.drop_index("ix_tables_updated_at", "tables")
    op.drop_index("ix_tables_profile", "tables")
    op.drop_table("tables")
