"""Group commit (bot/state/group_commit.py): requests kept at the same moment share one transaction, each
hears its own result, a failed batch fails each of its items, and an item past its budget is not written."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from bot.state import Inbox, Store, StoreBusy
from bot.state.group_commit import GroupCommit, Late
from bot.state.schema import inbox
from tests.support.state_template import migrated_state_db


class Writer:
    """A batch writer that can be held in the middle of a batch, and says which batches it wrote."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.entered, self.go_on = threading.Event(), threading.Event()
        self.go_on.set()
        self.fail: Exception | None = None

    def __call__(self, items: Sequence[str], budget_s: float | None) -> list[str]:
        self.batches.append(list(items))
        self.entered.set()
        assert self.go_on.wait(5)
        if self.fail is not None:
            raise self.fail
        return [item.upper() for item in items]


def submit_in_thread(
    commits: GroupCommit[str, str], item: str, results: dict[str, object], budget_s: float | None = None
) -> threading.Thread:
    def go() -> None:
        try:
            results[item] = commits.submit(item, budget_s)
        except Exception as exc:  # the test looks at what each caller got
            results[item] = exc

    thread = threading.Thread(target=go)
    thread.start()
    return thread


def waiting(commits: GroupCommit[str, str], count: int) -> None:
    deadline = time.monotonic() + 30  # ends when seen: long only for a loaded CI machine
    while len(commits._waiting) != count and time.monotonic() < deadline:
        time.sleep(0.001)
    assert len(commits._waiting) == count


def test_one_item_alone_is_written_at_once_in_its_own_batch() -> None:
    writer = Writer()
    commits: GroupCommit[str, str] = GroupCommit(writer)
    assert commits.submit("a") == "A"
    assert commits.submit("b") == "B"
    assert writer.batches == [["a"], ["b"]]


def while_one_is_written(commits: GroupCommit[str, str], writer: Writer, first: str, *others: str) -> dict[str, object]:
    """Submit `first`, hold its batch in the writer, submit `others` meanwhile, let go: what each caller got."""
    writer.go_on.clear()
    results: dict[str, object] = {}
    threads = [submit_in_thread(commits, first, results)]
    assert writer.entered.wait(5)
    threads += [submit_in_thread(commits, name, results) for name in others]
    waiting(commits, len(others))
    writer.go_on.set()
    for thread in threads:
        thread.join(5)
    return results


def test_items_arriving_during_a_commit_are_written_together_next_each_with_its_result() -> None:
    writer = Writer()
    results = while_one_is_written(GroupCommit(writer), writer, "first", "x", "y", "z")
    assert writer.batches[0] == ["first"]
    assert sorted(writer.batches[1]) == ["x", "y", "z"] and len(writer.batches) == 2  # one transaction for three
    assert results == {"first": "FIRST", "x": "X", "y": "Y", "z": "Z"}


def test_a_failed_batch_fails_each_of_its_items_and_the_next_one_is_written() -> None:
    writer = Writer()
    commits: GroupCommit[str, str] = GroupCommit(writer)
    writer.fail = StoreBusy("locked")
    results = while_one_is_written(commits, writer, "a", "b", "c")
    assert all(isinstance(results[name], StoreBusy) for name in "abc") and len(writer.batches) == 2
    writer.fail = None
    assert commits.submit("d") == "D"


def test_an_item_not_taken_within_its_budget_is_late_and_never_written() -> None:
    writer = Writer()
    commits: GroupCommit[str, str] = GroupCommit(writer)
    writer.go_on.clear()
    results: dict[str, object] = {}
    first = submit_in_thread(commits, "first", results)
    assert writer.entered.wait(5)
    late = submit_in_thread(commits, "late", results, budget_s=0.05)
    late.join(5)
    assert isinstance(results["late"], Late)
    assert commits._waiting == []  # it left the queue
    writer.go_on.set()
    first.join(5)
    assert writer.batches == [["first"]]


def test_concurrent_acknowledgements_keep_each_request_once(db_target: str) -> None:
    """Twenty threads keep ten requests twice each (Slack's retries arriving together): each request is new
    exactly once, whichever batch its copies land in."""
    store = Store(db_target)
    box = Inbox(store)
    results: list[tuple[str, bool]] = []
    lock = threading.Lock()
    start = threading.Barrier(20)

    def keep(n: int) -> None:
        key = f"event:Ev{n % 10}"
        start.wait(5)
        kept = box.enqueue(key, "event", {"event_id": key, "n": n}, budget_s=2.0)
        with lock:
            results.append((key, kept))

    threads = [threading.Thread(target=keep, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(results) == 20
    assert sorted(key for key, kept in results if kept) == [f"event:Ev{n}" for n in range(10)]
    with store.reading() as conn:
        assert conn.execute(select(func.count()).select_from(inbox)).scalar() == 10
    assert len(box.pending(timedelta(hours=1))) == 10


def test_a_write_past_the_budget_of_every_waiting_acknowledgement_says_busy(tmp_path: Path) -> None:
    store = Store(migrated_state_db(tmp_path / "state.db"))
    box = Inbox(store)
    # a background writer holds the lock past the acknowledgement's budget
    with store.writing(), pytest.raises(StoreBusy):
        box.enqueue("command:1", "command", {}, budget_s=0.05)
    assert box.enqueue("command:1", "command", {}, budget_s=1.0)  # nothing of it was kept before
