"""Is a rented instance idle? Judged from the GPU samples its agent sent, never guessed.

Idle: every GPU at or below the policy's utilisation in every sample over the window, with samples
covering the window (no gap longer than the policy allows, from its start to now). Quiet but holding
memory (a notebook keeping a model loaded) is its own verdict. Too few samples is "unknown", never
idle; an instance younger than the window is not judged; "still needed" counts as activity while
its snooze lasts. Pure: the samples, the clock and the policy come in.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from enum import StrEnum
from itertools import pairwise

from rules.policy import Idle
from rules.samples import Sample


class Activity(StrEnum):
    BUSY = "busy"
    IDLE = "idle"
    MEMORY_HELD = "memory_held"  # quiet, but a model sits in memory
    UNKNOWN = "unknown"  # no samples, or too few to tell
    YOUNG = "young"  # started less than a window ago: not judged
    SNOOZED = "snoozed"  # someone said it is still needed


def _covered(times: list[datetime], start: datetime, now: datetime, gap: timedelta) -> bool:
    points = [start, *sorted(times), now]
    return bool(times) and all(later - earlier <= gap for earlier, later in pairwise(points))


def judge(samples: Sequence[Sample], *, started: datetime, now: datetime, rules: Idle,
          snoozed_until: datetime | None = None) -> Activity:
    """The instance's activity over the last window (see the module's rules)."""
    if snoozed_until is not None and snoozed_until > now:
        return Activity.SNOOZED
    window = timedelta(minutes=rules.window_minutes)
    if now - started < window:
        return Activity.YOUNG
    start = now - window
    recent = [s for s in samples if start <= s.at <= now]
    gap = timedelta(minutes=rules.max_gap_minutes)
    for gpu in {s.gpu for s in recent} or {0}:
        if not _covered([s.at for s in recent if s.gpu == gpu], start, now, gap):
            return Activity.UNKNOWN
    if any(s.utilization_pct > rules.utilisation_max_pct for s in recent):
        return Activity.BUSY
    held = all(s.memory_total_mib > 0 and s.memory_used_mib / s.memory_total_mib >= rules.memory_held_fraction
               for s in recent)
    return Activity.MEMORY_HELD if held else Activity.IDLE
