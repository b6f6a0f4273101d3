"""A probe's capture read into the answers to questions 1 and 2: is utilisation steadily high (the
articles: "steadily above 80%"), does memory reach the card's limit? Pure: samples and policy in."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from rules.policy import Capture


@dataclass(frozen=True)
class Reading:
    at: datetime
    gpu: int
    utilization_pct: float
    memory_used_mib: float
    memory_total_mib: float


@dataclass(frozen=True)
class Figures:
    samples: int
    duration_s: float
    util_mean: float
    util_p10: float
    util_p50: float
    util_share_at_or_above: float
    longest_gap_s: float
    total_gap_s: float
    memory_peak_mib: float
    memory_total_mib: float
    continuity: str  # "high" or "low"
    memory_tight: bool


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _gaps(readings: Sequence[Reading], gap_pct: float) -> tuple[float, float]:
    """(longest, total) seconds of idle gaps: from a quiet sample to the next busy one (or the end)."""
    longest = total = 0.0
    start: datetime | None = None
    for r in readings:
        if r.utilization_pct <= gap_pct:
            start = start or r.at
        elif start is not None:
            span = (r.at - start).total_seconds()
            longest, total, start = max(longest, span), total + span, None
    if start is not None:
        span = (readings[-1].at - start).total_seconds()
        longest, total = max(longest, span), total + span
    return longest, total


def figures(readings: Sequence[Reading], rules: Capture, memory_tight_fraction: float) -> Figures:
    ordered = sorted(readings, key=lambda r: r.at)
    utils = [r.utilization_pct for r in ordered]
    peak = max(r.memory_used_mib for r in ordered)
    total = max(r.memory_total_mib for r in ordered)
    share = sum(u >= rules.busy_pct for u in utils) / len(utils)
    longest, gaps = _gaps(ordered, rules.gap_pct)
    return Figures(len(ordered), (ordered[-1].at - ordered[0].at).total_seconds(), round(sum(utils) / len(utils), 1),
                   _percentile(utils, 0.1), _percentile(utils, 0.5), round(share, 3), longest, gaps, peak, total,
                   "high" if share >= rules.high_share else "low", peak > memory_tight_fraction * total)


def per_gpu(readings: Sequence[Reading], rules: Capture, memory_tight_fraction: float) -> dict[int, Figures]:
    gpus = sorted({r.gpu for r in readings})
    return {g: figures([r for r in readings if r.gpu == g], rules, memory_tight_fraction) for g in gpus}
