"""When something happened, as people type it for `power NAME off at=…` in chat or `--at` in the terminal: read
once, here, so that both take the same words. A time is in the past (up to now): what went on or off, or a balance
read.

Accepted: a time of day (`23:30`, `9:30`: the last such time, so `23:30` said at 00:10 is last night), today's
or yesterday's (`yesterday 23:30`, `昨天23:30`, `今天 9:30`), a length of time ago (`2h ago`, `30m ago`,
`2小时前`), `now` (`现在`), or ISO 8601 (`2026-12-05T23:30`, `2026-12-05 23:30`, with or without a zone). A
time without a zone is in `zone`, the team's clock (GPU_ADVISOR_REMIND_TZ). Local times follow the zone's
daylight-saving rules (zoneinfo)."""

from __future__ import annotations

import re
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.fields.rentals import FieldError
from bot.fields.spans import SPAN, SpanError, parse_span
from bot.text import Lang, t
from bot.text.runway import when_said
from rules.errors import ParseError
from rules.remind_schedule import parse_at

DAYS_BACK = {"today": 0, "今天": 0, "今日": 0, "yesterday": 1, "昨天": 1, "昨日": 1, "昨晚": 1}
NOW_WORDS = ("now", "现在", "此刻", "刚才")
AGO = re.compile(r"(?P<span>.+?)\s*(?:ago|前|之前|以前)|-\s*(?P<minus>.+)", re.IGNORECASE)
LONGEST_AGO = timedelta(days=366)  # a bill is read by the month; a year back covers any that is still argued over
DAY_AND_TIME = re.compile(r"(?P<day>[a-z]+|[\u4e00-\u9fff]+)\s*(?P<time>\d.*)", re.IGNORECASE)


def moment_of(text: str, lang: Lang, now: datetime, zone: ZoneInfo, field: str = "at") -> datetime:
    """The moment `text` says, at most `now`; FieldError naming `field` when it is not a time or is to come."""
    try:
        moment = _read(text.strip(), now, zone)
    except SpanError as exc:  # 400d ago: a length of time, but further back than is kept
        raise FieldError(field, t(f"error.span.{exc.code}", lang, **exc.params)) from None
    if moment is None:
        raise FieldError(field, t("error.metering.bad_moment", lang, value=text[:60]))
    if moment > now:
        raise FieldError(field, t("error.metering.future", lang, at=when_said(moment, zone)))
    return moment


def _read(text: str, now: datetime, zone: ZoneInfo) -> datetime | None:
    if text.lower() in NOW_WORDS:
        return now
    ago = AGO.fullmatch(text)
    span = ago and (ago["span"] or ago["minus"]).strip()
    if span and SPAN.fullmatch(span):
        return now - parse_span(span, timedelta(0), LONGEST_AGO)
    of_day = _time_of_day(text)
    if of_day is not None:  # the last such time: 23:30 said at 00:10 is last night's
        local = now.astimezone(zone)
        today = datetime.combine(local.date(), of_day, tzinfo=zone)
        return today if today <= now else today - timedelta(days=1)
    named = DAY_AND_TIME.fullmatch(text)
    if named is not None and named["day"].lower() in DAYS_BACK:
        clock = _time_of_day(named["time"])
        if clock is None:
            return None
        day = now.astimezone(zone).date() - timedelta(days=DAYS_BACK[named["day"].lower()])
        return datetime.combine(day, clock, tzinfo=zone)
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=zone)


def _time_of_day(text: str) -> time | None:
    try:
        return parse_at(text)
    except ParseError:
        return None
