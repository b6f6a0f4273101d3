"""`analyze --chart FILE.png` (and the chart posted in Slack): utilisation and memory over time, per GPU,
with the 80% lines. Built on matplotlib's Figure, not pyplot: no global state, so Slack listeners on
several threads can draw at once."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from rules.samples import Sample

if TYPE_CHECKING:
    from matplotlib.figure import Figure

MARGINS = {"left": 0.075, "right": 0.845, "bottom": 0.09, "top": 0.95, "hspace": 0.07}  # of the figure
BELOW_ZERO = 0.04  # of the axis: room under 0, so an idle card's line at 0 is seen above the x-axis


def draw(
    readings: Sequence[Sample], path: Path | BinaryIO, *, busy_pct: float, tight_fraction: float, title: str
) -> None:
    chart(readings, busy_pct=busy_pct, tight_fraction=tight_fraction, title=title).savefig(path, dpi=110, format="png")


def chart(readings: Sequence[Sample], *, busy_pct: float, tight_fraction: float, title: str) -> Figure:
    """The figure: utilisation above, memory below; each legend beside its plot, never on the data."""
    from matplotlib.figure import Figure  # the Agg canvas: files only, no display on a GPU server

    # Fixed margins, not matplotlib's constrained layout: what sits outside the plots is known (three-digit ticks,
    # a legend of "GPU n" and "80% of 141 GiB"), and the layout's solver measured every label again on each draw,
    # about half of the chart's time (0.20 s -> 0.11 s a chart).
    fig = Figure(figsize=(10, 6))
    fig.subplots_adjust(**MARGINS)
    util_ax, mem_ax = fig.subplots(2, 1, sharex=True)
    for gpu in sorted({r.gpu for r in readings}):
        mine = sorted((r for r in readings if r.gpu == gpu), key=lambda r: r.at)
        times = [r.at for r in mine]
        util_ax.plot(times, [r.utilization_pct for r in mine], label=f"GPU {gpu}", linewidth=1)
        mem_ax.plot(times, [r.memory_used_mib / 1024 for r in mine], label=f"GPU {gpu}", linewidth=1)
    total_gib = max(r.memory_total_mib for r in readings) / 1024
    util_ax.axhline(busy_pct, color="red", linestyle="--", linewidth=1, label=f"{busy_pct:g}%")
    mem_ax.axhline(
        total_gib * tight_fraction,
        color="red",
        linestyle="--",
        linewidth=1,
        label=f"{tight_fraction:.0%} of {total_gib:.0f} GiB",
    )
    mem_ax.axhline(total_gib, color="black", linewidth=0.8)
    util_ax.set(ylabel="utilisation %", ylim=(-105 * BELOW_ZERO, 105), title=title)
    mem_ax.set(ylabel="memory GiB", ylim=(-total_gib * 1.05 * BELOW_ZERO, total_gib * 1.05), xlabel="time (UTC)")
    for ax in (util_ax, mem_ax):
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", borderaxespad=0)
    return fig
