"""Retention: raw samples past `raw_days` fold into hourly maxima; hourly rows past `hourly_days` go."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from bot.state import Store
from bot.state.rentals import Rentals
from bot.state.retention import Compacted, compact
from bot.state.schema import gpu_samples, gpu_samples_hourly
from rules.samples import Sample

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
FIELDS = {
    "gpu": "A100-80GB",
    "cards": 1,
    "share": None,
    "unit": "day",
    "price": 400.0,
    "currency": "CNY",
    "channel": "C1",
    "owner": "U1",
    "project": None,
    "started_at": NOW - timedelta(days=30),
}


def _hours(store: Store) -> list[Any]:
    with store.reading() as conn:
        return conn.execute(select(gpu_samples_hourly).order_by(*gpu_samples_hourly.primary_key)).all()


def test_every_sample_folds_into_its_hour_once_and_old_raw_ones_go(db_target: str) -> None:
    store = Store(db_target)
    rentals = Rentals(store)
    inst, _ = rentals.track_instance("T1", "a", FIELDS)
    old_hour = datetime(2026, 11, 20, 3, tzinfo=UTC)
    old = [Sample(old_hour + timedelta(minutes=m), 0, float(m), 1000.0 + m, 81920) for m in range(0, 120, 1)]
    recent = [Sample(NOW - timedelta(minutes=m), 0, 1.0, 500, 81920) for m in range(30)]
    rentals.add_samples(inst.id, old + recent, [60.0] * len(old) + [None] * len(recent))

    done = compact(store, NOW, raw_days=7, hourly_days=90)
    # all 150 folded, into the two old hours and the recent half hour's two (11:31-11:59 and 12:00)
    assert (done.folded, done.hours, done.deleted, done.dropped) == (150, 4, 120, 0)
    hours = _hours(store)
    assert [(h.hour, h.samples, h.utilization_max_pct, h.memory_used_max_mib, h.power_max_w) for h in hours] == [
        (old_hour, 60, 59.0, 1059.0, 60.0),
        (old_hour + timedelta(hours=1), 60, 119.0, 1119.0, 60.0),
        (NOW - timedelta(hours=1), 29, 1.0, 500.0, None),
        (NOW, 1, 1.0, 500.0, None),
    ]
    first_and_last = [(h.first_at, h.last_at) for h in hours[2:]]
    assert first_and_last == [(NOW - timedelta(minutes=29), NOW - timedelta(minutes=1)), (NOW, NOW)]
    with store.reading() as conn:
        assert conn.execute(select(func.count()).select_from(gpu_samples)).scalar() == 30  # for the idle rule
    assert compact(store, NOW, raw_days=7, hourly_days=90) == Compacted(0, 0, 0, 0)  # nothing twice

    # a late sample (an agent's buffer) of an hour folded, its raw samples gone: it joins its hour, once
    rentals.add_samples(inst.id, [Sample(old_hour + timedelta(seconds=30), 0, 99.0, 10.0, 81920)], [None])
    assert compact(store, NOW, raw_days=7, hourly_days=90) == Compacted(1, 1, 1, 0)
    first = _hours(store)[0]
    assert (first.samples, first.utilization_max_pct, first.memory_used_max_mib, first.first_at) == (
        61,
        99.0,
        1059.0,
        old_hour,
    )
    later = compact(store, NOW + timedelta(days=100), raw_days=7, hourly_days=90)
    assert later == Compacted(0, 0, 30, 4)  # the recent raw samples and every hourly row are past their days
    assert _hours(store) == []


def test_a_fold_in_batches_writes_what_one_statement_would(db_target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many instances folded a few thousand ids at a time (the write lock let go between batches) leave the same
    hours as one statement over all of them; a late sample without power keeps the hour's power maximum."""
    from bot.state import retention

    store = Store(db_target)
    rentals = Rentals(store)
    old_hour = datetime(2026, 11, 20, 3, tzinfo=UTC)
    for n in range(7):
        inst, _ = rentals.track_instance("T1", f"box-{n}", FIELDS)
        day = [
            Sample(old_hour + timedelta(minutes=m), m % 2, float((m * 7 + n) % 100), 100.0 * n, 81920)
            for m in range(150)
        ]
        rentals.add_samples(inst.id, day, [float(n) if m % 3 else None for m in range(150)])
    with store.reading() as conn:  # the floor: one statement, in a transaction rolled back
        conn.execute(retention.fold_statement(conn.dialect.name, 0, 10**9))
        expected = conn.execute(select(gpu_samples_hourly).order_by(*gpu_samples_hourly.primary_key)).all()
        conn.rollback()
    monkeypatch.setattr(retention, "BATCH", 400)  # 1,050 ids: three batches
    writes = []
    real = store.writing

    def counting() -> Any:
        writes.append(1)
        return real()

    monkeypatch.setattr(store, "writing", counting)
    assert retention.roll_up(store) == (7 * 150, len(expected))  # an hour two batches wrote counts once
    assert len(writes) == 1 + 3 + 1  # the newest id read, three batches, the last look that finds none
    assert _hours(store) == expected and len(expected) == 7 * 2 * 3  # 7 instances, 2 GPUs, 3 hours

    monkeypatch.setattr(store, "writing", real)
    late = rentals.instance("T1", "box-3")
    assert late is not None
    rentals.add_samples(late.id, [Sample(old_hour + timedelta(seconds=1), 0, 1.0, 1.0, 81920)], [None])
    compact(store, NOW, raw_days=7, hourly_days=90)
    h = gpu_samples_hourly.c
    with store.reading() as conn:
        power, samples = conn.execute(
            select(h.power_max_w, h.samples).where(h.instance_id == late.id, h.gpu == 0, h.hour == old_hour)
        ).one()
    assert (power, samples) == (3.0, 31)
