"""Online-play tests run on the server tests' databases (SQLite, and PostgreSQL in CI)."""

from tests.server.conftest import db_url, sqlite_url

__all__ = ["db_url", "sqlite_url"]
