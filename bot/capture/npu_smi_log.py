"""Huawei Ascend captures: `npu-smi info` printed once, or again and again with the time before each, as

    while true; do date -Is; npu-smi info; sleep 10; done > npu.txt

Each printout is read by the agent's own reader (bot/agent/npu_smi.py: AI Core utilisation, the HBM pair on
910B); the line before it that reads as a time (`date -Is`, `date -u`'s own format, or 2026-12-03 05:52:10)
is its time. One printout without a time is read as of now; several need each its time, else the capture is
refused saying how to make one (their spacing is the run's length)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.agent.errors import NoGPU
from bot.agent.npu_smi import parse
from bot.capture.errors import CaptureError
from rules.samples import Sample

FORMATS = ("%a %b %d %H:%M:%S %Z %Y", "%Y-%m-%d %H:%M:%S", "%Y/%m/%d %H:%M:%S")


def is_npu_smi(lines: list[str]) -> bool:
    """Does the text hold an `npu-smi info` table (its version line)?"""
    return any("npu-smi" in line and "Version" in line for line in lines[:200])


def time_line(line: str) -> datetime | None:
    """The time a line says (`date -Is`, `date`'s own format, 2026-12-03 05:52:10), or None."""
    text = " ".join(line.split())
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        moment = None
        for form in FORMATS:
            try:
                moment = datetime.strptime(text, form)
                break
            except ValueError:
                continue
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _printouts(lines: list[str]) -> list[tuple[int, datetime | None, list[str]]]:
    """Each printout: the number of its first line, the time said before it (if any) and its lines."""
    found: list[tuple[int, datetime | None, list[str]]] = []
    said: datetime | None = None
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped.startswith(("|", "+")):
            said = time_line(stripped) if stripped else said
            continue
        if "npu-smi" in stripped and "Version" in stripped:
            found.append((number, said, []))
            said = None
        if found:
            found[-1][2].append(line)
    return found


def read_npu_smi(lines: list[str], now: datetime | None = None) -> list[Sample]:
    printouts = _printouts(lines)
    untimed = [first for first, at, _ in printouts if at is None]
    if len(printouts) > 1 and untimed:
        raise CaptureError(untimed[0], "npu_smi_no_time", count=len(printouts))
    out: list[Sample] = []
    for first, at, block in printouts:
        moment = at or now or datetime.now(UTC)
        try:
            readings = parse("\n".join(block), moment)
        except NoGPU as exc:
            line = first - 1 + int(str(exc.params.get("line", 1)))
            raise CaptureError(line, "npu_smi_row", text=str(exc.params.get("text", ""))[:80]) from None
        out += as_samples(readings, moment)
    if not out:
        raise CaptureError(len(lines), "no_samples")
    return out


def as_samples(readings: list[dict[str, Any]], moment: datetime) -> list[Sample]:
    """A tool reader's readings (bot/agent) as the capture's samples at `moment`."""
    return [
        Sample(moment, r["gpu"], r["utilization_pct"], r["memory_used_mib"], r["memory_total_mib"]) for r in readings
    ]
