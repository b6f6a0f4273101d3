"""Retention: raw samples past `raw_days` fold into hourly maxima; hourly rows past `hourly_days` go."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from bot.state import Store
from bot.state.rentals import Rentals
from bot.state.retention import compact
from bot.state.schema import gpu_samples, gpu_samples_hourly
from rules.samples import Sample

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
FIELDS = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "day", "price": 400.0, "currency": "CNY",
          "channel": "C1", "owner": "U1", "project": None, "started_at": NOW - timedelta(days=30)}


def test_old_samples_fold_into_hourly_maxima_once_and_recent_ones_stay(db_target: str) -> None:
    store = Store(db_target)
    rentals = Rentals(store)
    inst, _ = rentals.track_instance("T1", "a", FIELDS)
    old_hour = datetime(2026, 11, 20, 3, tzinfo=UTC)
    old = [Sample(old_hour + timedelta(minutes=m), 0, float(m), 1000.0 + m, 81920) for m in range(0, 120, 1)]
    recent = [Sample(NOW - timedelta(minutes=m), 0, 1.0, 500, 81920) for m in range(30)]
    rentals.add_samples(inst.id, old + recent, [60.0] * len(old) + [None] * len(recent))

    done = compact(store, NOW, raw_days=7, hourly_days=90)
    assert (done.folded, done.hours, done.dropped) == (120, 2, 0)
    with store.reading() as conn:
        hours = conn.execute(select(gpu_samples_hourly).order_by(gpu_samples_hourly.c.hour)).all()
        left = conn.execute(select(func.count()).select_from(gpu_samples)).scalar()
    assert [(h.hour, h.samples, h.utilization_max_pct, h.memory_used_max_mib, h.power_max_w) for h in hours] == [
        (old_hour, 60, 59.0, 1059.0, 60.0), (old_hour + timedelta(hours=1), 60, 119.0, 1119.0, 60.0)]
    assert left == 30  # the last half hour is still raw, for the idle rule
    assert compact(store, NOW, raw_days=7, hourly_days=90).folded == 0

    # a late sample of an hour already folded combines with it; hourly rows past their days go
    rentals.add_samples(inst.id, [Sample(old_hour + timedelta(seconds=30), 0, 99.0, 10.0, 81920)], [None])
    assert compact(store, NOW, raw_days=7, hourly_days=90).hours == 1
    with store.reading() as conn:
        first = conn.execute(select(gpu_samples_hourly).order_by(gpu_samples_hourly.c.hour)).first()
    assert first is not None and (first.samples, first.utilization_max_pct, first.memory_used_max_mib) == (
        61, 99.0, 1059.0)
    later = compact(store, NOW + timedelta(days=100), raw_days=7, hourly_days=90)
    # the recent half hour folds into its two hours too, and all four hourly rows are past 90 days
    assert (later.folded, later.hours, later.dropped) == (30, 2, 4)
    with store.reading() as conn:
        assert conn.execute(select(func.count()).select_from(gpu_samples_hourly)).scalar() == 0
