"""Bot state in SQLite: the request inbox, conversations, cached user locales, past recommendations.

It lives in its own database file, apart from the price cache, so a long price refresh never holds
the write lock that an acknowledgement waits for. One connection per thread (bolt runs listeners on
worker threads); state acknowledged to a user is on disk before the reply goes out.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

CONVERSATIONS = "advisor_conversations"
INBOX = "advisor_inbox"
LOCALES = "advisor_user_locales"
RECOMMENDATIONS = "advisor_recommendations"

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {CONVERSATIONS} (
    id TEXT PRIMARY KEY, team TEXT NOT NULL, channel TEXT NOT NULL, thread_ts TEXT, user TEXT NOT NULL,
    lang TEXT NOT NULL, answers TEXT NOT NULL DEFAULT '{{}}', step INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'active', question_ts TEXT, note TEXT, warned_others INTEGER NOT NULL DEFAULT 0,
    last_input TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS {CONVERSATIONS}_thread ON {CONVERSATIONS} (team, channel, thread_ts);
CREATE TABLE IF NOT EXISTS {INBOX} (
    key TEXT PRIMARY KEY, kind TEXT NOT NULL, body TEXT NOT NULL, received_at TEXT NOT NULL, done_at TEXT
);
CREATE INDEX IF NOT EXISTS {INBOX}_pending ON {INBOX} (done_at, received_at);
CREATE TABLE IF NOT EXISTS {LOCALES} (
    user TEXT PRIMARY KEY, locale TEXT, tz TEXT, fetched_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS {RECOMMENDATIONS} (
    id INTEGER PRIMARY KEY, team TEXT, user TEXT NOT NULL, choice TEXT NOT NULL, summary TEXT NOT NULL,
    data TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS {RECOMMENDATIONS}_user ON {RECOMMENDATIONS} (user, created_at);
"""


@dataclass
class Conversation:
    id: str
    team: str
    channel: str
    thread_ts: str | None
    user: str
    lang: str
    answers: dict[str, str] = field(default_factory=dict)
    step: int = 0
    status: str = "active"
    question_ts: str | None = None
    note: str | None = None
    warned_others: bool = False
    last_input: str | None = None  # the inbox key of the last answer applied (so a redo does not apply it twice)
    created_at: str = ""
    updated_at: str = ""

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Conversation:
        data = dict(row)
        data["answers"] = json.loads(data["answers"])
        data["warned_others"] = bool(data["warned_others"])
        return cls(**data)


class StoreUnavailable(RuntimeError):
    """The bot's state database cannot be used; the message names the file and the reason."""


class Store:
    def __init__(self, path: Path | str, *, now: Any = None) -> None:
        self.path = str(path)
        self._local = threading.local()
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self._write_lock = threading.Lock()
        self.now = now or (lambda: datetime.now(UTC))
        if self.path == ":memory:":
            raise ValueError("the bot store needs a database file: each thread opens its own connection")
        try:
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._conn().executescript(SCHEMA)
        except (OSError, sqlite3.DatabaseError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise StoreUnavailable(f"cannot use the state database {path}: {reason}. Set GPU_ADVISOR_STATE_DB "
                                   "to a writable SQLite file") from None

    def lock(self, convo_id: str) -> threading.Lock:
        """An in-process lock per conversation, so two quick clicks cannot both take one question."""
        with self._locks_guard:
            return self._locks.setdefault(convo_id, threading.Lock())

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # WAL: durable across a process crash, fewer fsyncs
            self._local.conn = conn
        return conn

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction. Threads of this process queue on a Python lock, which hands over at once,
        rather than on SQLite's busy handler, which sleeps in growing steps (long tails under load)."""
        conn = self._conn()
        with self._write_lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _stamp(self) -> str:
        return str(self.now().isoformat())

    # --- the inbox: every request is on disk before it is acknowledged ----------------------------

    def enqueue(self, key: str, kind: str, body: dict[str, Any]) -> bool:
        """Keep a request until its work is done. False when `key` was seen before (a Slack retry)."""
        with self.writing() as conn:
            cursor = conn.execute(
                f"INSERT OR IGNORE INTO {INBOX} (key, kind, body, received_at) VALUES (?, ?, ?, ?)",
                (key, kind, json.dumps(body, ensure_ascii=False), self._stamp()))
            return cursor.rowcount == 1

    def done(self, key: str) -> None:
        with self.writing() as conn:
            conn.execute(f"UPDATE {INBOX} SET done_at = ? WHERE key = ? AND done_at IS NULL", (self._stamp(), key))

    def prune(self, older_than: timedelta) -> int:
        """Forget finished inbox items older than `older_than` (they only guard against retries)."""
        before = (self.now() - older_than).isoformat()
        with self.writing() as conn:
            return conn.execute(f"DELETE FROM {INBOX} WHERE done_at IS NOT NULL AND received_at < ?",
                                (before,)).rowcount

    def pending(self, max_age: timedelta) -> list[tuple[str, str, dict[str, Any]]]:
        """Acknowledged requests whose work never finished (the process stopped), oldest first."""
        since = (self.now() - max_age).isoformat()
        rows = self._conn().execute(
            f"SELECT key, kind, body FROM {INBOX} WHERE done_at IS NULL AND received_at >= ? ORDER BY received_at",
            (since,)).fetchall()
        return [(r["key"], r["kind"], json.loads(r["body"])) for r in rows]

    # --- conversations --------------------------------------------------------------------------

    def create(self, *, team: str, channel: str, user: str, lang: str, answers: dict[str, str] | None = None,
               status: str = "active") -> Conversation:
        stamp = self._stamp()
        convo = Conversation(id=uuid.uuid4().hex, team=team, channel=channel, thread_ts=None, user=user, lang=lang,
                             answers=answers or {}, status=status, created_at=stamp, updated_at=stamp)
        with self.writing() as conn:
            conn.execute(
                f"INSERT INTO {CONVERSATIONS} (id, team, channel, thread_ts, user, lang, answers, step, status, "
                "created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (convo.id, team, channel, None, user, lang, json.dumps(convo.answers, ensure_ascii=False), 0, status,
                 stamp, stamp))
        return convo

    def save(self, convo: Conversation) -> None:
        convo.updated_at = self._stamp()
        with self.writing() as conn:
            conn.execute(
                f"UPDATE {CONVERSATIONS} SET channel=?, thread_ts=?, lang=?, answers=?, step=?, status=?, "
                "question_ts=?, note=?, warned_others=?, last_input=?, updated_at=? WHERE id=?",
                (convo.channel, convo.thread_ts, convo.lang, json.dumps(convo.answers, ensure_ascii=False),
                 convo.step, convo.status, convo.question_ts, convo.note, int(convo.warned_others),
                 convo.last_input, convo.updated_at, convo.id))

    def get(self, convo_id: str) -> Conversation | None:
        row = self._conn().execute(f"SELECT * FROM {CONVERSATIONS} WHERE id = ?", (convo_id,)).fetchone()
        return Conversation.from_row(row) if row else None

    def by_thread(self, team: str, channel: str, thread_ts: str) -> Conversation | None:
        row = self._conn().execute(
            f"SELECT * FROM {CONVERSATIONS} WHERE team = ? AND channel = ? AND thread_ts = ? "
            "ORDER BY created_at DESC LIMIT 1", (team, channel, thread_ts)).fetchone()
        return Conversation.from_row(row) if row else None

    def is_expired(self, convo: Conversation, ttl: timedelta) -> bool:
        return self.now() - datetime.fromisoformat(convo.updated_at) > ttl

    # --- locales --------------------------------------------------------------------------------

    def cached_locale(self, user: str, ttl: timedelta) -> tuple[str | None, str | None] | None:
        row = self._conn().execute(f"SELECT * FROM {LOCALES} WHERE user = ?", (user,)).fetchone()
        if row is None or self.now() - datetime.fromisoformat(row["fetched_at"]) > ttl:
            return None
        return row["locale"], row["tz"]

    def cache_locale(self, user: str, locale: str | None, tz: str | None) -> None:
        with self.writing() as conn:
            conn.execute(f"INSERT OR REPLACE INTO {LOCALES} (user, locale, tz, fetched_at) VALUES (?, ?, ?, ?)",
                         (user, locale, tz, self._stamp()))

    # --- recommendations ------------------------------------------------------------------------

    def add_recommendation(self, team: str, user: str, choice: str, summary: str, data: dict[str, Any]) -> None:
        with self.writing() as conn:
            conn.execute(f"INSERT INTO {RECOMMENDATIONS} (team, user, choice, summary, data, created_at) "
                         "VALUES (?, ?, ?, ?, ?, ?)",
                         (team, user, choice, summary, json.dumps(data, ensure_ascii=False), self._stamp()))

    def recent_recommendations(self, user: str, limit: int = 5) -> list[dict[str, Any]]:
        rows = self._conn().execute(
            f"SELECT choice, summary, created_at FROM {RECOMMENDATIONS} WHERE user = ? "
            "ORDER BY id DESC LIMIT ?", (user, limit)).fetchall()
        return [dict(r) for r in rows]
