"""Sample a GPU capture: the probe's CSV, `nvidia-smi --query-gpu=... --format=csv` with its header
and units (`utilization.gpu [%]`, values like `97 %`), `nvidia-smi dmon` output, Ascend's `npu-smi info`
printed once or in a loop (bot/capture/npu_smi_log.py), or hy-smi, cnmon, mthreads-gmi or xpu-smi output as the
agent asks for it (bot/capture/card_tools_log.py). A bad file raises
CaptureError naming the line and what was expected."""

from __future__ import annotations

import csv
import io
import math
from datetime import UTC, datetime
from pathlib import Path

from bot.capture.card_tools_log import read_tool_log, which_tool
from bot.capture.dmon import is_dmon, read_dmon
from bot.capture.errors import CaptureError
from bot.capture.npu_smi_log import is_npu_smi, read_npu_smi
from rules.samples import Sample

__all__ = ["CaptureError", "read", "read_text"]

PROBE = ("timestamp", "gpu", "utilization_pct", "memory_used_mib", "memory_total_mib")
SMI = {
    "timestamp": "timestamp",
    "index": "gpu",
    "utilization.gpu [%]": "utilization_pct",
    "memory.used [MiB]": "memory_used_mib",
    "memory.total [MiB]": "memory_total_mib",
}


def _time(text: str) -> datetime:
    """ISO 8601 (the probe), or nvidia-smi's 2026/11/30 01:00:00.123; without a zone, UTC."""
    text = text.strip()
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        moment = datetime.strptime(text, "%Y/%m/%d %H:%M:%S.%f")
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _number(text: str) -> float:
    """A figure of a capture: finite and not negative (1e309, inf and nan are no reading)."""
    value = float(text.strip().removesuffix("%").removesuffix("MiB").strip())
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{text.strip()} is not a reading")
    return value


def _columns(line: int, header: list[str]) -> tuple[dict[str, int], str]:
    if all(c in header for c in PROBE):
        return {c: header.index(c) for c in PROBE}, "probe"
    if all(c in header for c in SMI):
        return {SMI[c]: header.index(c) for c in SMI}, "smi"
    raise CaptureError(
        line, "unknown_columns", found=", ".join(header) or "-", probe=", ".join(PROBE), smi=", ".join(SMI)
    )


def _read_csv(text: str) -> list[Sample]:
    try:
        rows = list(csv.reader(io.StringIO(text), skipinitialspace=True))
    except csv.Error:
        raise CaptureError(0, "not_csv") from None
    first = next((i for i, row in enumerate(rows) if any(cell.strip() for cell in row)), None)
    if first is None:  # only quotes or separators: nothing a header could be read from
        raise CaptureError(1, "empty")
    columns, kind = _columns(first + 1, [h.strip() for h in rows[first]])
    out = []
    for number, row in enumerate(rows[first + 1 :], start=first + 2):
        if not any(cell.strip() for cell in row):
            continue
        try:
            out.append(
                Sample(
                    _time(row[columns["timestamp"]]),
                    int(_number(row[columns["gpu"]])),
                    _number(row[columns["utilization_pct"]]),
                    _number(row[columns["memory_used_mib"]]),
                    _number(row[columns["memory_total_mib"]]),
                )
            )
        except (ValueError, IndexError, OverflowError):
            raise CaptureError(number, "bad_row", row=",".join(row)[:80], expected=kind) from None
    if not out:
        raise CaptureError(first + 2, "no_samples")
    return out


def read_text(text: str, card_mib: float | None = None) -> list[Sample]:
    """Readings from a capture's text; `card_mib` is the card's memory for dmon output, which lacks it.
    A UTF-8 byte-order mark (spreadsheets write one) is read past."""
    text = text.removeprefix("\ufeff")
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    if not first.strip():
        raise CaptureError(1, "empty")
    if is_dmon(first):
        return read_dmon(lines, card_mib)
    if is_npu_smi(lines):
        return read_npu_smi(lines)
    if (tool := which_tool(text)) is not None:
        return read_tool_log(tool, lines)
    return _read_csv(text)


def read(path: Path, card_mib: float | None = None, max_bytes: int = 10 * 1024 * 1024) -> list[Sample]:
    """The capture at `path`, read up to `max_bytes` (a device such as /dev/zero, or a huge file, is
    refused at the limit instead of filling memory)."""
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise CaptureError(0, "unreadable", why=exc.strerror or type(exc).__name__) from None
    if len(data) > max_bytes:
        raise CaptureError(0, "too_large", limit_mib=round(max_bytes / 2**20, 1))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CaptureError(0, "not_text") from None
    return read_text(text, card_mib)
