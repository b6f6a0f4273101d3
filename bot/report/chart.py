"""The report's chart: spend per day stacked busy / idle / no data (in the report's main currency), and the
owners ranked by idle cost. matplotlib's Figure (no pyplot state), readable at Slack's preview size."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from bot.text import Lang, t
from rules.report import Report

if TYPE_CHECKING:
    from matplotlib.figure import Figure


CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "WenQuanYi Zen Hei", "Source Han Sans SC", "SimHei")


def cjk_font() -> str | None:
    """A font with Chinese glyphs installed here, if any (e.g. Debian's fonts-noto-cjk)."""
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in names), None)


def draw(report: Report, path: Path | BinaryIO, lang: Lang) -> None:
    """The chart as PNG. Chinese labels need a font with Chinese glyphs: without one the chart is drawn in
    English, readable, rather than with empty boxes."""
    from matplotlib import rc_context

    font = cjk_font() if lang is Lang.ZH else None
    chosen = lang if lang is not Lang.ZH or font else Lang.EN
    with rc_context({"font.sans-serif": [font, "DejaVu Sans"]} if font else {}):
        chart(report, chosen).savefig(path, dpi=110, format="png")


def day_parts(report: Report, currency: str) -> dict[date, tuple[float, float, float]]:
    """Each day's money in `currency` as the CSV's rows add it up, split busy / idle / no data by each row's GPU-hours
    (storage: no data): the bars add up to the CSV's day, a period item's price counted on the day it was billed."""
    busy: dict[date, float] = defaultdict(float)
    idle: dict[date, float] = defaultdict(float)
    unknown: dict[date, float] = defaultdict(float)
    for r in report.rows:
        if r.currency != currency:
            continue
        if not r.gpu_hours:
            unknown[r.day] += r.cost  # storage: paid, no GPU to judge
            continue
        busy[r.day] += r.cost * r.busy_gpu_hours / r.gpu_hours
        idle[r.day] += r.cost * r.idle_gpu_hours / r.gpu_hours
        unknown[r.day] += r.cost * r.unknown_gpu_hours / r.gpu_hours
    return {d: (busy[d], idle[d], unknown[d]) for d in set(busy) | set(idle) | set(unknown)}


def chart(report: Report, lang: Lang) -> Figure:
    from matplotlib.figure import Figure

    costs = report.totals().cost
    currency = report.worth.most(costs, "CNY")  # the currency most money is in, dollars and yuan on one scale
    days = [report.start + timedelta(days=n) for n in range((report.end - report.start).days + 1)]  # empty days too
    parts = day_parts(report, currency)
    b, i, u = ([parts.get(d, (0.0, 0.0, 0.0))[k] for d in days] for k in range(3))
    fig = Figure(figsize=(10, 6), layout="constrained")
    spend, owners = fig.subplots(1, 2, width_ratios=(3, 2))
    labels = [f"{d:%m-%d}" for d in days]
    spend.bar(labels, b, label=t("report.chart.busy", lang), color="#2e7d32")
    spend.bar(labels, i, bottom=b, label=t("report.chart.idle", lang), color="#c62828")
    spend.bar(
        labels,
        u,
        bottom=[x + y for x, y in zip(b, i, strict=True)],
        label=t("report.chart.unknown", lang),
        color="#9e9e9e",
    )
    spend.set(title=t("report.chart.spend", lang, currency=currency), ylabel=currency)
    spend.legend(loc="upper left", fontsize="small")
    spend.grid(axis="y", alpha=0.3)
    ranked = [r for r in report.ranked("owner") if r.idle_cost.get(currency)][:10]
    owners.barh(
        [r.who or "-" for r in reversed(ranked)], [r.idle_cost[currency] for r in reversed(ranked)], color="#c62828"
    )
    owners.set(title=t("report.chart.owners", lang, currency=currency), xlabel=currency)
    owners.grid(axis="x", alpha=0.3)
    return fig
