"""Accounts and server-issued sessions (browser identities no longer come from the client)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from canasta.server.migrations.shared import account_ref, columns, id_key, timestamp, token_hash

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "accounts",
        id_key(),
        *columns(sa.String(16), "kind"),
        *columns(sa.String(40), "name", nullable=True),
        sa.Column("legacy_profile", sa.String(80), nullable=True, unique=True),
        timestamp("created_at"),
    )
    op.create_table(
        "sessions",
        token_hash(),
        account_ref(nullable=False),
        timestamp("created_at"),
        timestamp("last_seen_at"),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_sessions_account_id", "sessions")
    op.drop_table("sessions")
    op.drop_table("accounts")
