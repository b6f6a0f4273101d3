"""The inbox: every Slack request is on disk before it is acknowledged, claimed by the replica doing its
work, and marked done when the work is; what never finished is found again (pending) and redone."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import Connection, delete, select, update

from bot.state.conflicts import dialect_insert
from bot.state.group_commit import GroupCommit, Late
from bot.state.schema import inbox
from bot.state.store import Store, StoreBusy


@cache
def _enqueue(dialect: str) -> Any:
    """Built once a dialect: its compiled form is cached, on the acknowledgement's path. A key seen before is left as
    it is; a new one is told by the row count on SQLite (RETURNING needs SQLite 3.35), by the key returned on
    PostgreSQL."""
    statement = dialect_insert(dialect)(inbox).on_conflict_do_nothing(index_elements=["key"])
    return statement.returning(inbox.c.key) if dialect == "postgresql" else statement


Request = tuple[str, str, dict[str, Any]]  # key, kind, body
KEPT = timedelta(days=7)  # finished requests are kept this long (against a chat's retries), then pruned
SPOOL_REPLAY = timedelta(minutes=30)  # a request the front door spooled is redone at start-up when this recent


@dataclass(frozen=True)
class Spooled:
    key: str
    kind: str
    body: dict[str, Any]
    received_at: datetime


class Inbox:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._enqueue = _enqueue(store.engine.dialect.name)
        self._batches: GroupCommit[Request, bool] = GroupCommit(self._write)

    def enqueue(self, key: str, kind: str, body: dict[str, Any], budget_s: float | None = None) -> bool:
        """Keep a request until its work is done. False when `key` was seen before (a Slack retry).
        StoreBusy when the write is not had within `budget_s` (the acknowledgement cannot wait long).
        Requests kept at the same moment are written in one transaction (group_commit.py)."""
        try:
            return self._batches.submit((key, kind, body), budget_s)
        except Late:
            raise StoreBusy("the requests before it were not written within the budget") from None

    def _write(self, requests: Sequence[Request], budget_s: float | None) -> list[bool]:
        with self.store.writing(budget_s) as conn:
            stamp = self.store.now()
            return [self._insert(conn, key, kind, body, stamp) for key, kind, body in requests]

    def _insert(self, conn: Connection, key: str, kind: str, body: dict[str, Any], stamp: datetime) -> bool:
        result = conn.execute(
            self._enqueue,
            {
                "key": key,
                "kind": kind,
                "body": body,
                "received_at": stamp,
                "claimed_by": self.store.replica,
                "claimed_at": stamp,
            },
        )
        return result.first() is not None if result.returns_rows else result.rowcount == 1

    def adopt(self, key: str, kind: str, body: dict[str, Any], received_at: datetime | None = None) -> bool:
        """Take a request from the front door's spool (bot/server/spool.py) into this inbox, as received at
        `received_at` (default: now). False when it is here already: taken before, or a Slack retry."""
        with self.store.writing() as conn:
            return self._insert(conn, key, kind, body, received_at or self.store.now())

    def spooled(self, max_age: timedelta, received_before: datetime | None = None) -> list[Spooled]:
        """Unfinished requests received within `max_age` (and before `received_before`), oldest first, with
        the time each was received."""
        now = self.store.now()
        query = (
            select(inbox.c.key, inbox.c.kind, inbox.c.body, inbox.c.received_at)
            .where(
                inbox.c.done_at.is_(None),
                inbox.c.received_at >= now - max_age,
                inbox.c.received_at <= (received_before or now),
            )
            .order_by(inbox.c.received_at)
        )
        with self.store.reading() as conn:
            return [Spooled(r.key, r.kind, r.body, r.received_at) for r in conn.execute(query)]

    def waiting(self, max_age: timedelta, limit: int) -> list[tuple[str, datetime]]:
        """The oldest `limit` unfinished requests received within `max_age`: key and time, without their bodies."""
        query = (
            select(inbox.c.key, inbox.c.received_at)
            .where(inbox.c.done_at.is_(None), inbox.c.received_at >= self.store.now() - max_age)
            .order_by(inbox.c.received_at)
            .limit(limit)
        )
        with self.store.reading() as conn:
            return [(r.key, r.received_at) for r in conn.execute(query)]

    def bodies(self, keys: Sequence[str]) -> list[Request]:
        """The kind and body of each of `keys` held here."""
        found: list[Request] = []
        with self.store.reading() as conn:
            for start in range(0, len(keys), 500):
                query = select(inbox.c.key, inbox.c.kind, inbox.c.body).where(
                    inbox.c.key.in_(keys[start : start + 500])
                )
                found += [(r.key, r.kind, r.body) for r in conn.execute(query)]
        return found

    def known(self, keys: Sequence[str]) -> set[str]:
        """Those of `keys` this inbox holds (done or not)."""
        found: set[str] = set()
        with self.store.reading() as conn:
            for start in range(0, len(keys), 500):
                found.update(
                    conn.execute(select(inbox.c.key).where(inbox.c.key.in_(keys[start : start + 500]))).scalars()
                )
        return found

    def forget(self, keys: Sequence[str]) -> int:
        """Remove `keys` (requests the work process took from the spool)."""
        removed = 0
        for start in range(0, len(keys), 500):
            with self.store.writing() as conn:
                removed += conn.execute(delete(inbox).where(inbox.c.key.in_(keys[start : start + 500]))).rowcount
        return removed

    def done(self, key: str) -> None:
        with self.store.writing() as conn:
            conn.execute(
                update(inbox).where(inbox.c.key == key, inbox.c.done_at.is_(None)).values(done_at=self.store.now())
            )

    def claim(self, key: str, lease: timedelta) -> bool:
        """Take an unfinished item's work: True when it is this replica's (it took it) or its taker's
        claim is older than `lease` (that replica died, or could not reach Slack). One replica wins."""
        now = self.store.now()
        with self.store.writing() as conn:
            result = conn.execute(
                update(inbox)
                .where(
                    inbox.c.key == key,
                    inbox.c.done_at.is_(None),
                    (inbox.c.claimed_by == self.store.replica)
                    | inbox.c.claimed_at.is_(None)
                    | (inbox.c.claimed_at < now - lease),
                )
                .values(claimed_by=self.store.replica, claimed_at=now)
            )
            return result.rowcount == 1

    def pending(self, max_age: timedelta, min_age: timedelta = timedelta(0)) -> list[tuple[str, str, dict[str, Any]]]:
        """Acknowledged requests whose work never finished (the process stopped, or Slack could not be
        reached), received between `max_age` and `min_age` ago, oldest first."""
        return [(row.key, row.kind, row.body) for row in self.spooled(max_age, self.store.now() - min_age)]

    def prune(self, older_than: timedelta) -> int:
        """Forget finished items older than `older_than` (they only guard against retries)."""
        with self.store.writing() as conn:
            result = conn.execute(
                delete(inbox).where(inbox.c.done_at.is_not(None), inbox.c.received_at < self.store.now() - older_than)
            )
            return int(result.rowcount)
