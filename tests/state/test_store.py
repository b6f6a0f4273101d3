from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.state import Store


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_inbox_keeps_requests_until_done_and_refuses_a_repeat(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")
    assert store.enqueue("event:Ev1", "event", {"event_id": "Ev1"})
    assert not store.enqueue("event:Ev1", "event", {"event_id": "Ev1"})  # Slack's retry
    assert [k for k, _, _ in store.pending(timedelta(minutes=30))] == ["event:Ev1"]
    store.done("event:Ev1")
    assert store.pending(timedelta(minutes=30)) == []


def test_pending_ignores_work_older_than_the_window_and_prune_forgets_done_items(tmp_path: Path) -> None:
    clock = Clock()
    store = Store(tmp_path / "s.db", now=clock)
    store.enqueue("old", "command", {})
    store.enqueue("old-done", "command", {})
    store.done("old-done")
    clock.now += timedelta(days=8)
    store.enqueue("new", "command", {})
    assert [k for k, _, _ in store.pending(timedelta(minutes=30))] == ["new"]
    assert store.prune(timedelta(days=7)) == 1  # only the finished one
    assert not store.enqueue("old", "command", {})  # unfinished items are never pruned


def test_conversation_survives_a_new_store_object(tmp_path: Path) -> None:
    first = Store(tmp_path / "s.db")
    convo = first.create(team="T1", channel="C1", user="U1", lang="zh")
    convo.thread_ts, convo.answers = "1.2", {"duration": "10h"}
    first.save(convo)
    again = Store(tmp_path / "s.db").by_thread("T1", "C1", "1.2")
    assert again is not None and again.answers == {"duration": "10h"} and again.id == convo.id


def test_concurrent_writers_all_land(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.db")

    def write(n: int) -> None:
        for i in range(25):
            store.enqueue(f"k{n}-{i}", "command", {"n": n})

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(store.pending(timedelta(hours=1))) == 200


def test_memory_database_is_refused() -> None:
    with pytest.raises(ValueError, match="needs a database file"):
        Store(":memory:")
