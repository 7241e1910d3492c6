"""The game version apart from the change count: cosmetic changes no longer make moves stale."""

from __future__ import annotations

from canasta.server.migrations.shared import add_table_counter, drop_table_column

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    # ``tables.version`` stays the number of committed changes (the log's sequence); the new
    # ``game_version`` is what clients quote with their moves. Existing tables start equal.
    add_table_counter("game_version")


def downgrade() -> None:
    drop_table_column("game_version")
