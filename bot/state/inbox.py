"""The inbox: every Slack request is on disk before it is acknowledged, claimed by the replica doing its
work, and marked done when the work is; what never finished is found again (pending) and redone."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite

from bot.state.group_commit import GroupCommit, Late
from bot.state.schema import inbox
from bot.state.store import Store, StoreBusy

# built once: their compiled forms are cached, on the acknowledgement's path. A key seen before is left as it is;
# a new one is told by the row count on SQLite (RETURNING needs SQLite 3.35), by the key returned on PostgreSQL
ENQUEUE = {"sqlite": sqlite.insert(inbox).on_conflict_do_nothing(index_elements=["key"]),
           "postgresql": postgresql.insert(inbox).on_conflict_do_nothing(index_elements=["key"]).returning(inbox.c.key)}

Request = tuple[str, str, dict[str, Any]]  # key, kind, body


class Inbox:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._enqueue = ENQUEUE[store.engine.dialect.name]
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
            kept = []
            for key, kind, body in requests:
                result = conn.execute(self._enqueue, {"key": key, "kind": kind, "body": body, "received_at": stamp,
                                                      "claimed_by": self.store.replica, "claimed_at": stamp})
                kept.append(result.first() is not None if result.returns_rows else result.rowcount == 1)
            return kept

    def done(self, key: str) -> None:
        with self.store.writing() as conn:
            conn.execute(update(inbox).where(inbox.c.key == key, inbox.c.done_at.is_(None))
                         .values(done_at=self.store.now()))

    def claim(self, key: str, lease: timedelta) -> bool:
        """Take an unfinished item's work: True when it is this replica's (it took it) or its taker's
        claim is older than `lease` (that replica died, or could not reach Slack). One replica wins."""
        now = self.store.now()
        with self.store.writing() as conn:
            result = conn.execute(
                update(inbox).where(inbox.c.key == key, inbox.c.done_at.is_(None),
                                    (inbox.c.claimed_by == self.store.replica) | inbox.c.claimed_at.is_(None)
                                    | (inbox.c.claimed_at < now - lease))
                .values(claimed_by=self.store.replica, claimed_at=now))
            return result.rowcount == 1

    def pending(self, max_age: timedelta, min_age: timedelta = timedelta(0)) -> list[tuple[str, str, dict[str, Any]]]:
        """Acknowledged requests whose work never finished (the process stopped, or Slack could not be
        reached), received between `max_age` and `min_age` ago, oldest first."""
        now = self.store.now()
        query = (select(inbox.c.key, inbox.c.kind, inbox.c.body)
                 .where(inbox.c.done_at.is_(None), inbox.c.received_at >= now - max_age,
                        inbox.c.received_at <= now - min_age)
                 .order_by(inbox.c.received_at))
        with self.store.reading() as conn:
            return [(r.key, r.kind, r.body) for r in conn.execute(query)]

    def prune(self, older_than: timedelta) -> int:
        """Forget finished items older than `older_than` (they only guard against retries)."""
        with self.store.writing() as conn:
            result = conn.execute(delete(inbox).where(inbox.c.done_at.is_not(None),
                                                      inbox.c.received_at < self.store.now() - older_than))
            return int(result.rowcount)
