"""How numbers, money, ages and slices read, in both languages."""

from __future__ import annotations

from fractions import Fraction

from bot.text.lang import Lang
from bot.text.spans import literal, mention

__all__ = ["literal", "mention"]  # the spans a neutral text holds: bot/text/spans.py
from rules.patterns import has_han

Number = str | float | int | bool | None


def show(value: Number) -> str:
    """Numbers without trailing zeros: 10.0 -> '10', 87.5 -> '87.5', 5600.0 -> '5,600'."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int | float):
        if abs(value - round(value)) < 1e-9:
            return f"{round(value):,}"
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return str(value)


def money(amount: float, currency: str) -> str:
    """Money reads like money: whole units from 100 up (¥187, ¥5,600), cents below (¥7.5, $0.29)."""
    value = round(amount) if abs(amount) >= 100 else round(amount, 2)
    symbol = {"CNY": "¥", "USD": "$"}.get(currency, "")
    return f"{symbol}{show(value)}" if symbol else f"{show(value)} {currency}"


def share_text(share: float) -> str:
    """A slice of one card as a fraction: 0.5 -> '1/2', 1.0 -> '1'."""
    fraction = Fraction(share).limit_denominator(8)
    return f"{fraction.numerator}/{fraction.denominator}" if fraction.denominator != 1 else "1"


def forms(accepted: list[str], lang: Lang) -> list[str]:
    """The accepted forms of an answer as a user of `lang` reads them: Chinese first for zh, English
    only for en (both are understood either way)."""
    chinese = [a for a in accepted if has_han(a)]
    latin = [a for a in accepted if not has_han(a)]
    return chinese + latin if lang is Lang.ZH else latin or accepted


def who(user: str | None, lang: Lang) -> str:
    """Who did something, as a chat message names them: a user as a mention, the terminal and the bot by name
    (a budget set from the terminal was shown as a mention of a user called terminal)."""
    from bot.text.catalogue import t

    if not user:
        return "?"
    if user in ("terminal", "bot", "cloud"):
        return t(f"who.{user}", lang)
    return mention(user)


def card_label(gpu: str, cards: float = 1) -> str:
    """A catalogue card as people read it: Ascend-910B2-64GB → "Ascend 910B2 64 GB", with "×8" for several."""
    if not gpu:
        return ""
    words = gpu.replace("-", " ")
    named = words[: -len("GB")] + " GB" if words.endswith("GB") and words[-3:-2].isdigit() else words
    return named if cards == 1 else f"{named} ×{show(cards)}"


FULL_WIDTH_STOPS = "。！？；：，、）」』"


def sentences(lang: Lang, *texts: str) -> str:
    """Sentences said one after another: a space between them in English; none after Chinese full-width
    punctuation, which carries its own space ("预算 ¥20,000。按当前速度…", not "。 按")."""
    out = ""
    for text in (x for x in texts if x):
        gap = "" if not out or (lang is Lang.ZH and out[-1] in FULL_WIDTH_STOPS) else " "
        out += gap + text
    return out
