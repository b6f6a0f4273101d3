"""Issue 20.9: heartbeats must not starve Slack. An acknowledgement's write (it has a budget) goes before
background writers waiting for the process's write lock, and a day of samples is written in short
batches, so a command waits at most one batch."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.state import Store, StoreBusy
from bot.state.rentals import SAMPLE_BATCH, Rentals
from bot.state.write_lock import AckGate, WriteLock
from rules.samples import Sample
from tests.support.state_template import migrated_state_db


def waiting_urgent(lock: WriteLock, count: int) -> None:
    deadline = time.monotonic() + 30  # ends when seen: long only for a loaded CI machine
    while lock._urgent != count and time.monotonic() < deadline:
        time.sleep(0.001)
    assert lock._urgent == count


def test_an_acknowledgement_goes_before_background_writers_waiting() -> None:
    lock, order = WriteLock(), []
    assert lock.acquire(urgent=False)

    def take(name: str, urgent: bool) -> None:
        assert lock.acquire(urgent=urgent, timeout=5)
        order.append(name)
        time.sleep(0.02)
        lock.release()

    background = [threading.Thread(target=take, args=(f"heartbeat-{i}", False)) for i in range(3)]
    for thread in background:
        thread.start()
    ack = threading.Thread(target=take, args=("ack", True))
    ack.start()
    waiting_urgent(lock, 1)
    lock.release()
    for thread in [ack, *background]:
        thread.join(5)
    assert order[0] == "ack" and sorted(order[1:]) == ["heartbeat-0", "heartbeat-1", "heartbeat-2"]


def test_an_acknowledgement_past_its_budget_gives_up_and_the_lock_still_works() -> None:
    lock = WriteLock()
    assert lock.acquire(urgent=False)
    assert lock.acquire(urgent=True, timeout=0.05) is False and lock._urgent == 0
    lock.release()
    assert lock.acquire(urgent=False, timeout=1)


def test_a_day_of_samples_is_kept_in_batches_each_its_own_transaction(tmp_path: Path) -> None:
    store = Store(migrated_state_db(tmp_path / "s.db"))
    rentals = Rentals(store)
    t0 = datetime(2026, 11, 30, tzinfo=UTC)
    inst, _ = rentals.track_instance(
        "T1",
        "box",
        {
            "gpu": "A100-80GB",
            "cards": 1,
            "share": None,
            "unit": "day",
            "price": 400.0,
            "currency": "CNY",
            "channel": "C1",
            "owner": "U1",
            "project": None,
            "started_at": t0,
        },
    )
    samples = [
        Sample(t0 + timedelta(seconds=10 * i), i % 8, 50 if i == 1200 else 0, 1000, 81920)
        for i in range(SAMPLE_BATCH * 3 + 7)
    ]
    transactions = []
    original = store.writing

    def counted(budget_s: float | None = None):  # type: ignore[no-untyped-def]
        transactions.append(budget_s)
        return original(budget_s)

    store.writing = counted  # type: ignore[method-assign]
    assert rentals.add_samples(inst.id, samples, [None] * len(samples)) == len(samples)
    assert len(transactions) == 4  # 500, 500, 500, 7
    store.writing = original  # type: ignore[method-assign]
    assert rentals.add_samples(inst.id, samples, [None] * len(samples)) == 0  # a retry: each kept once
    kept = rentals.instance("T1", "box")
    assert kept is not None and kept.last_busy_at == samples[1200].at


def test_background_work_waits_at_its_next_step_while_a_request_is_acknowledged() -> None:
    from bot.state.write_lock import AckGate

    gate = AckGate(max_wait_s=5)
    acking, passed = threading.Event(), threading.Event()
    finish = threading.Event()

    def acknowledge() -> None:
        with gate.acknowledging():
            gate.yield_to_acks()  # the acknowledging thread itself never waits
            acking.set()
            finish.wait(5)

    def background() -> None:
        acking.wait(5)
        gate.yield_to_acks()
        passed.set()

    threads = [threading.Thread(target=acknowledge), threading.Thread(target=background)]
    for th in threads:
        th.start()
    assert acking.wait(5) and not passed.wait(0.2)  # held back while the acknowledgement is under way
    finish.set()
    assert passed.wait(5)  # and on its way as soon as it ends
    for th in threads:
        th.join(5)


def test_a_thread_holding_the_write_lock_never_waits_and_no_wait_is_longer_than_its_bound() -> None:
    from bot.state.write_lock import AckGate

    gate = AckGate(max_wait_s=0.5)
    with gate.acknowledging():
        done: list[float] = []

        def holder() -> None:
            gate.holding(True)  # an acknowledgement may be waiting for this very lock
            started = time.perf_counter()
            gate.yield_to_acks()
            done.append(time.perf_counter() - started)
            gate.holding(False)
            started = time.perf_counter()
            gate.yield_to_acks()  # not holding it: waits, but no longer than the bound
            done.append(time.perf_counter() - started)

        th = threading.Thread(target=holder)
        th.start()
        th.join(5)
    assert done[0] < 0.25 and 0.45 <= done[1] < 5


HOLD_LOCK = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
"""


@pytest.mark.e2e  # starts a process
def test_another_process_holding_the_write_lock_of_a_sqlite_store_makes_an_acknowledgement_busy(tmp_path: Path) -> None:
    """serve's front door and work process (and terminal commands) write one SQLite file: the file lock beside it
    keeps them apart, and an acknowledgement's budget holds across processes too."""
    store = Store(migrated_state_db(tmp_path / "state.db"))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(tmp_path / "state.db-writer")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        began = time.monotonic()
        with pytest.raises(StoreBusy), store.writing(budget_s=0.3):
            pass
        assert time.monotonic() - began >= 0.3  # it waited its budget, then gave up
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=10)
    with store.writing(budget_s=0.3) as conn:  # let go: the write goes through at once
        conn.exec_driver_sql("SELECT 1")


def test_two_stores_of_one_file_take_turns_through_the_file_lock(tmp_path: Path) -> None:
    first, second = Store(migrated_state_db(tmp_path / "state.db")), Store(migrated_state_db(tmp_path / "state.db"))
    holding, go_on, order = threading.Event(), threading.Event(), []

    def hold() -> None:
        with first.writing():
            holding.set()
            go_on.wait(5)
            order.append("first")

    thread = threading.Thread(target=hold)
    thread.start()
    assert holding.wait(5)
    taker = threading.Thread(target=lambda: (second.writing().__enter__(), order.append("second")))
    taker.start()
    time.sleep(0.05)
    assert order == []  # the second store waits for the first's transaction
    go_on.set()
    thread.join(5)
    taker.join(5)
    assert order == ["first", "second"]


def test_the_work_process_waits_while_the_front_door_acknowledges() -> None:
    """AckGate across processes: the front door publishes its acknowledgements in flight to shared memory; the
    work process's background steps wait on that count, up to their limit."""
    count = multiprocessing.get_context("spawn").RawValue("i", 0)
    front, work = AckGate(), AckGate(max_wait_s=5.0)
    front.publish(count)
    work.follow(count)
    waited: list[float] = []
    with front.acknowledging():
        assert count.value == 1
        thread = threading.Thread(
            target=lambda: (t := time.monotonic(), work.yield_to_acks(), waited.append(time.monotonic() - t))
        )
        thread.start()
        time.sleep(0.1)
        assert thread.is_alive()  # held back while the acknowledgement is in flight
    assert count.value == 0
    thread.join(5)
    assert 0.1 <= waited[0] < 5.0  # it went on when the acknowledgement ended, not at its limit
    began = time.monotonic()
    work.yield_to_acks()
    assert time.monotonic() - began < 1.0  # nothing in flight: no wait
