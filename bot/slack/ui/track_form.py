"""The track modal ("I rented this" on a recommendation, or `/gpu-advise track` alone): its view and
reading it back, with an error under each field that is wrong."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from bot.fields.rentals import CachedPrice, FieldError, instance_fields
from bot.slack.ids import Callback
from bot.slack.ui import templating
from bot.slack.ui.forms import typed_texts
from bot.state.rentals import RentalError, check_name
from bot.text import Lang, t
from bot.text.catalogue import tw

FIELDS = (("name", True), ("gpu", True), ("price", False), ("cards", False), ("share", False), ("project", False))


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
    cached: Callable[[str, int, float | None], CachedPrice | None] | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """(the instance's columns, {field: error}) of a submitted track modal."""
    meta = TrackMeta.model_validate_json(payload_view.get("private_metadata") or "{}")
    lang, typed = Lang(meta.lang), typed_texts(payload_view, dict(FIELDS))
    errors: dict[str, str] = {}
    try:
        check_name(typed.get("name", ""))
    except RentalError as exc:
        errors["name"] = tw(f"error.rental.{exc.code}", lang, "slack", **exc.params)[:150]
    cards = typed.get("cards", "1")
    if not cards.isdigit() or not 1 <= int(cards) <= 1024:
        errors["cards"] = t("track_form.cards.hint", lang)
    fields: dict[str, Any] = {}
    try:
        fields = instance_fields(
            typed.get("gpu", ""),
            typed.get("price"),
            int(cards) if cards.isdigit() else 1,
            typed.get("share"),
            currency,
            lang,
            cached=cached,
        )
    except FieldError as exc:
        errors[exc.field if exc.field in dict(FIELDS) else "price"] = exc.message[:150]
    for key, required in FIELDS:
        if required and key not in typed:
            errors[key] = t("slack.required", lang)
    return fields | {"name": typed.get("name", ""), "project": typed.get("project"), "channel": meta.ch}, errors
