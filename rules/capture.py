"""A probe's capture read into the answers to questions 1 and 2: is utilisation steadily high (the
articles: "steadily above 80%"), does memory reach the card's limit? Pure: samples and policy in."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from rules.policy import Capture
from rules.profile import DurationAnswer, MemoryAnswer
from rules.samples import Sample


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


def _gaps(readings: Sequence[Sample], gap_pct: float) -> tuple[float, float]:
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


def figures(readings: Sequence[Sample], rules: Capture, memory_tight_fraction: float) -> Figures:
    ordered = sorted(readings, key=lambda r: r.at)
    utils = [r.utilization_pct for r in ordered]
    peak = max(r.memory_used_mib for r in ordered)
    total = max(r.memory_total_mib for r in ordered)
    share = sum(u >= rules.busy_pct for u in utils) / len(utils)
    # idle gaps are each card's own: one card's busy samples do not end another card's quiet stretch
    per_card = [_gaps([r for r in ordered if r.gpu == g], rules.gap_pct) for g in sorted({r.gpu for r in ordered})]
    longest, gaps = max(p[0] for p in per_card), max(p[1] for p in per_card)
    return Figures(
        len(ordered),
        (ordered[-1].at - ordered[0].at).total_seconds(),
        round(sum(utils) / len(utils), 1),
        _percentile(utils, 0.1),
        _percentile(utils, 0.5),
        round(share, 3),
        longest,
        gaps,
        peak,
        total,
        "high" if share >= rules.high_share else "low",
        peak > memory_tight_fraction * total,
    )


def per_gpu(readings: Sequence[Sample], rules: Capture, memory_tight_fraction: float) -> dict[int, Figures]:
    gpus = sorted({r.gpu for r in readings})
    return {g: figures([r for r in readings if r.gpu == g], rules, memory_tight_fraction) for g in gpus}


def idle_gpus(readings: Sequence[Sample], rules: Capture) -> list[int]:
    """The cards quiet (at or below the gap line) in every sample of the capture: paid for and unused."""
    return sorted(
        g for g in {r.gpu for r in readings} if all(r.utilization_pct <= rules.gap_pct for r in readings if r.gpu == g)
    )


def whole_run_s(readings: Sequence[Sample], rules: Capture) -> float | None:
    """The run's length when the capture holds all of it: quiet at the start, busy, then quiet for at
    least `rules.run_end_quiet_s` at the end (the job finished). None when the capture starts or ends
    mid-run: a 20-minute sample of a longer run says nothing about question 1."""
    times = sorted({r.at for r in readings})
    busy = sorted({r.at for r in readings if r.utilization_pct > rules.gap_pct})
    if not busy or busy[0] == times[0] or busy[-1] == times[-1]:
        return None
    if (times[-1] - busy[-1]).total_seconds() < rules.run_end_quiet_s:
        return None
    steps = sorted((b - a).total_seconds() for a, b in itertools.pairwise(times))
    return (busy[-1] - busy[0]).total_seconds() + steps[len(steps) // 2]  # each sample stands for one interval


def duration_text(seconds: float) -> str:
    """A measured run length as an answer to question 1 (`45min`, `2.5h`)."""
    if seconds < 3600:
        return f"{max(1, round(seconds / 60))}min"
    return f"{seconds / 3600:.1f}h".replace(".0h", "h")


def _gb(mib: float, places: int) -> str:
    text = f"{mib / 1024:.{places}f}"
    return text.rstrip("0").rstrip(".") if places else text


def implied_answers(overall: Figures, run_s: float | None, memory_tight_fraction: float) -> dict[str, str]:
    """The answers a capture gives: question 2 (`74/80`, peak and card in GB, rounded so the verdict
    stays the measured one), and question 1 when the whole run is in the capture (`run_s`, whole_run_s)."""
    out: dict[str, str] = {}
    total = next((t for t in (_gb(overall.memory_total_mib, n) for n in (0, 2)) if float(t) > 0), None)
    if total is not None:
        shown = (_gb(overall.memory_peak_mib, n) for n in (0, 1, 2))
        peak = next(
            (p for p in shown if (float(p) / float(total) > memory_tight_fraction) == overall.memory_tight),
            _gb(overall.memory_peak_mib, 2),
        )
        out["memory"] = f"{peak}/{total}"
    if run_s is not None:
        out["duration"] = duration_text(run_s)
    return out


@dataclass(frozen=True)
class Measured:
    """An answer a capture gives: `text` as a person would type it (shown, and kept as the answer's text)
    and `value`, the parsed answer itself (the measured figures, not the text read back)."""

    text: str
    value: MemoryAnswer | DurationAnswer


def measured_answers(overall: Figures, run_s: float | None, memory_tight_fraction: float) -> dict[str, Measured]:
    """implied_answers() with their values: question 2 as the measured peak and card, question 1 as the run."""
    texts = implied_answers(overall, run_s, memory_tight_fraction)
    out: dict[str, Measured] = {}
    if "memory" in texts:
        out["memory"] = Measured(
            texts["memory"],
            MemoryAnswer(peak_gb=overall.memory_peak_mib / 1024, card_gb=overall.memory_total_mib / 1024),
        )
    if "duration" in texts and run_s is not None:
        out["duration"] = Measured(texts["duration"], DurationAnswer(hours=run_s / 3600))
    return out
