"""The two forms, read the same on every chat: the profile's five questions at once (`form`, Change an answer) and
tracking an instance (`track` alone, I rented this). A chat collects the typed texts by field key (a Slack modal, a
Feishu form card) and gets back what they mean, with an error for each field that is wrong."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.fields.answers import FORM_FIELDS
from bot.fields.moments import moment_of
from bot.fields.rentals import FORM_ROOM, CachedPrice, FieldError, instance_fields
from bot.state.rentals import RentalError, check_name
from bot.text import Lang, t
from bot.text.catalogue import tw
from bot.text.errors import parse_error_text
from rules.answers import AnswersError, parse_answers
from rules.questions import missing

PROFILE_KEYS = tuple(field.key for field in FORM_FIELDS)
TRACK_FIELDS = (
    ("name", True),
    ("gpu", True),
    ("price", False),
    ("cards", False),
    ("share", False),
    ("project", False),
    ("started", False),  # a box rented before it was tracked bills from then
)
ERROR_MAX = FORM_ROOM  # a field's error, as short as a modal shows


def typed(texts: dict[str, Any], keys: tuple[str, ...]) -> dict[str, str]:
    """The texts typed in the fields `keys`, stripped, blanks left out."""
    out = {}
    for key in keys:
        text = texts.get(key)
        if isinstance(text, str) and text.strip():
            out[key] = text.strip()
    return out


def read_answers(answers: dict[str, str], lang: Lang) -> tuple[dict[str, Any], dict[str, str]]:
    """(parsed answers, {field: error}) of the profile form's texts: an error for every answer that does not
    parse, and for every required answer left blank (the same required set as everywhere)."""
    errors: dict[str, str] = {}
    try:
        values = parse_answers(answers)
    except AnswersError as exc:
        errors = {key: parse_error_text(error, lang, fit=ERROR_MAX)[:ERROR_MAX] for key, error in exc.errors.items()}
        values = parse_answers({k: v for k, v in answers.items() if k not in exc.errors})
    for key in missing(values):
        if key not in answers:
            errors[key] = t("slack.required", lang)
    return values, errors


def read_track(
    texts: dict[str, str],
    lang: Lang,
    currency: str,
    cached: Callable[[str, int, float | None], CachedPrice | None] | None,
    now: datetime,
    clock: Callable[[], ZoneInfo],
) -> tuple[dict[str, Any], dict[str, str]]:
    """(the instance's columns, {field: error}) of the track form's texts. `started` is read as chat's `started=`
    (bot/fields/moments.py) on `clock`, the submitter's clock, asked only when it is given; `started_at` is now
    when it is not. `started_zone` is that clock (None when not given), for saying back from when it bills."""
    errors: dict[str, str] = {}
    started, zone = now, None
    if "started" in texts:
        zone = clock()
        try:
            started = moment_of(texts["started"], lang, now, zone, field="started")
        except FieldError as exc:
            errors["started"] = exc.short[:ERROR_MAX]
    try:
        check_name(texts.get("name", ""))
    except RentalError as exc:
        errors["name"] = tw(f"error.rental.{exc.code}", lang, "chat", **exc.params)[:ERROR_MAX]
    cards = texts.get("cards", "1")
    if not cards.isdigit() or not 1 <= int(cards) <= 1024:
        errors["cards"] = t("track_form.cards.hint", lang)
    fields: dict[str, Any] = {}
    try:
        fields = instance_fields(
            texts.get("gpu", ""),
            texts.get("price"),
            int(cards) if cards.isdigit() and "cards" in texts else None,
            texts.get("share"),
            None,
            lang,
            cached=cached,
            default_currency=currency,  # the team's: a price's own sign or currency comes first
        )
    except FieldError as exc:
        errors[exc.field if exc.field in dict(TRACK_FIELDS) else "price"] = exc.short[:ERROR_MAX]
    for key, required in TRACK_FIELDS:
        if required and key not in texts:
            errors[key] = t("slack.required", lang)
    said = {"name": texts.get("name", ""), "project": texts.get("project"), "started_at": started, "started_zone": zone}
    return fields | said, errors
