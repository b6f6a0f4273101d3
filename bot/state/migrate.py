"""Bring a state database to the newest schema with the Alembic migrations shipped in the package."""

from __future__ import annotations

from importlib import resources

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Run every migration not yet applied (up to `revision`), on `connection`, inside its transaction. On
    PostgreSQL the transaction first takes an advisory lock, so of replicas starting together one migrates and the
    others then find the schema current."""
    if connection.dialect.name == "postgresql":  # replicas starting at once migrate one after another
        connection.exec_driver_sql("SELECT pg_advisory_xact_lock(7243101)")
    config = Config()
    config.set_main_option("script_location", str(resources.files("bot.state").joinpath("migrations")))
    config.attributes["connection"] = connection
    command.upgrade(config, revision)
