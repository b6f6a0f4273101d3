"""What replicas sharing one database rely on: an inbox item's work is claimed by one replica, a
scheduled job's slot is run by one, and a conversation is taken by one at a time."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

from bot.server.jobs import once, slot_of
from bot.state import Inbox, Store
from bot.state.job_runs import JobRuns


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 1, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_an_item_is_done_by_the_replica_that_took_it_until_its_claim_lapses(db_target: str) -> None:
    clock = Clock()
    a, b = Inbox(Store(db_target, now=clock, replica="a")), Inbox(Store(db_target, now=clock, replica="b"))
    assert a.enqueue("event:Ev1", "event", {"event_id": "Ev1"})
    assert not b.claim("event:Ev1", timedelta(minutes=2))  # a is on it
    assert a.claim("event:Ev1", timedelta(minutes=2))  # a restarted with the same name takes it back at once
    clock.now += timedelta(minutes=3)
    assert b.claim("event:Ev1", timedelta(minutes=2))  # a went quiet: b takes it over
    assert not a.claim("event:Ev1", timedelta(minutes=2))  # and now b holds it
    b.done("event:Ev1")
    clock.now += timedelta(minutes=10)
    assert not a.claim("event:Ev1", timedelta(minutes=2)) and not b.claim("event:Ev1", timedelta(minutes=2))


def test_many_replicas_racing_for_one_item_or_one_slot_leave_one_winner(db_target: str) -> None:
    clock = Clock()
    first = Store(db_target, now=clock, replica="taker")
    Inbox(first).enqueue("command:x", "command", {})
    clock.now += timedelta(minutes=5)
    stores = [Store(db_target, now=clock, replica=f"r{n}") for n in range(6)]
    items: list[bool] = []
    slots: list[bool] = []
    start = threading.Barrier(len(stores))

    def race(store: Store) -> None:
        start.wait()
        items.append(Inbox(store).claim("command:x", timedelta(minutes=2)))
        slots.append(JobRuns(store).claim("reminders:due", slot_of(clock.now, timedelta(minutes=1))))

    threads = [threading.Thread(target=race, args=(s,)) for s in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(items) == [False] * 5 + [True]
    assert sorted(slots) == [False] * 5 + [True]


def test_a_job_runs_once_per_slot_whichever_replica_ticks(db_target: str) -> None:
    clock = Clock()
    ran: list[str] = []
    jobs = [
        once(
            Store(db_target, now=clock, replica=name),
            "samples:compact",
            timedelta(hours=1),
            lambda name=name: ran.append(name),
        )
        for name in ("a", "b")
    ]  # type: ignore[misc]
    assert [job() for job in jobs] == [True, False]
    clock.now += timedelta(minutes=59)
    assert [job() for job in jobs] == [False, False]  # the same hour
    clock.now += timedelta(minutes=2)
    assert [job() for job in reversed(jobs)] == [True, False]  # the next hour: whoever ticks first
    assert ran == ["a", "b"]
    assert slot_of(datetime(2026, 11, 30, 1, 59, 59, tzinfo=UTC), timedelta(hours=1)) == "2026-11-30T01:00:00+00:00"


def test_one_conversation_is_taken_by_one_replica_at_a_time(pg_url: str) -> None:
    a, b = Store(pg_url, replica="a"), Store(pg_url, replica="b")  # across processes: PostgreSQL only
    order: list[str] = []
    held = threading.Event()

    def first() -> None:
        with a.lock("c1"):
            held.set()
            time.sleep(0.3)
            order.append("a done")

    thread = threading.Thread(target=first)
    thread.start()
    held.wait(5)
    with b.lock("c2"):  # another conversation is not held up
        order.append("b other")
    with b.lock("c1"):
        order.append("b took it")
    thread.join()
    assert order == ["b other", "a done", "b took it"]


def test_two_replicas_given_the_same_heartbeat_at_once_both_accept_and_keep_it_once(db_target: str) -> None:
    """Issue 53.18: on PostgreSQL one of two replicas given the same heartbeat at once answered 500 (the
    agent's "on" and its disk report were inserted by both). Both answer 202; each sample, power report and
    disk is kept once."""
    import json

    from sqlalchemy import func, select

    from bot.server import heartbeat
    from bot.state.rentals import Rentals
    from bot.state.schema import disk_reports, gpu_samples, power_reports

    clock = Clock()
    first = Rentals(Store(db_target, now=clock, replica="a"))
    fields = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 20.0, "currency": "CNY"}
    fields |= {"channel": "C1", "owner": "U1", "project": "llm", "started_at": clock.now - timedelta(hours=1)}
    _box, token = first.track_instance("T1", "train-1", fields)
    replicas = [first, Rentals(Store(db_target, now=clock, replica="b"))]
    answers: list[int] = []
    rounds = 8
    for n in range(rounds):
        at = clock.now + timedelta(minutes=n)
        samples = [
            {"ts": (at - timedelta(seconds=s)).isoformat(), "gpu": g, "utilization_pct": 50.0}
            | {"memory_used_mib": 1000.0, "memory_total_mib": 81920.0}
            for s in (0, 30)
            for g in (0, 1)
        ]
        body = {
            "samples": samples,
            "disks": [{"path": "/data", "size_gb": 10.0 + n}],
            "power": "on" if n == 0 else None,
        }
        raw = json.dumps(body | {"power_at": at.isoformat()} if n == 0 else body).encode()
        gate = threading.Barrier(2)

        def post(rentals: Rentals, raw: bytes = raw, at: datetime = at, gate: threading.Barrier = gate) -> None:
            found = heartbeat.identify(rentals, f"Bearer {token}")
            assert not isinstance(found, heartbeat.Answer)
            gate.wait()
            answer = heartbeat.receive(rentals, found, raw, lambda: at, busy_above_pct=10.0)
            answers.append(answer.status)

        threads = [threading.Thread(target=post, args=(r,)) for r in replicas]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert answers == [202] * (2 * rounds)
    with first.store.reading() as conn:
        kept = conn.execute(select(func.count()).select_from(gpu_samples)).scalar_one()
        said = conn.execute(select(power_reports.c.at, power_reports.c.state, power_reports.c.source)).all()
        disks = conn.execute(select(disk_reports.c.path, disk_reports.c.size_gb)).all()
    assert kept == rounds * 4  # two cards, two moments a round: each once
    assert len(said) == len(set(said))  # no report twice
    assert disks == [("/data", 10.0 + rounds - 1)]
