"""Bring a state database to the newest schema with the Alembic migrations shipped in the package."""

from __future__ import annotations

import functools
import logging
from importlib import resources

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

log = logging.getLogger(__name__)


def _config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(resources.files("bot.state").joinpath("migrations")))
    return config


@functools.cache
def head() -> str | None:
    """The newest revision the package ships, read from the migration files once per process (they are package
    data: they do not change while it runs)."""
    return ScriptDirectory.from_config(_config()).get_current_head()


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Run every migration not yet applied (up to `revision`), on `connection`, inside its transaction. On
    PostgreSQL the transaction first takes an advisory lock, so of replicas starting together one migrates and the
    others then find the schema current. A database already at the newest revision is left as it is without
    loading the migrations (a store opens in milliseconds, not tens of them)."""
    if connection.dialect.name == "postgresql":  # replicas starting at once migrate one after another
        connection.exec_driver_sql("SELECT pg_advisory_xact_lock(7243101)")
    # Alembic says its context and each migration's docstring at INFO (forty lines on a fresh database): one here
    logging.getLogger("alembic.runtime.migration").setLevel(logging.WARNING)
    before = MigrationContext.configure(connection).get_current_revision()
    if revision == "head" and before == head():
        return
    config = _config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)
    log.info("state database migrated from %s to %s", before or "empty", head() if revision == "head" else revision)


def downgrade(connection: Connection, revision: str) -> None:
    """Undo the migrations after `revision`, on `connection`, inside its transaction (going back to an older
    release; the tests use it to prove each migration reverses)."""
    config = _config()
    config.attributes["connection"] = connection
    command.downgrade(config, revision)
