"""Bring a state database to the newest schema with the Alembic migrations shipped in the package."""

from __future__ import annotations

from importlib import resources

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection


def upgrade(connection: Connection) -> None:
    """Run every migration not yet applied, on `connection`, inside its transaction."""
    config = Config()
    config.set_main_option("script_location", str(resources.files("bot.state").joinpath("migrations")))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
