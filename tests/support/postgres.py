"""A PostgreSQL for tests: the server `.ci/run` starts (GPU_ADVISOR_TEST_POSTGRES_URL). A test gets a fresh
schema (empty: for the migration tests) or a fresh migrated database, copied from a template database that
the Store migrated once per test process (`CREATE DATABASE ... TEMPLATE ... STRATEGY WAL_LOG`: 0.02-0.03 s,
against 0.05-0.09 s for FILE_COPY, which checkpoints, and 0.3 s of migrations) and dropped on a thread of its
own after the test. Without a reachable server the PostgreSQL tests skip with the reason, unless
GPU_ADVISOR_TEST_POSTGRES=required (set by .ci/run), where they fail."""

from __future__ import annotations

import atexit
import functools
import os
import queue
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote, urlsplit, urlunsplit

import pytest

URL = os.environ.get(
    "GPU_ADVISOR_TEST_POSTGRES_URL", "postgresql://gpu_advisor:gpu_advisor@127.0.0.1:5432/gpu_advisor_test"
)
REQUIRED = os.environ.get("GPU_ADVISOR_TEST_POSTGRES") == "required"


@functools.cache
def unreachable() -> str | None:
    """Why no PostgreSQL can be used, or None when it can."""
    try:
        import psycopg
    except ImportError as exc:
        return f"psycopg is not installed ({exc})"
    try:
        with psycopg.connect(URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return (
            f"no PostgreSQL at {URL.split('@')[-1]} ({str(exc).strip().splitlines()[0]})"
            "; start one with `bash .ci/run` (it runs the whole suite on it), or set GPU_ADVISOR_TEST_POSTGRES_URL "
            "(CONTRIBUTING.md says how)"
        )
    return None


def need_postgres() -> None:
    why = unreachable()
    if why is not None:
        if REQUIRED:
            pytest.fail(f"GPU_ADVISOR_TEST_POSTGRES=required, but {why}")
        pytest.skip(why)


@contextmanager
def schema_in(url: str, prefix: str = "t") -> Iterator[str]:
    """`url` with its tables landing in a new, empty schema, dropped afterwards (tests and bench/load.py)."""
    import psycopg

    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{url}{'&' if '?' in url else '?'}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@contextmanager
def fresh_schema() -> Iterator[str]:
    """The test server's URL with a new, empty schema (skips, or fails when required, without a server)."""
    need_postgres()
    with schema_in(URL) as url:
        yield url


def _database(url: str, name: str) -> str:
    """`url` naming the database `name` instead."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


@functools.cache
def _template() -> str | None:
    """A migrated database to copy, made once per test process; None when the role may not create databases
    (then each test migrates a fresh schema itself, slower but the same)."""
    import psycopg

    from bot.state.store import Store

    name = f"tmpl_{uuid.uuid4().hex[:16]}"
    try:
        with psycopg.connect(URL, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
    except psycopg.errors.InsufficientPrivilege:
        return None
    atexit.register(_drop, name)
    Store(_database(URL, name)).close()  # no connection may stay open on a template
    return name


def _drop(name: str) -> None:
    """DROP DATABASE, ending its sessions first (FORCE). FORCE is refused while an autovacuum worker (the server's
    own, not ours to end) is in the new database; a plain DROP then ends that worker itself, and is tried again
    briefly while a session of ours is still closing."""
    import psycopg

    with psycopg.connect(URL, autocommit=True) as conn:
        for _ in range(20):
            try:
                conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
                return
            except psycopg.errors.InsufficientPrivilege:
                try:
                    conn.execute(f"DROP DATABASE IF EXISTS {name}")
                    return
                except psycopg.errors.ObjectInUse:
                    time.sleep(0.1)
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")  # said as it fails, when it still does


class _Dropper:
    """Drops each test's database on a thread of its own, so a test's teardown does not wait for it: a store
    the test left open makes `WITH (FORCE)` end its sessions first, 0.1-0.2 s. Dropped in the order the tests
    ended, all before the process exits (and before the template, whose atexit was registered earlier)."""

    def __init__(self) -> None:
        self.names: queue.Queue[str | None] = queue.Queue()
        self.thread: threading.Thread | None = None

    def drop(self, name: str) -> None:
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, name="test-db-dropper", daemon=True)
            self.thread.start()
            atexit.register(self.finish)
        self.names.put(name)

    def _run(self) -> None:
        while (name := self.names.get()) is not None:
            _drop(name)

    def finish(self) -> None:
        self.names.put(None)
        if self.thread is not None:
            self.thread.join(timeout=60)


_dropper = _Dropper()


@contextmanager
def migrated_database() -> Iterator[str]:
    """The URL of a fresh database at the newest schema, dropped after the test (skips, or fails when required,
    without a server)."""
    import psycopg

    need_postgres()
    template = _template()
    if template is None:
        with schema_in(URL) as url:
            yield url
        return
    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(URL, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY WAL_LOG")
    try:
        yield _database(URL, name)
    finally:
        _dropper.drop(name)
