"""Moore Threads cards through `mthreads-gmi -q --json` (its full query, as JSON):

    {"Driver Version": "2.7.0", "GPU": [{"Index": "0", "Product Name": "MTT S4000",
      "FB Memory Usage": {"Total": "49152MiB", "Used": "3MiB"}, "Utilization": {"Gpu": "0%"},
      "Power Readings": {"Power Draw": "75.00W"}}]}

Keys are matched without their surrounding spaces (a build prints "Power Draw "). Output that is no JSON, or a
card without its utilisation or memory, is one error naming what is missing."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from bot.agent.errors import NoGPU
from bot.agent.tool_run import in_mib, json_of, output_of, reading

TOOL = "mthreads-gmi"
_AMOUNT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")
_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%?\s*$")


def read(now: datetime) -> list[dict[str, Any]]:
    return parse(output_of(TOOL, "-q", "--json"), now)


def parse(text: str, now: datetime) -> list[dict[str, Any]]:
    gpus = _field(json_of(text, TOOL), "GPU")
    if isinstance(gpus, dict):
        gpus = [gpus]  # one card: some builds print the object itself
    if not isinstance(gpus, list):
        raise NoGPU("tool_line", tool=TOOL, line=1, text=(text.strip().splitlines() or [""])[0][:120])
    out = [_card(position, gpu, now) for position, gpu in enumerate(gpus) if isinstance(gpu, dict)]
    if not out:
        raise NoGPU("tool_empty", tool=TOOL)
    return out


def _card(position: int, gpu: dict[str, Any], now: datetime) -> dict[str, Any]:
    index = _field(gpu, "Index")
    card = str(index if index is not None else position)
    utilization = _percent(_field(_field(gpu, "Utilization"), "Gpu"))
    if utilization is None:
        raise NoGPU("tool_field", tool=TOOL, card=card, field="Utilization / Gpu")
    memory = _field(gpu, "FB Memory Usage")
    used, total = _mib(_field(memory, "Used")), _mib(_field(memory, "Total"))
    if used is None or total is None or total <= 0:
        raise NoGPU("tool_field", tool=TOOL, card=card, field="FB Memory Usage / Total, Used")
    power = _amount(_field(_field(gpu, "Power Readings"), "Power Draw"))
    name = str(_field(gpu, "Product Name") or "Moore Threads GPU").strip()
    gpu_index = int(card) if card.isdigit() else position
    return reading(now.isoformat(), gpu_index, name, utilization, used, total, power[0] if power else None)


def _field(value: Any, name: str) -> Any:
    if not isinstance(value, dict):
        return None
    return next((v for k, v in value.items() if str(k).strip().lower() == name.lower()), None)


def _amount(value: Any) -> tuple[float, str] | None:
    found = _AMOUNT.match(str(value)) if value is not None else None
    return (float(found.group(1)), found.group(2)) if found else None


def _mib(value: Any) -> float | None:
    amount = _amount(value)
    return in_mib(amount[0], amount[1] or "MiB") if amount else None


def _percent(value: Any) -> float | None:
    found = _PERCENT.match(str(value)) if value is not None else None
    return float(found.group(1)) if found else None
