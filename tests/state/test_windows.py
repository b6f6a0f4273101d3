"""The database's window summaries are the ones the idle rule computes from the raw samples: same GPUs, same
first and last times, same longest gap, busiest reading and least memory share, on SQLite and PostgreSQL."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from bot.state import Store
from bot.state.rentals import Rentals
from bot.state.windows import gpu_windows
from rules.idle import Activity, judge, judge_windows, windows_of
from rules.policy import Idle
from rules.samples import Sample

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
FIELDS = {
    "gpu": "A100-80GB",
    "cards": 1,
    "share": None,
    "unit": "hour",
    "price": 30.0,
    "currency": "CNY",
    "channel": "C1",
    "owner": "U1",
    "project": None,
    "started_at": NOW - timedelta(days=1),
}


def _samples(rng: random.Random, gpus: int, steady: float | None) -> list[Sample]:
    """Random readings at random steps, or, `steady`, one reading a minute at that utilisation."""
    out = []
    for gpu in range(gpus):
        at = NOW - timedelta(minutes=rng.randint(100, 200))  # some before the window's start
        while at <= NOW + timedelta(minutes=5):  # and a few after now
            total = 0.0 if rng.random() < 0.05 else 81920.0
            util = rng.choice([0.0, 2.0, 5.0, 6.0, 80.0]) if steady is None else steady
            out.append(Sample(at, gpu, util, rng.uniform(0, 81920), total))
            at += timedelta(seconds=rng.choice([30, 60, 60, 60, 600, 1500]) if steady is None else 60)
    return out


def test_the_database_adds_up_what_the_rule_does(db_target: str) -> None:
    rentals = Rentals(Store(db_target))
    rng = random.Random(7)
    kept: dict[int, list[Sample]] = {}
    for n in range(12):
        inst, _ = rentals.track_instance("T1", f"box-{n}", FIELDS)
        steady = {1: 3.0, 2: 70.0}.get(n % 4)
        kept[inst.id] = _samples(rng, 1 + n % 3, steady) if n % 5 else []  # every fifth has none
        if kept[inst.id]:
            rentals.add_samples(inst.id, kept[inst.id], [None] * len(kept[inst.id]))
    rules = Idle()
    start = NOW - timedelta(minutes=rules.window_minutes)
    summed = gpu_windows(rentals.store, sorted(kept), start, NOW)
    verdicts = set()
    for inst, samples in kept.items():
        assert summed[inst] == windows_of(samples, start, NOW), inst
        verdict = judge_windows(summed[inst], started=FIELDS["started_at"], now=NOW, rules=rules)  # type: ignore[arg-type]
        assert verdict is judge(samples, started=FIELDS["started_at"], now=NOW, rules=rules)  # type: ignore[arg-type]
        verdicts.add(verdict)
    assert {Activity.UNKNOWN, Activity.BUSY, Activity.IDLE} <= verdicts  # the data reaches each verdict
    assert gpu_windows(rentals.store, [], start, NOW) == {}
