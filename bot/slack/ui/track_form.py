"""The track modal ("I rented this" on a recommendation, or `/gpu-advise track` alone): its view and
reading it back, with an error under each field that is wrong."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, ConfigDict

from bot.app.forms import TRACK_FIELDS, read_track
from bot.fields.rentals import CachedPrice
from bot.slack.ids import Callback
from bot.slack.ui import templating
from bot.slack.ui.forms import typed_texts
from bot.text import Lang, t

FIELDS = TRACK_FIELDS


class TrackMeta(BaseModel):
    model_config = ConfigDict(frozen=True)
    ch: str
    lang: str = Lang.ZH.value


def view(meta: TrackMeta, initial: dict[str, str]) -> dict[str, Any]:
    lang = Lang(meta.lang)
    fields = [
        {
            "key": key,
            "required": required,
            "label": t(f"track_form.{key}", lang),
            "hint": t(f"track_form.{key}.hint", lang),
            "initial": initial.get(key, ""),
            "placeholder": t(f"track_form.{key}.hint", lang)[:150],
        }
        for key, required in FIELDS
    ]
    return templating.view(
        "form.json.j2",
        callback_id=Callback.TRACK_FORM.value,
        metadata=meta.model_dump_json(),
        title=t("track_form.title", lang),
        submit=t("track_form.submit", lang),
        cancel=t("track_form.cancel", lang),
        fields=fields,
    )


def read(
    payload_view: dict[str, Any],
    currency: str,
    cached: Callable[[str, int, float | None], CachedPrice | None] | None,
    now: datetime,
    clock: Callable[[str], ZoneInfo],
) -> tuple[dict[str, Any], dict[str, str]]:
    """(the instance's columns, {field: error}) of a submitted track modal; `clock(channel)` is the submitter's
    clock a typed start is read on (bot/app/forms.py)."""
    meta = TrackMeta.model_validate_json(payload_view.get("private_metadata") or "{}")
    texts = typed_texts(payload_view, dict(FIELDS))
    fields, errors = read_track(texts, Lang(meta.lang), currency, cached, now, lambda: clock(meta.ch))
    return fields | {"channel": meta.ch}, errors
