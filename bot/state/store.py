"""The bot's state database through SQLAlchemy Core: the engine, transactions, named locks and the clock.
Each concern's rows have a repository of their own beside this file (inbox.py, conversations.py,
users.py, job_runs.py, rentals.py, digest_sends.py, ...), each built on a Store.

The database is a URL (GPU_ADVISOR_DATABASE_URL): a SQLite file by default, apart from the price
cache, so a long price refresh never holds the lock an acknowledgement waits for. The schema comes
from the Alembic migrations, run when the store opens. State acknowledged to a user is committed
before the reply goes out.

On SQLite, writers of this process queue on a Python lock, which hands over at once, rather than
on SQLite's busy handler, which sleeps in growing steps (long tails under load); a write
transaction starts with BEGIN IMMEDIATE, so it never fails half-way on a lock another process took.
"""

from __future__ import annotations

import hashlib
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError, SQLAlchemyError

from bot.state import migrate
from bot.state.write_lock import AckGate, WriteLock, file_lock

Clock = Callable[[], datetime]


class StoreBusy(RuntimeError):
    """The state database did not take a write within the caller's budget (another process holds its lock)."""


class StoreUnavailable(RuntimeError):
    """The bot's state database cannot be used: `target` (a file, or a URL without its password) and `reason`."""

    def __init__(self, target: str, reason: str) -> None:
        super().__init__(
            f"cannot use the state database {target}: {reason}. Set GPU_ADVISOR_STATE_DB to a "
            "writable SQLite file, or GPU_ADVISOR_DATABASE_URL"
        )
        self.target, self.reason = target, reason


def _sqlite_engine(url: str) -> Engine:
    path = make_url(url).database
    if not path or path == ":memory:":
        raise ValueError("the bot store needs a database file: each thread opens its own connection")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, pool_size=8, max_overflow=24)

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # SQLAlchemy's "begin" event below says how each transaction starts
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")  # WAL: durable across a process crash, fewer fsyncs
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        options = conn.get_execution_options()
        budget = options.get("budget_s")
        # SQLite's busy handler waits this long for another process's lock (30 s unless a budget is given);
        # set only when it changes on this connection (one statement less on an acknowledgement's path)
        wait_ms = int((budget if budget is not None else 30) * 1000)
        kept = conn.connection.info
        if kept.get("busy_timeout_ms") != wait_ms:
            conn.exec_driver_sql(f"PRAGMA busy_timeout = {wait_ms}")
            kept["busy_timeout_ms"] = wait_ms
        conn.exec_driver_sql("BEGIN IMMEDIATE" if options.get("writing") else "BEGIN")

    return engine


def driver_url(url: str) -> str:
    """A plain postgresql:// (or postgres://) URL means psycopg 3, not SQLAlchemy's default psycopg2."""
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url.removeprefix(plain)
    return url


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        return _sqlite_engine(url)
    return create_engine(driver_url(url), pool_pre_ping=True, pool_size=8, max_overflow=24)


def as_url(target: str | Path) -> str:
    """A database URL as given, or a SQLite file's path turned into one."""
    text = str(target)
    return text if "://" in text else f"sqlite:///{text}"


class Store:
    def __init__(
        self, target: str | Path, *, now: Clock | None = None, replica: str | None = None, acks: AckGate | None = None
    ) -> None:
        """`target`: a database URL (sqlite:///state.db, postgresql://...) or a SQLite file's path.
        `replica` names this process among the replicas sharing the database (default: the host name,
        which stays the same across a restart, so a restarted replica takes its own work back at once).
        `acks`: the process's acknowledgement gate (bot/deps.py), which background writes give way to; a store
        of its own otherwise."""
        url = self.url = as_url(target)
        self.now = now or (lambda: datetime.now(UTC))
        self.replica = replica or socket.gethostname()
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self.acks = acks or AckGate()
        try:
            self.engine = make_engine(url)
            self._write_lock = WriteLock(file_lock(self.sqlite_path()))
            with self.writing() as conn:
                migrate.upgrade(conn)
        except (OSError, SQLAlchemyError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(getattr(exc, "orig", exc))
            raise StoreUnavailable(self._target(), reason) from None

    def _target(self) -> str:
        """The database as named to people: a SQLite file's path, or the URL without its password."""
        parsed = make_url(self.url)
        return str(parsed.database if parsed.drivername.startswith("sqlite") else parsed.render_as_string())

    def sqlite_path(self) -> str | None:
        """The SQLite file's path; None on PostgreSQL."""
        return make_url(self.url).database if self.engine.dialect.name == "sqlite" else None

    def close(self) -> None:
        self.engine.dispose()
        self._write_lock.close()

    def release(self) -> None:
        """Close the connections the pool keeps (none may be in use); the next use opens another."""
        self.engine.dispose()

    @contextmanager
    def lock(self, convo_id: str) -> Iterator[None]:
        """One conversation's answers taken one at a time: an in-process lock, and on PostgreSQL an
        advisory lock held for the block, so two replicas cannot both take one question either."""
        with self._locks_guard:
            local = self._locks.setdefault(convo_id, threading.Lock())
        with local:
            if self.engine.dialect.name != "postgresql":
                yield
                return
            key = int.from_bytes(hashlib.sha256(convo_id.encode()).digest()[:8], "big", signed=True)
            with self.engine.connect() as conn:
                conn.exec_driver_sql("SELECT pg_advisory_lock(%(k)s)", {"k": key})
                conn.commit()
                try:
                    yield
                finally:
                    conn.exec_driver_sql("SELECT pg_advisory_unlock(%(k)s)", {"k": key})
                    conn.commit()

    @contextmanager
    def writing(self, budget_s: float | None = None) -> Iterator[Connection]:
        """A write transaction, committed on leaving, rolled back on an error. With `budget_s`, StoreBusy
        when the write lock (this process's, or SQLite's) is not had within that many seconds."""
        if budget_s is None:
            self.acks.yield_to_acks()
        if not self._write_lock.acquire(urgent=budget_s is not None, timeout=budget_s):
            raise StoreBusy("another writer held the lock past the budget")
        self.acks.holding(True)
        try:
            with self.engine.connect() as conn:
                conn.execution_options(writing=True, budget_s=budget_s)
                with conn.begin():
                    yield conn
        except OperationalError as exc:
            if "locked" in str(exc):
                raise StoreBusy("the state database is locked by another process") from None
            raise self._unavailable(exc) from None
        finally:
            self.acks.holding(False)
            self._write_lock.release()

    def _unavailable(self, exc: OperationalError) -> StoreUnavailable:
        """A database that stopped answering (PostgreSQL down, a full disk) as StoreUnavailable: the front
        doors answer 503 with the reason, and nothing half-done is kept (the transaction rolled back)."""
        reason = str(getattr(exc, "orig", exc)).strip().splitlines()[0] if str(exc) else type(exc).__name__
        return StoreUnavailable(self._target(), reason)

    def problem(self) -> str | None:
        """None when the database answers a query now, else the kind of error it gave (for /healthz)."""
        try:
            with self.reading() as conn:
                conn.exec_driver_sql("SELECT 1")
        except StoreUnavailable as exc:
            return exc.reason
        except SQLAlchemyError as exc:
            return type(exc).__name__
        return None

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        self.acks.yield_to_acks()
        try:
            with self.engine.connect() as conn:
                yield conn
        except OperationalError as exc:
            raise self._unavailable(exc) from None
