"""Email confirmation tokens: registration and a change of email wait for the address's owner."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from canasta.server.migrations.shared import account_ref, timestamp, token_hash

revision = "0007_email_verification"
down_revision = "0006"


def upgrade() -> None:
    op.create_table(
        "email_tokens",
        token_hash(),
        account_ref(nullable=False),
        sa.Column("purpose", sa.String(16), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=True),
        timestamp("expires_at"),
        timestamp("used_at", nullable=True),
        timestamp("created_at"),
    )
    op.create_index("ix_email_tokens_account_id", "email_tokens", ["account_id"])


def downgrade() -> None:
    op.drop_table("email_tokens")
