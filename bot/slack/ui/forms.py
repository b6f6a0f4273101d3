"""The profile modal: what it carries in private_metadata, reading its values, and inline errors."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.app.forms import read_answers
from bot.fields.answers import FORM_FIELDS
from bot.text import Lang


class FormMeta(BaseModel):
    """private_metadata of the modal: the conversation it edits (if any), the channel, the language."""

    model_config = ConfigDict(frozen=True)

    c: str | None = None
    ch: str | None = None
    lang: str = Lang.ZH.value


def typed_texts(view: dict[str, Any], keys: Iterable[str]) -> dict[str, str]:
    """The texts typed in a modal's plain-text inputs (block id = key, action id `value`), blanks left out."""
    values = (view.get("state") or {}).get("values") or {}
    out = {}
    for key in keys:
        text = ((values.get(key) or {}).get("value") or {}).get("value")
        if text and text.strip():
            out[key] = text.strip()
    return out


def form_answers(view: dict[str, Any]) -> dict[str, str]:
    """The texts typed in the profile modal, by answer key (blank fields left out)."""
    return typed_texts(view, (field.key for field in FORM_FIELDS))


def read_form(view: dict[str, Any], lang: Lang) -> tuple[dict[str, str], dict[str, Any], dict[str, str]]:
    """(texts, parsed answers, {block_id: error}) of a submitted modal (bot/app/forms.py reads them)."""
    answers = form_answers(view)
    values, errors = read_answers(answers, lang)
    return answers, values, errors
