"""`analyze --chart FILE.png` (and the chart posted in Slack): utilisation and memory over time, per GPU,
with the 80% lines. Built on matplotlib's Figure, not pyplot: no global state, so Slack listeners on
several threads can draw at once."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from rules.samples import Sample


def draw(readings: Sequence[Sample], path: Path | BinaryIO, *, busy_pct: float, tight_fraction: float,
         title: str) -> None:
    from matplotlib.figure import Figure  # the Agg canvas: files only, no display on a GPU server

    fig = Figure(figsize=(10, 6), layout="constrained")
    util_ax, mem_ax = fig.subplots(2, 1, sharex=True)
    for gpu in sorted({r.gpu for r in readings}):
        mine = sorted((r for r in readings if r.gpu == gpu), key=lambda r: r.at)
        times = [r.at for r in mine]
        util_ax.plot(times, [r.utilization_pct for r in mine], label=f"GPU {gpu}", linewidth=1)
        mem_ax.plot(times, [r.memory_used_mib / 1024 for r in mine], label=f"GPU {gpu}", linewidth=1)
    total_gib = max(r.memory_total_mib for r in readings) / 1024
    util_ax.axhline(busy_pct, color="red", linestyle="--", linewidth=1, label=f"{busy_pct:g}%")
    mem_ax.axhline(total_gib * tight_fraction, color="red", linestyle="--", linewidth=1,
                   label=f"{tight_fraction:.0%} of {total_gib:.0f} GiB")
    mem_ax.axhline(total_gib, color="black", linewidth=0.8)
    util_ax.set(ylabel="utilisation %", ylim=(0, 105), title=title)
    mem_ax.set(ylabel="memory GiB", ylim=(0, total_gib * 1.05), xlabel="time (UTC)")
    for ax in (util_ax, mem_ax):
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize="small")
    fig.savefig(path, dpi=110, format="png")
