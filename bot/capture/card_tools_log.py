"""Captures of the other domestic cards' tools, as the agent asks them (bot/agent/hy_smi.py, cnmon.py,
mthreads_gmi.py, xpu_smi.py): printed once (read as of now), or in a loop with the time before each printout,

    while true; do date -Is; cnmon info -u -m -p; sleep 10; done > mlu.txt

Each printout is read by the agent's own reader; the line before it that reads as a time is its time. Several
printouts without their times (a card seen twice in one) are refused saying how to make a timed one."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from bot.agent import cnmon, hy_smi, mthreads_gmi, xpu_smi
from bot.agent.errors import NoGPU
from bot.capture.errors import CaptureError
from bot.capture.npu_smi_log import as_samples, time_line
from rules.samples import Sample

Reader = Callable[[str, datetime], list[dict[str, Any]]]
ASKED = {
    "hy-smi": " ".join(hy_smi.ARGS),
    "cnmon": "info -u -m -p",
    "mthreads-gmi": "-q",
    "xpu-smi": "-m",
}
READERS: dict[str, Reader] = {
    "hy-smi": hy_smi.parse,
    "cnmon": cnmon.parse,
    "mthreads-gmi": mthreads_gmi.parse,
    "xpu-smi": xpu_smi.parse,
}
_HY = (re.compile(r'"card\d+"\s*:'), re.compile(r"[DHG]CU use \(%\)", re.IGNORECASE))
_MTT_TEXT = re.compile(r"^\s*(?:Product Name\s*:\s*MTT\b|MTBios Version\s*:)", re.MULTILINE)
_CNMON = re.compile(r"^\s*Card\s*:?\s*\d+\s*$", re.MULTILINE)


def which_tool(text: str) -> str | None:
    """The tool whose output the capture holds, or None."""
    if all(pattern.search(text) for pattern in _HY):
        return "hy-smi"
    if '"FB Memory Usage"' in text or ("FB Memory Usage" in text and _MTT_TEXT.search(text)):
        return "mthreads-gmi"  # its JSON, or its text (nvidia-smi -q prints the same section, without MTT)
    if _CNMON.search(text) and "MLU Average" in text:
        return "cnmon"
    first = next((line for line in text.splitlines() if line.strip() and time_line(line.strip()) is None), "")
    try:
        fields = shlex.split(first)
    except ValueError:
        return None
    if len(fields) > xpu_smi.UTIL and fields[xpu_smi.ID].isdigit() and '"' in first:
        return "xpu-smi"
    return None


def _printouts(lines: list[str]) -> list[tuple[int, datetime | None, list[str]]]:
    """Each printout: the number of its first line, the time before it (if any) and its lines."""
    found: list[tuple[int, datetime | None, list[str]]] = []
    for number, line in enumerate(lines, start=1):
        said = time_line(line.strip()) if line.strip() else None
        if said is not None:
            found.append((number + 1, said, []))
        elif found:
            found[-1][2].append(line)
        elif line.strip():
            found.append((number, None, [line]))
    return found


def read_tool_log(tool: str, lines: list[str], now: datetime | None = None) -> list[Sample]:
    out: list[Sample] = []
    for first, at, block in _printouts(lines):
        moment = at or now or datetime.now(UTC)
        try:
            readings = READERS[tool]("\n".join(block), moment)
        except NoGPU as exc:
            if exc.code == "tool_empty" and at is not None:
                continue  # a time line with nothing after it (the loop was stopped there)
            line = first - 1 + int(str(exc.params.get("line", 1)))
            what = str(exc.params.get("text") or f"{exc.params.get('card', '')}: {exc.params.get('field', '')}")
            raise CaptureError(line, "tool_row", tool=tool, text=what[:80]) from None
        cards = [r["gpu"] for r in readings]
        if at is None and len(set(cards)) < len(cards):
            raise CaptureError(first, "tool_no_time", tool=tool, asked=ASKED[tool])
        out += as_samples(readings, moment)
    if not out:
        raise CaptureError(len(lines), "no_samples")
    return out
