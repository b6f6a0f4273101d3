from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from rules.policy import Policy, load_policy
from tests.support.postgres import fresh_schema


@pytest.fixture(scope="session")
def policy() -> Policy:
    return load_policy()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The bot's state database, once on a SQLite file and once on PostgreSQL (a fresh schema)."""
    if request.param == "sqlite":
        yield str(tmp_path / "state.db")
        return
    with fresh_schema() as url:
        yield url


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL whose tables land in a fresh schema (skips, or fails when required, without one)."""
    with fresh_schema() as url:
        yield url
