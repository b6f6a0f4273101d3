"""Kunlunxin XPU cards through `xpu-smi -m`, its machine-readable form: one line a card, fields separated by
spaces and the card's name quoted, e.g.

    0 0 0000:03:00.0 - 41 - - - 85 - - - - - - - - 3120 98304 37 - "P800 OAM" ...

read by position, as Kunlunxin's own tooling does: field 1 the device id, 4 the temperature, 8 the power in W,
17 the memory used and 18 the total (MiB), 19 the utilisation in %; the first quoted field is the name. A line
whose device id, memory or utilisation is not a number is one error naming the line, never a 0 % sample."""

from __future__ import annotations

import re
import shlex
from datetime import datetime
from typing import Any

from bot.agent.errors import NoGPU
from bot.agent.tool_run import output_of, reading

TOOL = "xpu-smi"
ID, POWER, USED, TOTAL, UTIL = 1, 8, 17, 18, 19
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_NAME = re.compile(r"\"([^\"]*[A-Za-z][^\"]*)\"")


def read(now: datetime) -> list[dict[str, Any]]:
    return parse(output_of(TOOL, "-m"), now)


def parse(text: str, now: datetime) -> list[dict[str, Any]]:
    out = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            fields = shlex.split(line)
        except ValueError:
            fields = []
        numbers = [fields[i] if len(fields) > i else "" for i in (ID, USED, TOTAL, UTIL)]
        if not all(_NUMBER.match(n) for n in numbers) or not numbers[0].isdigit() or float(numbers[2]) <= 0:
            raise NoGPU("tool_line", tool=TOOL, line=line_no, text=line.strip()[:120])
        power = fields[POWER] if _NUMBER.match(fields[POWER]) else None
        named = _NAME.search(line)
        name = f"Kunlunxin {named.group(1).strip()}" if named else "Kunlunxin XPU"
        used, total, util = (float(n) for n in numbers[1:])
        out.append(reading(now.isoformat(), int(numbers[0]), name, util, used, total, float(power) if power else None))
    if not out:
        raise NoGPU("tool_empty", tool=TOOL)
    return out
