"""Is a rented instance idle? Judged from the GPU samples its agent sent, never guessed.

Idle: every GPU at or below the policy's utilisation in every sample over the window, with samples
covering the window (no gap longer than the policy allows, from its start to now). Quiet but holding
memory (a notebook keeping a model loaded) is its own verdict. Too few samples is "unknown", never
idle; an instance younger than the window is not judged; "still needed" counts as activity while
its snooze lasts. Pure: the samples, the clock and the policy come in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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
    STOPPED_BILLED = "stopped_billed"  # off, but its meter keeps running (rules/metering.py)


@dataclass(frozen=True)
class GpuWindow:
    """What the rule needs of one GPU's samples over the window, whoever added them up (Python here, the
    database for the digest: bot/state/windows.py)."""

    gpu: int
    first: datetime  # its earliest and latest sample in the window
    last: datetime
    longest_gap_s: float  # the longest time between two of its consecutive samples (0 with one sample)
    busiest_pct: float  # its highest utilisation
    least_memory_share: float  # the smallest share of its memory in use (0 where the total is not known)


def windows_of(samples: Sequence[Sample], start: datetime, now: datetime) -> list[GpuWindow]:
    """Each GPU's summary of the samples from `start` to `now`, both included."""
    by_gpu: dict[int, list[Sample]] = {}
    for s in samples:
        if start <= s.at <= now:
            by_gpu.setdefault(s.gpu, []).append(s)
    out = []
    for gpu, own in sorted(by_gpu.items()):
        times = sorted(s.at for s in own)
        gaps = [(later - earlier).total_seconds() for earlier, later in pairwise(times)]
        shares = [s.memory_used_mib / s.memory_total_mib if s.memory_total_mib > 0 else 0.0 for s in own]
        out.append(
            GpuWindow(
                gpu, times[0], times[-1], max(gaps, default=0.0), max(s.utilization_pct for s in own), min(shares)
            )
        )
    return out


def judge(
    samples: Sequence[Sample], *, started: datetime, now: datetime, rules: Idle, snoozed_until: datetime | None = None
) -> Activity:
    """The instance's activity over the last window (see the module's rules), from its raw samples."""
    start = now - timedelta(minutes=rules.window_minutes)
    return judge_windows(
        windows_of(samples, start, now), started=started, now=now, rules=rules, snoozed_until=snoozed_until
    )


def judge_windows(
    windows: Sequence[GpuWindow],
    *,
    started: datetime,
    now: datetime,
    rules: Idle,
    snoozed_until: datetime | None = None,
) -> Activity:
    """The same verdict from each GPU's summary of the window's samples."""
    if snoozed_until is not None and snoozed_until > now:
        return Activity.SNOOZED
    window = timedelta(minutes=rules.window_minutes)
    if now - started < window:
        return Activity.YOUNG
    start = now - window
    gap = timedelta(minutes=rules.max_gap_minutes)
    covered = [
        w.first - start <= gap and now - w.last <= gap and w.longest_gap_s <= gap.total_seconds() for w in windows
    ]
    if not covered or not all(covered):
        return Activity.UNKNOWN
    if any(w.busiest_pct > rules.utilisation_max_pct for w in windows):
        return Activity.BUSY
    held = all(w.least_memory_share >= rules.memory_held_fraction for w in windows)
    return Activity.MEMORY_HELD if held else Activity.IDLE
