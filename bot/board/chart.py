"""The board's chart as SVG shapes: each day's billed money as a bar, busy below, idle above, no data on top, the
same days and parts as the weekly report's chart and CSV (bot/report/chart.py `day_parts`). Drawn as rectangles
for the template rather than by matplotlib: its SVG backend costs about 0.2 s a page, most of the page's budget
(bench/board.py), and seven stacked bars need no more than this."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

WIDTH, HEIGHT, TOP, BOTTOM, LEFT = 700, 260, 24, 40, 8
PARTS = (("busy", "#2e7d32"), ("idle", "#c62828"), ("no_data", "#9e9e9e"))


@dataclass(frozen=True)
class Bar:
    x: float
    width: float
    label: str  # the day, MM-DD
    total: float
    blocks: tuple[tuple[str, str, float, float, float], ...]  # (part, colour, y, height, amount)


def bars(days: list[dict[str, Any]]) -> list[Bar]:
    """Each day's bar, scaled so the biggest day fills the height."""
    totals = [sum(d[p] for p, _ in PARTS) for d in days]
    most = max(totals, default=0.0) or 1.0
    span = (WIDTH - 2 * LEFT) / max(len(days), 1)
    usable = HEIGHT - TOP - BOTTOM
    out = []
    for n, (day, total) in enumerate(zip(days, totals, strict=True)):
        y = float(HEIGHT - BOTTOM)
        blocks = []
        for part, colour in PARTS:
            height = usable * day[part] / most
            y -= height
            blocks.append((part, colour, round(y, 1), round(height, 1), day[part]))
        out.append(Bar(round(LEFT + n * span + span * 0.15, 1), round(span * 0.7, 1), day["day"][5:], total,
                       tuple(blocks)))  # fmt: skip
    return out
