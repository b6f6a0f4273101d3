"""Bring a state database to the newest schema with the Alembic migrations shipped in the package.

A database already at the newest revision (every start but the first after an upgrade) is recognised without
importing Alembic: the newest revision is read from the migration files' `revision` and `down_revision` lines and
the database's from its alembic_version table. Alembic is 11.6 MB of a process's memory (serve runs two processes)
and 0.1 s of its start; it is imported only when there is something to migrate."""

from __future__ import annotations

import functools
import logging
import re
from importlib import resources
from typing import TYPE_CHECKING

from sqlalchemy import Connection, inspect, text

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger(__name__)

_REVISION = re.compile(r"^revision\s*=\s*[\"']([^\"']+)[\"']\s*$", re.MULTILINE)
_DOWN = re.compile(r"^down_revision\s*=\s*(?:[\"']([^\"']+)[\"']|None)\s*$", re.MULTILINE)


def _config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(resources.files("bot.state").joinpath("migrations")))
    return config


@functools.cache
def head() -> str | None:
    """The newest revision the package ships, read from the migration files once per process (they are package
    data: they do not change while it runs): the one revision no other names as its down_revision. A history that is
    not one line of revisions (a merge, a branch) is left to Alembic's own reading."""
    revisions, downs = set(), set()
    for script in resources.files("bot.state").joinpath("migrations", "versions").iterdir():
        if not script.name.endswith(".py"):
            continue
        source = script.read_text("utf-8")
        revision, down = _REVISION.search(source), _DOWN.search(source)
        if revision is None or down is None:
            return _alembic_head()
        revisions.add(revision.group(1))
        if down.group(1):
            downs.add(down.group(1))
    heads = revisions - downs
    return heads.pop() if len(heads) == 1 and len(revisions) == len(downs) + 1 else _alembic_head()


def _alembic_head() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config()).get_current_head()


def current(connection: Connection) -> str | None:
    """The database's revision (None: never migrated), read without Alembic."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Run every migration not yet applied (up to `revision`), on `connection`, inside its transaction. On
    PostgreSQL the transaction first takes an advisory lock, so of replicas starting together one migrates and the
    others then find the schema current. A database already at the newest revision is left as it is without
    loading the migrations or Alembic (a store opens in milliseconds, not tens of them)."""
    if connection.dialect.name == "postgresql":  # replicas starting at once migrate one after another
        connection.exec_driver_sql("SELECT pg_advisory_xact_lock(7243101)")
    before = current(connection)
    if revision == "head" and before == head():
        return
    # Alembic says its context and each migration's docstring at INFO (forty lines on a fresh database), and the
    # first import of its autogenerate plugins in a process (by alembic.command) says each plugin's setup: one line
    # here instead. Its warnings and errors still reach the log.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    from alembic import command

    config = _config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)
    log.info("state database migrated from %s to %s", before or "empty", head() if revision == "head" else revision)


def downgrade(connection: Connection, revision: str) -> None:
    """Undo the migrations after `revision`, on `connection`, inside its transaction (going back to an older
    release; the tests use it to prove each migration reverses)."""
    from alembic import command

    config = _config()
    config.attributes["connection"] = connection
    command.downgrade(config, revision)
