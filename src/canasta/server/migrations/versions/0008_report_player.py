"""A report of category "player" names the account it is about (cleared when it is deleted)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_report_player"
down_revision = "0007_email_verification"


def upgrade() -> None:
    # batch: SQLite adds a foreign key only by building the table again (its rows copied)
    with op.batch_alter_table("reports") as batch:
        batch.add_column(
            sa.Column(
                "player_id",
                sa.String(40),
                sa.ForeignKey(
                    "accounts.id", name="fk_reports_player_id_accounts", ondelete="SET NULL"
                ),
                nullable=True,
            )
        )
        batch.add_column(
            sa.Column("player_named", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("player_name", sa.String(64), nullable=True))
        batch.create_index("ix_reports_player_id", ["player_id"])


def downgrade() -> None:
    with op.batch_alter_table("reports") as batch:
        batch.drop_index("ix_reports_player_id")
        batch.drop_constraint("fk_reports_player_id_accounts", type_="foreignkey")
        batch.drop_column("player_name")
        batch.drop_column("player_named")
        batch.drop_column("player_id")
