"""The profile modal: what it carries in private_metadata, reading its values, and inline errors."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.slack_views import FORM_KEYS
from bot.texts import t
from rules.answers import AnswersError, parse_answers
from rules.messages import Lang, parse_error_text
from rules.questions import BY_KEY


class FormMeta(BaseModel):
    """private_metadata of the modal: the conversation it edits (if any), the channel, the language."""

    model_config = ConfigDict(frozen=True)

    c: str | None = None
    ch: str | None = None
    lang: str = Lang.ZH.value


def form_answers(view: dict[str, Any]) -> dict[str, str]:
    values = (view.get("state") or {}).get("values") or {}
    out = {}
    for key in FORM_KEYS:
        text = ((values.get(key) or {}).get("value") or {}).get("value")
        if text and text.strip():
            out[key] = text.strip()
    return out


def form_errors(view: dict[str, Any], lang: Lang) -> dict[str, str]:
    """{block_id: message} for every missing required answer and every answer that does not parse."""
    answers = form_answers(view)
    errors = {key: t("slack.required", lang) for key in FORM_KEYS if BY_KEY[key].required and key not in answers}
    try:
        parse_answers(answers)
    except AnswersError as exc:
        for key, error in exc.errors.items():
            errors[key] = parse_error_text(error.text, error.problem, error.accepted, lang)[:150]
    return errors
