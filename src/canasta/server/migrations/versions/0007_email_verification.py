"""Email confirmation tokens: registration and a change of email wait for the address's owner."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from canasta.server.migrations.shared import columns, create_token_table

revision = "0007_email_verification"
down_revision = "0006"


def upgrade() -> None:
    create_token_table(
        "email_tokens",
        *columns(sa.String(16), "purpose"),
        *columns(sa.String(254), "email"),
        *columns(sa.String(255), "password_hash", nullable=True),
    )


def downgrade() -> None:
    op.drop_table("email_tokens")
