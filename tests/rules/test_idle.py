"""The idle rule at its boundaries: 5% vs 6%, a gap in the samples, a young instance, memory held."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rules.idle import Activity, judge
from rules.policy import Policy
from rules.samples import Sample

NOW = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
STARTED = NOW - timedelta(hours=5)


def minutes(util: float, every: int = 5, gpus: int = 1, used: float = 1000, span: int = 60) -> list[Sample]:
    return [
        Sample(NOW - timedelta(minutes=m), gpu, util, used, 81920)
        for m in range(0, span + 1, every)
        for gpu in range(gpus)
    ]


def test_five_percent_everywhere_is_idle_and_six_is_busy(policy: Policy) -> None:
    assert judge(minutes(5), started=STARTED, now=NOW, rules=policy.idle) is Activity.IDLE
    samples = minutes(5)
    samples[3] = Sample(samples[3].at, 0, 6, 1000, 81920)
    assert judge(samples, started=STARTED, now=NOW, rules=policy.idle) is Activity.BUSY


def test_every_gpu_must_be_quiet(policy: Policy) -> None:
    samples = minutes(0, gpus=2)
    samples[1] = Sample(samples[1].at, 1, 50, 1000, 81920)
    assert judge(samples, started=STARTED, now=NOW, rules=policy.idle) is Activity.BUSY


def test_no_samples_or_a_gap_is_unknown_never_idle(policy: Policy) -> None:
    assert judge([], started=STARTED, now=NOW, rules=policy.idle) is Activity.UNKNOWN
    gappy = [s for s in minutes(0) if not 20 <= (NOW - s.at).total_seconds() / 60 <= 40]  # 20 min missing
    assert judge(gappy, started=STARTED, now=NOW, rules=policy.idle) is Activity.UNKNOWN
    late = minutes(0, span=45)  # nothing for the window's first quarter hour
    assert judge(late, started=STARTED, now=NOW, rules=policy.idle) is Activity.UNKNOWN


def test_a_young_instance_is_not_judged(policy: Policy) -> None:
    assert judge(minutes(0), started=NOW - timedelta(minutes=30), now=NOW, rules=policy.idle) is Activity.YOUNG


def test_memory_held_without_work_is_its_own_verdict(policy: Policy) -> None:
    held = minutes(2, used=0.1 * 81920)
    assert judge(held, started=STARTED, now=NOW, rules=policy.idle) is Activity.MEMORY_HELD
    below = minutes(2, used=0.09 * 81920)
    assert judge(below, started=STARTED, now=NOW, rules=policy.idle) is Activity.IDLE


def test_still_needed_counts_as_activity_while_the_snooze_lasts(policy: Policy) -> None:
    assert (
        judge(minutes(0), started=STARTED, now=NOW, rules=policy.idle, snoozed_until=NOW + timedelta(hours=1))
        is Activity.SNOOZED
    )
    assert (
        judge(minutes(0), started=STARTED, now=NOW, rules=policy.idle, snoozed_until=NOW - timedelta(minutes=1))
        is Activity.IDLE
    )
