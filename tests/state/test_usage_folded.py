"""A report's GPU-hours are the same whatever part of the samples is folded into hours (issue 50: reports read the
hourly rows and only the raw samples not folded yet): before any fold, after it, with late samples not folded yet,
after they are, and once the raw samples are gone. Random samples of several instances and GPUs: partial hours (a
box started at :35), a lone sample in its hour, gaps, readings around the busy threshold, an hour kept before 0030
(no sample times: a whole hour); on SQLite and PostgreSQL."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import insert

from bot.state import Store
from bot.state.rentals import Rentals
from bot.state.retention import compact, roll_up
from bot.state.schema import gpu_samples_hourly
from bot.state.usage import Daily, daily_activity
from rules.samples import Sample

NOW = datetime(2026, 11, 30, 12, 40, tzinfo=UTC)
SINCE = NOW - timedelta(days=3)
FIELDS = {
    "gpu": "A100-80GB",
    "cards": 2,
    "share": None,
    "unit": "hour",
    "price": 30.0,
    "currency": "CNY",
    "channel": "C1",
    "owner": "U1",
    "project": None,
    "started_at": NOW - timedelta(days=5),
}


def _samples(rng: random.Random, start: datetime, stop: datetime, gpus: int) -> list[Sample]:
    out = []
    for gpu in range(gpus):
        at = start + timedelta(seconds=rng.randint(0, 3000))
        while at < stop:
            out.append(Sample(at, gpu, rng.choice([0.0, 4.0, 5.0, 6.0, 90.0]), 1000.0, 81920.0))
            at += timedelta(seconds=rng.choice([60, 60, 60, 300, 2400, 7200]))
    return out


def _daily(rentals: Rentals, ids: list[int]) -> Daily:
    return daily_activity(rentals.store, ids, SINCE, NOW, offset_s=8 * 3600, busy_above_pct=5.0)


def _same(a: Daily, b: Daily) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert a[key] == pytest.approx(b[key], abs=1e-9), key


def test_the_figures_are_the_same_whatever_is_folded(db_target: str) -> None:
    store = Store(db_target)
    rentals = Rentals(store)
    rng = random.Random(50)
    ids = []
    for n in range(6):
        inst, _ = rentals.track_instance("T1", f"box-{n}", FIELDS)
        ids.append(inst.id)
        start = NOW - timedelta(hours=rng.randint(3, 60), minutes=25)  # partial first hours
        samples = _samples(rng, start, NOW - timedelta(hours=2), 1 + n % 3)
        rentals.add_samples(inst.id, samples, [None] * len(samples))
    lone = Sample(NOW - timedelta(hours=1, minutes=17), 0, 3.0, 10.0, 81920.0)  # alone in its hour
    rentals.add_samples(ids[0], [lone], [None])
    with store.writing() as conn:  # an hour folded by a release before 0030: no sample times, a whole hour
        conn.execute(
            insert(gpu_samples_hourly).values(
                instance_id=ids[5],
                gpu=0,
                hour=datetime(2026, 11, 28, 1, tzinfo=UTC),
                samples=60,
                utilization_max_pct=2.0,
                memory_used_max_mib=10.0,
                memory_total_mib=81920.0,
            )
        )
    stray = Sample(datetime(2026, 11, 28, 1, 20, tzinfo=UTC), 0, 1.0, 10.0, 81920.0)  # raw, in that very hour
    rentals.add_samples(ids[5], [stray], [None])
    before = _daily(rentals, ids)
    assert any(busy for busy, _ in before.values()) and any(idle for _, idle in before.values())

    assert roll_up(store)[0] > 0
    _same(_daily(rentals, ids), before)  # folded: every hour read from its hourly row

    # the last two hours come in late and partly into hours already folded; read before they are folded, and after
    for n, inst_id in enumerate(ids):
        late = _samples(rng, NOW - timedelta(hours=2, minutes=50), NOW - timedelta(seconds=1), 1 + n % 3)
        rentals.add_samples(inst_id, late, [None] * len(late))
    with_late = _daily(rentals, ids)
    assert with_late != before
    roll_up(store)
    _same(_daily(rentals, ids), with_late)

    # the raw samples past their days go (the digest's idle rule had them); the hours keep the same figures
    done = compact(store, NOW + timedelta(days=1), raw_days=1, hourly_days=90)
    assert done.deleted > 0 and done.folded == 0
    _same(_daily(rentals, ids), with_late)


def test_serve_folds_at_start_up_and_every_hour(tmp_path: Path) -> None:
    """A serve restarted within the hour again and again would never fold, and reports would read ever more raw
    samples: the job runs at start-up too (one replica an hour slot), and folds what came."""
    from bot.server.jobs import jobs_of
    from tests.support.slack_harness import running_app

    with running_app(tmp_path) as h:
        [job] = [j for j in jobs_of(h.settings, h.deps, h.doors()) if j.id == "samples:compact"]
        assert job.at_start and job.every == job.shared == timedelta(hours=1)
        rentals = Rentals(h.deps.store)
        inst, _ = rentals.track_instance("T1", "box", FIELDS | {"started_at": h.clock.now - timedelta(days=1)})
        rentals.add_samples(inst.id, [Sample(h.clock.now - timedelta(minutes=5), 0, 50.0, 1.0, 81920.0)], [None])
        done = job.work()
        assert done.folded == 1  # type: ignore[attr-defined]
