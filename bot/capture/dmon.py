"""`nvidia-smi dmon` output read into readings. dmon prints a names line (`#Date Time gpu fb ... sm mem`)
and a units line (`#YYYYMMDD HH:MM:SS Idx MB ... %`), repeats both now and then, and separates cells by
spaces. Utilisation is the `sm` column (`-s u`), memory used the `fb` column in MiB (`-s m`), times
come from `-o DT` or `-o T`; dmon has no memory total, so the card's size is given by the caller."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from bot.capture.errors import CaptureError
from rules.samples import Sample

NEEDED = ("gpu", "sm", "fb")


def is_dmon(first_line: str) -> bool:
    names = first_line.lstrip("#").split()
    return first_line.startswith("#") and "gpu" in [n.lower() for n in names]


def _columns(line: int, names: list[str]) -> dict[str, int]:
    lowered = [n.lower() for n in names]
    missing = [n for n in NEEDED if n not in lowered]
    if missing:
        raise CaptureError(line, "dmon_columns", missing=", ".join(missing), found=" ".join(names))
    if "time" not in lowered:
        raise CaptureError(line, "dmon_no_time")
    return {n: lowered.index(n) for n in (*NEEDED, "time", "date") if n in lowered}


def _moment(cells: list[str], cols: dict[str, int]) -> datetime:
    day = datetime.strptime(cells[cols["date"]], "%Y%m%d").date() if "date" in cols else datetime(1970, 1, 1).date()
    clock = datetime.strptime(cells[cols["time"]], "%H:%M:%S").time()
    return datetime.combine(day, clock, tzinfo=UTC)


def _cell(cells: list[str], index: int) -> float:
    text = cells[index]
    if text == "-":
        raise ValueError("'-' (not reported)")
    value = float(text)
    if not math.isfinite(value) or value < 0:  # 1e309, inf and nan are no reading
        raise ValueError(f"{text} is not a reading")
    return value


def read_dmon(lines: list[str], card_mib: float | None) -> list[Sample]:
    if card_mib is None:
        raise CaptureError(1, "dmon_no_total")
    cols: dict[str, int] | None = None
    out: list[Sample] = []
    last: datetime | None = None
    carry = timedelta()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if line.startswith("#"):
            names = line.lstrip("#").split()
            if "gpu" in [n.lower() for n in names]:
                cols = _columns(number, names)
            continue
        if cols is None:
            raise CaptureError(number, "dmon_no_header")
        cells = line.split()
        try:
            at = _moment(cells, cols) + carry
            if last is not None and "date" not in cols and at < last - timedelta(hours=1):
                carry += timedelta(days=1)  # -o T only: the clock went past midnight
                at += timedelta(days=1)
            out.append(
                Sample(at, int(_cell(cells, cols["gpu"])), _cell(cells, cols["sm"]), _cell(cells, cols["fb"]), card_mib)
            )
            last = at
        except (ValueError, IndexError):
            raise CaptureError(number, "bad_row", row=line.strip(), expected="dmon") from None
    if not out:
        raise CaptureError(len(lines) + 1, "no_samples")
    return out
