"""A state database migrated once and copied for each test that needs a fresh one: a new SQLite store runs every
migration (0.3-0.5 s of CPU on 2 cores), a copy of a migrated file opens in about 15 ms. The copy is the real schema
the migrations make (the template is made by the Store itself), so a test on a copy tests what a user's store is;
the migration tests make their stores from nothing.

The template is kept in .pytest_cache (ignored by git) under a name made from everything that decides the schema:
the state package's sources (the migrations among them), SQLAlchemy's, Alembic's and SQLite's versions. So one
process of a run builds it, the other workers wait for it on a file lock and copy it, and a later run with the same
sources builds nothing (four workers each migrating a template cost a fast loop about 1.5 s of CPU); a changed
migration makes a new name, so a copy is never of an older schema."""

from __future__ import annotations

import fcntl
import functools
import hashlib
import os
import shutil
import sqlite3
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".pytest_cache" / "gpu-advisor-state-template"


def _schema_key() -> str:
    digest = hashlib.sha256()
    for versions in (version("sqlalchemy"), version("alembic"), sqlite3.sqlite_version):
        digest.update(versions.encode() + b"\0")
    state = ROOT / "bot" / "state"
    for path in sorted(p for p in state.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(state)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@functools.cache
def _template() -> Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"state-{_schema_key()}.db"
    if path.exists():
        return path
    with open(CACHE / ".lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one process builds it; the others find it built when they get the lock
        if not path.exists():
            _build(path)
    return path


def _build(path: Path) -> None:
    from bot.state.store import Store

    folder = Path(tempfile.mkdtemp(prefix="building-", dir=CACHE))
    try:
        made = folder / "state.db"
        Store(made).close()  # the last connection closed checkpoints the WAL into the file: the file is all of it
        os.replace(made, path)  # whole or not at all
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    for old in CACHE.glob("state-*.db"):  # templates of schemas no longer in the tree
        if old != path:
            old.unlink(missing_ok=True)


def migrated_state_db(path: Path) -> Path:
    """A migrated SQLite state database at `path` (a copy of the template), unless a database is there already."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_template(), path)
    return path


def with_migrated_state(settings: Settings) -> Settings:
    """`settings` whose SQLite state file (where the bot will open it: GPU_ADVISOR_STATE_DB, else beside
    GPU_ADVISOR_DB) starts as a migrated copy, a PostgreSQL URL left to its own fixture; and whose price cache
    (GPU_ADVISOR_DB) starts holding the bundled rate card (tests/support/price_template.py)."""
    from tests.support.price_template import filled_price_cache

    if settings.files.database_url is None:
        migrated_state_db(settings.files.state_db_path())
    if str(settings.files.db) != ":memory:":
        filled_price_cache(Path(settings.files.db))
    return settings
