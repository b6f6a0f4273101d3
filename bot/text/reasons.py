"""A decision's reasons as sentences: the engine gives (id, params), the catalogue gives the words."""

from __future__ import annotations

from bot.text.catalogue import t
from bot.text.lang import Lang
from rules.decision import Check, Choice, Reason


def render(reason: Reason, lang: Lang) -> str:
    if isinstance(reason, Check):
        return t(f"check.{reason.id}.{'hit' if reason.fired else 'miss'}", lang, **reason.params)
    return t(f"advice.{reason.id}", lang, **reason.params)


def choice_text(choice: Choice, lang: Lang) -> str:
    return t(f"choice.{choice.value}", lang)
