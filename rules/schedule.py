"""A schedule to quote when the user gave none: derived from the run length and frequency answers."""

from __future__ import annotations

from rules.policy import Policy
from rules.profile import DurationBucket, FrequencyLevel, Schedule, TaskProfile, Workload

# Hours assumed for a bucket answer: short < 1 h, medium 1-8 h, long > 8 h.
_BUCKET_HOURS = {DurationBucket.SHORT: 1.0, DurationBucket.MEDIUM: 4.0, DurationBucket.LONG: 12.0}
ASSUMED_DAYS = 30.0


def assumed_schedule(profile: TaskProfile, policy: Policy) -> Schedule:
    """A service: the hours a day it serves (24 unless told) x 30 days. Other work: hours a day x 30 days
    from one run's length times runs a week (7 runs a week if unknown or high)."""
    if profile.workload is Workload.INFERENCE:
        return Schedule(hours_per_day=profile.serving_hours or 24.0, days=ASSUMED_DAYS)
    duration = profile.duration
    hours = 4.0
    if duration is not None:
        bucket = duration.bucket or DurationBucket.MEDIUM
        hours = duration.hours if duration.hours is not None else _BUCKET_HOURS[bucket]
    runs = 7.0
    if profile.frequency is not None:
        if profile.frequency.runs_per_week is not None:
            runs = profile.frequency.runs_per_week
        elif profile.frequency.level is FrequencyLevel.LOW:
            runs = 2.0
    per_day = min(24.0, round(hours * runs / 7, 2))
    return Schedule(hours_per_day=max(per_day, 0.1), days=ASSUMED_DAYS)
