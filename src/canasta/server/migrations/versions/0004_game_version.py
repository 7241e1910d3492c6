"""The game version apart from the change count: cosmetic changes no longer make moves stale.

``tables.version`` stays the number of committed changes (the log's sequence); the new
``game_version`` is what clients quote with their moves. Existing tables start equal.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(
            sa.Column("game_version", sa.Integer(), nullable=False, server_default="0")
        )
    op.execute("UPDATE tables SET game_version = version")


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("game_version")
