"""The bot's state through SQLAlchemy Core: the request inbox, conversations, user locales, recommendations.

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
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, delete, event, insert, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError

from bot.state import migrate
from bot.state.schema import conversations, inbox, job_runs, locales, recommendations

Clock = Callable[[], datetime]


@dataclass
class Conversation:
    id: str
    team: str
    channel: str
    thread_ts: str | None
    user: str
    lang: str
    answers: dict[str, str] = field(default_factory=dict)  # the text given; "" means skipped
    values: dict[str, Any] = field(default_factory=dict)  # the parsed answers, as JSON
    step: int = 0
    status: str = "active"
    question_ts: str | None = None
    note: str | None = None
    warned_others: bool = False
    last_input: str | None = None  # the inbox key of the last answer applied (so a redo does not apply it twice)
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    updated_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    @classmethod
    def from_row(cls, row: Any) -> Conversation:
        data = dict(row._mapping)
        data["values"] = data.pop("answer_values") or {}
        data["warned_others"] = bool(data["warned_others"])
        return cls(**data)

    def row(self) -> dict[str, Any]:
        return {"id": self.id, "team": self.team, "channel": self.channel, "thread_ts": self.thread_ts,
                "user": self.user, "lang": self.lang, "answers": self.answers, "answer_values": self.values,
                "step": self.step, "status": self.status, "question_ts": self.question_ts, "note": self.note,
                "warned_others": self.warned_others, "last_input": self.last_input,
                "created_at": self.created_at, "updated_at": self.updated_at}


class StoreBusy(RuntimeError):
    """The state database did not take a write within the caller's budget (another process holds its lock)."""


class StoreUnavailable(RuntimeError):
    """The bot's state database cannot be used: `target` (a file, or a URL without its password) and `reason`."""

    def __init__(self, target: str, reason: str) -> None:
        super().__init__(f"cannot use the state database {target}: {reason}. Set GPU_ADVISOR_STATE_DB to a "
                         "writable SQLite file, or GPU_ADVISOR_DATABASE_URL")
        self.target, self.reason = target, reason


def _sqlite_engine(url: str) -> Engine:
    path = make_url(url).database
    if not path or path == ":memory:":
        raise ValueError("the bot store needs a database file: each thread opens its own connection")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, pool_size=8,
                           max_overflow=24)

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
        # SQLite's busy handler waits this long for another process's lock (30 s unless a budget is given)
        conn.exec_driver_sql(f"PRAGMA busy_timeout = {int((budget if budget is not None else 30) * 1000)}")
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
    def __init__(self, target: str | Path, *, now: Clock | None = None, replica: str | None = None) -> None:
        """`target`: a database URL (sqlite:///state.db, postgresql://...) or a SQLite file's path.
        `replica` names this process among the replicas sharing the database (default: the host name,
        which stays the same across a restart, so a restarted replica takes its own work back at once)."""
        url = self.url = as_url(target)
        self.now = now or (lambda: datetime.now(UTC))
        self.replica = replica or socket.gethostname()
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self._write_lock = threading.Lock()
        try:
            self.engine = make_engine(url)
            with self.writing() as conn:
                migrate.upgrade(conn)
        except (OSError, SQLAlchemyError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(getattr(exc, "orig", exc))
            parsed = make_url(url)
            shown = parsed.database if parsed.drivername.startswith("sqlite") else parsed.render_as_string()
            raise StoreUnavailable(str(shown), reason) from None

    def close(self) -> None:
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
        if not self._write_lock.acquire(timeout=-1 if budget_s is None else budget_s):
            raise StoreBusy("another writer of this process held the lock past the budget")
        try:
            with self.engine.connect() as conn:
                conn.execution_options(writing=True, budget_s=budget_s)
                with conn.begin():
                    yield conn
        except OperationalError as exc:
            if budget_s is not None and "locked" in str(exc):
                raise StoreBusy("the state database is locked by another process") from None
            raise
        finally:
            self._write_lock.release()

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            yield conn

    # --- the inbox: every request is on disk before it is acknowledged ----------------------------

    def enqueue(self, key: str, kind: str, body: dict[str, Any], budget_s: float | None = None) -> bool:
        """Keep a request until its work is done. False when `key` was seen before (a Slack retry).
        StoreBusy when the write is not had within `budget_s` (the acknowledgement cannot wait long)."""
        try:
            with self.writing(budget_s) as conn:
                stamp = self.now()
                conn.execute(insert(inbox).values(key=key, kind=kind, body=body, received_at=stamp,
                                                  claimed_by=self.replica, claimed_at=stamp))
        except IntegrityError:
            return False
        return True

    def done(self, key: str) -> None:
        with self.writing() as conn:
            conn.execute(update(inbox).where(inbox.c.key == key, inbox.c.done_at.is_(None))
                         .values(done_at=self.now()))

    def claim(self, key: str, lease: timedelta) -> bool:
        """Take an unfinished item's work: True when it is this replica's (it took it) or its taker's
        claim is older than `lease` (that replica died, or could not reach Slack). One replica wins."""
        now = self.now()
        with self.writing() as conn:
            result = conn.execute(
                update(inbox).where(inbox.c.key == key, inbox.c.done_at.is_(None),
                                    (inbox.c.claimed_by == self.replica) | inbox.c.claimed_at.is_(None)
                                    | (inbox.c.claimed_at < now - lease))
                .values(claimed_by=self.replica, claimed_at=now))
            return result.rowcount == 1

    def claim_job(self, job: str, slot: str) -> bool:
        """Run `job` for time slot `slot` here? True for the one replica whose claim lands first."""
        try:
            with self.writing() as conn:
                conn.execute(insert(job_runs).values(job=job, slot=slot, claimed_by=self.replica,
                                                     claimed_at=self.now()))
        except IntegrityError:
            return False
        return True

    def prune(self, older_than: timedelta) -> int:
        """Forget finished inbox items older than `older_than` (they only guard against retries), and the
        claims of job runs as old."""
        with self.writing() as conn:
            result = conn.execute(delete(inbox).where(inbox.c.done_at.is_not(None),
                                                      inbox.c.received_at < self.now() - older_than))
            conn.execute(delete(job_runs).where(job_runs.c.claimed_at < self.now() - older_than))
            return int(result.rowcount)

    def pending(self, max_age: timedelta, min_age: timedelta = timedelta(0)) -> list[tuple[str, str, dict[str, Any]]]:
        """Acknowledged requests whose work never finished (the process stopped, or Slack could not be
        reached), received between `max_age` and `min_age` ago, oldest first."""
        now = self.now()
        query = (select(inbox.c.key, inbox.c.kind, inbox.c.body)
                 .where(inbox.c.done_at.is_(None), inbox.c.received_at >= now - max_age,
                        inbox.c.received_at <= now - min_age)
                 .order_by(inbox.c.received_at))
        with self.reading() as conn:
            return [(r.key, r.kind, r.body) for r in conn.execute(query)]

    # --- conversations --------------------------------------------------------------------------

    def create(self, *, team: str, channel: str, user: str, lang: str, answers: dict[str, str] | None = None,
               values: dict[str, Any] | None = None, status: str = "active") -> Conversation:
        stamp = self.now()
        convo = Conversation(id=uuid.uuid4().hex, team=team, channel=channel, thread_ts=None, user=user, lang=lang,
                             answers=answers or {}, values=values or {}, status=status, created_at=stamp,
                             updated_at=stamp)
        with self.writing() as conn:
            conn.execute(insert(conversations).values(**convo.row()))
        return convo

    def save(self, convo: Conversation) -> None:
        convo.updated_at = self.now()
        row = convo.row()
        del row["id"], row["created_at"]
        with self.writing() as conn:
            conn.execute(update(conversations).where(conversations.c.id == convo.id).values(**row))

    def get(self, convo_id: str, team: str | None = None) -> Conversation | None:
        """A conversation by id; with `team`, only if it belongs to that workspace (a request from one
        workspace never reaches another's conversation)."""
        query = select(conversations).where(conversations.c.id == convo_id)
        if team is not None:
            query = query.where(conversations.c.team == team)
        with self.reading() as conn:
            row = conn.execute(query).first()
        return Conversation.from_row(row) if row else None

    def by_thread(self, team: str, channel: str, thread_ts: str) -> Conversation | None:
        query = (select(conversations)
                 .where(conversations.c.team == team, conversations.c.channel == channel,
                        conversations.c.thread_ts == thread_ts)
                 .order_by(conversations.c.created_at.desc()).limit(1))
        with self.reading() as conn:
            row = conn.execute(query).first()
        return Conversation.from_row(row) if row else None

    # --- locales --------------------------------------------------------------------------------

    def cached_locale(self, user: str, ttl: timedelta) -> tuple[str | None, str | None] | None:
        with self.reading() as conn:
            row = conn.execute(select(locales).where(locales.c.user == user)).first()
        if row is None or self.now() - row.fetched_at > ttl:
            return None
        return row.locale, row.tz

    def cache_locale(self, user: str, locale: str | None, tz: str | None) -> None:
        with self.writing() as conn:
            conn.execute(delete(locales).where(locales.c.user == user))
            conn.execute(insert(locales).values(user=user, locale=locale, tz=tz, fetched_at=self.now()))

    # --- recommendations ------------------------------------------------------------------------

    def add_recommendation(self, team: str, user: str, choice: str, summary: str, data: dict[str, Any]) -> None:
        with self.writing() as conn:
            conn.execute(insert(recommendations).values(team=team, user=user, choice=choice, summary=summary,
                                                        data=data, created_at=self.now()))

    def recent_recommendations(self, team: str, user: str, limit: int = 5) -> list[dict[str, Any]]:
        """The user's latest recommendations in this workspace (a Grid user's other workspaces stay apart)."""
        query = (select(recommendations.c.choice, recommendations.c.summary, recommendations.c.created_at)
                 .where(recommendations.c.team == team, recommendations.c.user == user)
                 .order_by(recommendations.c.id.desc()).limit(limit))
        with self.reading() as conn:
            return [dict(r._mapping) for r in conn.execute(query)]
