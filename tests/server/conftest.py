"""Server tests: a real database (SQLite file, and PostgreSQL when CANASTA_TEST_PG_URL is set)."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*", category=DeprecationWarning)

PG_URL = os.environ.get("CANASTA_TEST_PG_URL")


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database for one test: a fresh SQLite file, or the CI PostgreSQL database."""
    if request.param == "postgresql":
        if not PG_URL:
            pytest.skip("CANASTA_TEST_PG_URL is not set")
        yield PG_URL
    else:
        yield f"sqlite+aiosqlite:///{tmp_path / 'canasta.sqlite3'}"


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'canasta.sqlite3'}"
