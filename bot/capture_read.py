"""Reading a GPU capture: the probe's CSV, or `nvidia-smi --query-gpu=... --format=csv` with its header
and units (`utilization.gpu [%]`, values like `97 %`). A bad file names the line and what was expected."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime
from pathlib import Path

from rules.capture import Reading

PROBE = ("timestamp", "gpu", "utilization_pct", "memory_used_mib", "memory_total_mib")
SMI = {"timestamp": "timestamp", "index": "gpu", "utilization.gpu [%]": "utilization_pct",
       "memory.used [MiB]": "memory_used_mib", "memory.total [MiB]": "memory_total_mib"}


class CaptureError(ValueError):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


def _time(text: str) -> datetime:
    """ISO 8601 (the probe), or nvidia-smi's 2026/11/30 01:00:00.123; without a zone, UTC."""
    text = text.strip()
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            moment = datetime.strptime(text, "%Y/%m/%d %H:%M:%S.%f")
        except ValueError:
            raise ValueError(f"'{text}' is not a time") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _number(text: str) -> float:
    return float(text.strip().removesuffix("%").removesuffix("MiB").strip())


def read(path: Path) -> list[Reading]:
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CaptureError(0, f"cannot read {path}: {exc}") from None
    try:
        rows = list(csv.reader(io.StringIO(text), skipinitialspace=True))
    except csv.Error as exc:
        raise CaptureError(0, f"not CSV: {exc}") from None
    if not rows or not any(cell.strip() for cell in rows[0]):
        raise CaptureError(1, "empty file: expected a header (the probe's CSV or nvidia-smi --format=csv)")
    header = [h.strip() for h in rows[0]]
    if all(c in header for c in PROBE):
        columns = {c: header.index(c) for c in PROBE}
    elif all(c in header for c in SMI):
        columns = {SMI[c]: header.index(c) for c in SMI}
    else:
        raise CaptureError(1, f"unknown columns {header}; expected {', '.join(PROBE)} (gpu-advise probe) or "
                              f"{', '.join(SMI)} (nvidia-smi --query-gpu=... --format=csv)")
    out = []
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        try:
            out.append(Reading(_time(row[columns["timestamp"]]), int(_number(row[columns["gpu"]])),
                               _number(row[columns["utilization_pct"]]), _number(row[columns["memory_used_mib"]]),
                               _number(row[columns["memory_total_mib"]])))
        except (ValueError, IndexError) as exc:
            why = f"{exc or 'missing cells'}; expected {len(header)} cells like the header"
            raise CaptureError(number, why) from None
    if not out:
        raise CaptureError(2, "no samples after the header")
    return out
