"""Whole days of busy and idle GPU-hours are kept once added up (bot/state/activity_days.py), and a report reads the
same figures from them as from the hourly rows and the samples: once kept, after a late sample (before and after
the fold), after the hourly rows' retention; a fold between reading and keeping keeps nothing; on SQLite and
PostgreSQL."""

from __future__ import annotations

import logging
import random
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import delete, func, select

from bot.state import Store
from bot.state.activity_days import keep, marker
from bot.state.rentals import Rentals
from bot.state.retention import compact, roll_up
from bot.state.schema import activity_days
from bot.state.usage import Daily, daily_activity
from rules.samples import Sample
from tests.support.state_template import migrated_state_db

NOW = datetime(2026, 11, 30, 12, 40, tzinfo=UTC)  # 20:40 in Shanghai
OFFSET = 8 * 3600
SINCE = datetime(2026, 11, 26, 16, tzinfo=UTC)  # 00:00 on the 27th in Shanghai: three whole days, then today's part
FIELDS = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 30.0, "currency": "CNY",
          "channel": "C1", "owner": "U1", "project": None, "started_at": NOW - timedelta(days=6)}  # fmt: skip


def _world(store: Store) -> list[int]:
    rentals, rng, ids = Rentals(store), random.Random(32), []
    for n in range(4):
        inst, _ = rentals.track_instance("T1", f"box-{n}", FIELDS)
        ids.append(inst.id)
        at, samples = SINCE - timedelta(hours=5) + timedelta(minutes=n * 7), []
        while at < NOW - timedelta(minutes=30):
            samples.append(Sample(at, n % 2, rng.choice([0.0, 3.0, 90.0]), 1000.0, 81920.0))
            at += timedelta(minutes=rng.choice([10, 10, 30, 240]))
        rentals.add_samples(inst.id, samples, [None] * len(samples))
    roll_up(store)
    return ids


def _read(store: Store, ids: list[int], offset_s: int = OFFSET) -> Daily:
    return daily_activity(store, ids, SINCE, NOW, offset_s=offset_s, busy_above_pct=5.0)


def _added_up_again(store: Store, ids: list[int]) -> Daily:
    """What the hourly rows and the samples say, with nothing kept (and then kept again)."""
    with store.writing() as conn:
        conn.execute(delete(activity_days))
    return _read(store, ids)


def _same(a: Daily, b: Daily) -> bool:
    """The same days and figures (the database may add one day's hours up in another order: the last bit moves)."""
    return a.keys() == b.keys() and all(a[k] == pytest.approx(b[k], abs=1e-9) for k in a)


def _kept(store: Store) -> int:
    with store.reading() as conn:
        return int(conn.execute(select(func.count()).select_from(activity_days)).scalar() or 0)


def test_kept_days_give_the_figures_the_samples_give(db_target: str) -> None:
    store = Store(db_target)
    ids = _world(store)
    first = _read(store, ids)
    assert _kept(store) == 4 * 3  # each instance's three whole days (one of them, box-0's first, without samples)
    assert _same(_read(store, ids), first)  # read from the kept days, today's part added up
    assert _same(_added_up_again(store, ids), first)
    assert any(busy for busy, _ in first.values()) and any(idle for _, idle in first.values())


def test_a_late_sample_counts_before_and_after_the_fold(db_target: str) -> None:
    store = Store(db_target)
    ids = _world(store)
    before = _read(store, ids)  # every whole day kept
    day = datetime(2026, 11, 28, 4, tzinfo=UTC)  # 12:00 on the 28th in Shanghai: a kept day
    late = [Sample(day + timedelta(minutes=m), 0, 99.0, 1000.0, 81920.0) for m in range(0, 180, 10)]
    Rentals(store).add_samples(ids[1], late, [None] * len(late))  # an agent's buffer, not folded yet
    with_late = _read(store, ids)  # that day added up from its samples, not read from what was kept
    assert not _same(with_late, before)
    assert _kept(store) == 4 * 3
    with store.reading() as conn:
        kept_before = set(conn.execute(select(activity_days.c.instance_id, activity_days.c.day)))
    roll_up(store)  # folded: the day kept before the samples came is forgotten with the fold, and only it
    with store.reading() as conn:
        forgotten = set(conn.execute(select(activity_days.c.instance_id, activity_days.c.day))) ^ kept_before
    assert forgotten == {(ids[1], (int(day.timestamp()) + OFFSET) // 86400)}
    assert _same(_read(store, ids), with_late)
    assert _kept(store) == 4 * 3
    assert _same(_read(store, ids), with_late)  # every day read from what is kept
    assert _same(_added_up_again(store, ids), with_late)


def test_the_hourly_rows_retention_forgets_the_days_it_reaches(db_target: str) -> None:
    store = Store(db_target)
    ids = _world(store)
    _read(store, ids)
    compact(store, NOW, raw_days=30, hourly_days=2.5)  # hours before 00:40 on the 28th, Shanghai's 08:40, go
    with store.reading() as conn:
        days = sorted(set(conn.execute(select(activity_days.c.day))))
    assert [d for (d,) in days] == [(int(datetime(2026, 11, 29, tzinfo=UTC).timestamp()) // 86400)]  # the 29th
    assert _same(_read(store, ids), _added_up_again(store, ids))


def test_a_fold_between_reading_and_keeping_keeps_nothing(db_target: str) -> None:
    store = Store(db_target)
    ids = _world(store)
    with store.reading() as conn:
        seen = marker(conn)
    assert seen is not None
    Rentals(store).add_samples(ids[0], [Sample(NOW - timedelta(minutes=5), 0, 50.0, 1.0, 81920.0)], [None])
    roll_up(store)
    assert keep(store, [((ids[0], 20_000), (1.0, 0.0))], OFFSET, 5.0, seen) == 0
    assert _kept(store) == 0


@pytest.mark.parametrize("offset_h", [5.5, 5.75])
def test_a_zone_off_the_hour_is_added_up_each_time(tmp_path: Path, offset_h: float) -> None:
    """India's +5:30 and Nepal's +5:45 put an hour in two days: its day is its start's, read each time."""
    store = Store(str(migrated_state_db(tmp_path / "state.db")))
    ids = _world(store)
    first = _read(store, ids, int(offset_h * 3600))
    assert first and _kept(store) == 0


def test_a_day_later_only_the_days_not_kept_are_added_up(db_target: str) -> None:
    """Read yesterday (two whole days kept), then today: the third day is added up and kept, the first two read."""
    store = Store(db_target)
    ids = _world(store)
    daily_activity(store, ids, SINCE, NOW - timedelta(days=1), offset_s=OFFSET, busy_above_pct=5.0)
    assert _kept(store) == 4 * 2
    today = _read(store, ids)
    assert _kept(store) == 4 * 3
    assert _same(today, _added_up_again(store, ids))


def test_days_the_database_refuses_to_keep_leave_the_report_whole(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = Store(str(migrated_state_db(tmp_path / "state.db")))
    ids = _world(store)
    with store.writing() as conn:  # whatever the database may refuse a write for
        conn.exec_driver_sql(
            "CREATE TRIGGER refused BEFORE INSERT ON activity_days BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )
    with caplog.at_level(logging.WARNING, logger="bot.state.activity_days"):
        refused = _read(store, ids)
    assert _kept(store) == 0 and "kept 0 of 12 days of GPU-hours" in caplog.text
    with store.writing() as conn:
        conn.exec_driver_sql("DROP TRIGGER refused")
    assert _same(refused, _read(store, ids)) and _kept(store) == 12


def test_two_reports_keeping_the_same_days_at_once_both_finish(db_target: str) -> None:
    """Each keeps in key order: on PostgreSQL two writers of the same rows in opposite orders would deadlock."""
    store = Store(db_target)
    ids = _world(store)
    start, results = threading.Barrier(2), []

    def report(order: list[int]) -> None:
        start.wait()
        results.append(_read(store, order))

    readers = [threading.Thread(target=report, args=(order,)) for order in (ids, ids[::-1])]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join(30)
    assert len(results) == 2 and _same(results[0], results[1]) and _kept(store) == 12
