"""Account tests: a real database (SQLite file, and PostgreSQL when CANASTA_TEST_PG_URL is set)."""

from tests.server.conftest import db_url, sqlite_url  # noqa: F401
