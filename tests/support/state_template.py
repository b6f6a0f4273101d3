"""A state database migrated once per test process and copied for each test that needs a fresh one: a new
SQLite store runs every migration (about 0.1-0.5 s on 2 cores), a copy of a migrated file opens in about
15 ms. The copy is the real schema the migrations make (the template is made by the Store itself), so a
test on a copy tests what a user's store is; the migration tests make their stores from nothing."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path


@functools.cache
def _template() -> Path:
    from bot.state.store import Store

    folder = Path(tempfile.mkdtemp(prefix="gpu-advisor-state-template-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "state.db"
    Store(path).close()  # the last connection closed checkpoints the WAL into the file: the file is all of it
    return path


def migrated_state_db(path: Path) -> Path:
    """A migrated SQLite state database at `path` (a copy of the template), unless a database is there already."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_template(), path)
    return path
