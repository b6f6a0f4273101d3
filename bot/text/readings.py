"""What an answer was read as, said back to the person who typed it: "10 h (from “十来个小时”)".

A number read from words, an approximation, a range or an answer with no figure ("快满了") is echoed in
the next message, so a misreading is seen at once and answered again, not found in the recommendation."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from bot.text.catalogue import t
from bot.text.format import show
from bot.text.lang import Lang
from rules.profile import DurationAnswer, FrequencyAnswer, MemoryAnswer, Schedule

_PLAIN = re.compile(r"^\d+(?:\.\d+)?\s*(?:[a-z%]+|/\s*\d+(?:\.\d+)?\s*[a-z]*)?$")  # 10h, 70gb, 85%, 70/80, 300
# a range as the answer's numbers read (rules/spoken.py writes 六七 and "three or four" as 6-7, 3-4)
_RANGE = re.compile(r"\d\s*(?:-|~|到|至|to)\s*\d")


def _memory(value: MemoryAnswer, lang: Lang, gpu: str | None) -> str:
    if value.tight is not None:
        return t("read.memory.tight" if value.tight else "read.memory.roomy", lang)
    if value.served_model is not None:
        parts = [value.served_model, value.quant or ""]
        if value.context and value.concurrency:
            parts.append(t("read.memory.serving", lang, context=value.context, concurrency=value.concurrency))
        return " ".join(p for p in parts if p)
    if value.model_size_b is not None and value.method is not None:
        return f"{show(value.model_size_b)}B {t(f'word.{value.method}', lang) if value.method else ''}".strip()
    if value.bound is not None or value.low_gb is not None:
        return _memory_stated(value, lang, gpu)
    if value.fraction is not None:
        from rules.gpus import DEFAULT_GPU, gpu_model

        card = gpu_model(gpu or DEFAULT_GPU)
        key = "read.memory.fraction" if gpu else "read.memory.fraction_default"
        return t(
            key, lang, pct=round(value.fraction * 100, 1), gpu=card.name, gb=round(value.fraction * card.memory_gb, 1)
        )
    if value.card_gb is not None:
        return t("read.memory.peak_of_card", lang, peak=value.peak_gb, card=value.card_gb)
    return t("read.memory.peak", lang, peak=value.peak_gb)


def _memory_stated(value: MemoryAnswer, lang: Lang, gpu: str | None) -> str:
    """A peak stated with a bound or as an interval ("七十多G", "不到64G"), and how the tight rule reads it."""
    from rules.memory_amounts import tight_on

    if value.peak_gb is None:  # "超过80%": a share of the card
        amount = t("read.memory.share_above", lang, pct=round((value.fraction or 0) * 100, 1))
    else:
        key = "read.memory.between" if value.low_gb is not None else f"read.memory.{value.bound}"
        amount = t(key, lang, low=value.low_gb, peak=value.peak_gb)
        if value.card_gb is not None:
            amount = t("read.memory.of_card", lang, amount=amount, card=value.card_gb)
    tight = tight_on(value, gpu)
    if tight is None:
        return amount
    return t("read.memory.judged", lang, amount=amount, verdict=t(f"read.memory.{'tight' if tight else 'roomy'}", lang))


def reading(key: str, value: Any, lang: Lang, cards: int | None = None, gpu: str | None = None) -> str | None:
    """The value an answer was read as, in words ("10 h", "more than 12 h", "4 runs a week"); None when the
    value has no reading of its own (a duration bucket is a button's own label)."""
    if isinstance(value, DurationAnswer):
        if value.hours is None:
            return None
        return t("read.duration.above" if value.above else "read.duration", lang, hours=round(value.hours, 2))
    if isinstance(value, MemoryAnswer):
        return _memory(value, lang, gpu)
    if isinstance(value, FrequencyAnswer):
        if value.runs_per_week is None:
            return None
        runs = round(value.runs_per_week, 2)
        return t("read.frequency_once" if runs == 1 else "read.frequency", lang, runs=runs)  # 1 run, not 1 runs
    if isinstance(value, Schedule):
        return t("read.schedule", lang, hours=value.hours_per_day, days=value.days)
    if isinstance(value, bool):
        if value and cards:
            return t("read.yes_cards", lang, cards=cards)
        return t("read.yes" if value else "read.no", lang)
    if key in ("qps", "p99_ms", "serving_hours", "cards", "yearly_gpu_hours", "model_size_b"):
        return t(f"read.{key}", lang, n=value)
    if key in ("workload", "phase"):  # "大模型推理服务": inference, "上线了": deployment, read among other words
        return t(f"answer.{key}.{getattr(value, 'value', value)}", lang)
    return None


def _stated(key: str, text: str, value: Any, lang: Lang) -> str | None:
    """A figure stated as a bound or an interval ("不到100", "一百出头"): what was read, before the figure planned."""
    if key != "qps":
        return None
    from rules.parsing import stated_qps

    amount = stated_qps(text)
    if amount is None or amount.exact is not None:
        return None
    if amount.below_only:
        return t("read.qps_below", lang, n=value)
    if amount.low is not None and amount.high is not None:
        return t("read.qps_between", lang, low=amount.low, high=amount.high)
    return None


def plain(key: str, text: str) -> bool:
    """An answer already in the form it is read as ("10h", "70/80", "yes", one of the question's listed
    forms such as "daily"): nothing to echo."""
    from rules.parsing import ACCEPTED, accepted_for

    norm = unicodedata.normalize("NFKC", text).strip().lower()
    listed = {f.lower() for shown in accepted_for(key) + ACCEPTED["yes_no"] for f in shown.split("/")}
    return bool(_PLAIN.match(norm)) or norm in listed


def echo(key: str, text: str, value: Any, lang: Lang, cards: int | None = None, gpu: str | None = None) -> str | None:
    """ "10 h (from “十来个小时”)" for an answer that needed reading; None for one already plain. A range says
    that its upper end was taken."""
    if not text or plain(key, text):
        return None
    read = _stated(key, text, value, lang) or reading(key, value, lang, cards, gpu)
    if read is None:
        return None
    if key == "serving_hours":
        from rules.parsing import WEEKDAYS_A_WEEK, weekdays_only

        if weekdays_only(text):  # 工作日白天: 12 h on weekdays, 8.6 a day over the week
            day = round(value / WEEKDAYS_A_WEEK, 1)
            read = t("read.serving_hours_weekdays", lang, day=f"{day:g}", n=f"{round(value, 1):g}")
    if key == "p99_ms":
        from rules.parsing import p99_bounded, p99_lax

        read = t("read.p99_ms_below", lang, n=value) if p99_bounded(text) else read
        read = t("read.p99_lax", lang, n=value) if p99_lax(text) else read
    from rules.numbers import normalise
    from rules.spoken import spoken

    # a name read among words has no upper end: "做lora微调 qwen2-7b" is LoRA, not "the upper end" of its "2-7"
    named = key in ("schedule", "memory", "workload", "phase", "gpu", "sharing")
    ranged = not named and _RANGE.search(spoken(normalise(text))) is not None
    if ranged and key == "serving_hours":  # 9-18, 9 to 5: from one clock to another, not a range of hours
        from rules.parsing import clock_span_said

        ranged = not clock_span_said(text)
    return t("read.echo.range" if ranged else "read.echo", lang, reading=read, text=text.strip())
