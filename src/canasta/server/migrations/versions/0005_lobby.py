"""The lobby's lasting state: quick-match queue entries and private rooms survive a restart."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from canasta.server.migrations.shared import columns, key, timestamp

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.create_table(
        "lobby_entries",
        key("key", sa.String(80)),
        *columns(sa.String(16), "kind"),
        *columns(sa.JSON(), "value"),
        timestamp("updated_at"),
    )
    op.create_index("ix_lobby_entries_kind", "lobby_entries", ["kind"])
    op.create_index("ix_tables_mode_status", "tables", ["mode", "status"])


def downgrade() -> None:
    op.drop_index("ix_tables_mode_status", "tables")
    op.drop_index("ix_lobby_entries_kind", "lobby_entries")
    op.drop_table("lobby_entries")
