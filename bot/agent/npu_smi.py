"""Huawei Ascend cards through `npu-smi info`: its device table, two rows a card (as npu-smi 23.x-26.x prints it):

    | NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
    | Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
    +===========================+===============+====================================================+
    | 0     910B3               | OK            | 101.8       43                0    / 0             |
    | 0                         | 0000:C1:00.0  | 0           0    / 0          3318 / 65536         |

The first row of a card gives its NPU id, its name and its power; the second (one per chip) the AI Core
utilisation and memory: on cards with HBM (910B) the HBM pair, the last one, not the DDR "Memory-Usage" pair
(0 / 0 there). The process table that follows is not read. A row that is neither is one clear error naming the
line, never a sample of 0 %."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from bot.agent.errors import NoGPU
from bot.agent.tool_run import output_of

_CARD = re.compile(r"^(\d+)\s+(\S*[A-Za-z]\S*)$")  # "0     910B3"
_CHIP_ID = re.compile(r"^\d+(?:\s+\d+)?$")  # the second row's first cell: the chip id (and the device id on 310P)
_PAIR = r"(\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)"
_USAGE = re.compile(rf"^(\d+(?:\.\d+)?)\s+{_PAIR}(?:\s+{_PAIR})?$")  # AICore(%)  used / total  [used / total]
_POWER = re.compile(r"^(\d+(?:\.\d+)?|NA)\b")


def read(now: datetime) -> list[dict[str, Any]]:
    return parse(output_of("npu-smi", "info"), now)


def parse(text: str, now: datetime) -> list[dict[str, Any]]:
    """The readings of `npu-smi info`'s device table (NoGPU tool_line on a row it cannot read)."""
    out: list[dict[str, Any]] = []
    card: tuple[int, str, float | None] | None = None
    chips = 0  # the chip rows read of the current card
    in_table = False
    for line_no, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if "Process id" in stripped or "No running processes" in stripped:
            break  # the process table: not ours to read
        if not stripped.startswith("|"):
            continue  # the +----+ borders
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        if cells[0].startswith(("NPU", "Chip")) or "npu-smi" in cells[0]:
            in_table = in_table or cells[0].startswith("Chip")
            continue  # the headers and the version line
        if not in_table or len(cells) < 3:
            raise NoGPU("tool_line", tool="npu-smi", line=line_no, text=stripped[:120])
        found = _CARD.match(cells[0])
        if found and not _CHIP_ID.match(cells[0]):
            if card is not None and not chips:  # the card before had no chip row: where it should be
                raise NoGPU("tool_line", tool="npu-smi", line=line_no, text=stripped[:120])
            power = _POWER.match(cells[2])
            watts = float(power.group(1)) if power and power.group(1) != "NA" else None
            card, chips = (int(found.group(1)), found.group(2), watts), 0
            continue
        usage = _USAGE.match(cells[2])
        if card is None or not _CHIP_ID.match(cells[0]) or usage is None:
            raise NoGPU("tool_line", tool="npu-smi", line=line_no, text=stripped[:120])
        numbers = usage.groups()
        used, total = (numbers[3], numbers[4]) if numbers[3] is not None else (numbers[1], numbers[2])
        npu, name, watts = card
        chips += 1
        taken = {r["gpu"] for r in out}
        out.append(
            {
                "ts": now.isoformat(),
                "gpu": npu if npu not in taken else max(taken) + 1,  # a second chip of one NPU: the next index
                "name": f"Ascend {name}",
                "utilization_pct": min(max(float(numbers[0]), 0.0), 100.0),
                "memory_used_mib": float(used),
                "memory_total_mib": float(total),
                "power_w": watts,
            }
        )
    if card is not None and not chips:
        raise NoGPU("tool_line", tool="npu-smi", line=len(text.splitlines()), text="a card without its chip row")
    if not out:
        raise NoGPU("tool_empty", tool="npu-smi")
    return out
