"""A capture's figures as lines of text, the same in the terminal and in Slack."""

from __future__ import annotations

from bot.text.catalogue import t
from bot.text.lang import Lang
from rules.capture import Figures


def figure_lines(gpus: dict[int, Figures], overall: Figures, lang: Lang, idle: list[int] | None = None) -> list[str]:
    """One line per GPU, then one for all of them when there is more than one, then each idle card."""
    rows: list[tuple[int | str, Figures]] = [*gpus.items()]
    if len(gpus) > 1:
        rows.append((t("capture.all", lang), overall))
    lines = [
        t(
            "capture.line",
            lang,
            gpu=gpu,
            mean=f.util_mean,
            p10=f.util_p10,
            p50=f.util_p50,
            share=round(f.util_share_at_or_above * 100),
            peak=round(f.memory_peak_mib),
            total=round(f.memory_total_mib),
            gap=round(f.longest_gap_s),
        )
        for gpu, f in rows
    ]
    if idle and len(gpus) > 1:
        lines += [t("capture.idle_gpu", lang, gpu=g, cards=len(gpus), busy=len(gpus) - len(idle)) for g in idle]
    return lines
