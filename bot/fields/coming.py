"""When something is to happen, as people type it for a stop asked for at a time (`训练机 明天早上9点关`, `power box1
off at=21:00`, the terminal's `power box1 off --at "tomorrow 9am"`): read once, here, so that chat and the terminal
take the same words. bot/fields/moments.py reads the past ones (what went on or off); this, the ones to come.

Accepted: a time of day, the next such time (`21:00`, `9点`, `晚上10点`, `9pm`: said at 22:00, tomorrow's); with its
day (`今天18:00`, `今晚11点`, `tonight 11pm`, `明天9点`, `明早9点`, `明晚10点`, `tomorrow 9am`, `后天9点`); a length
of time from now (`in 2h`, `2h later`, `2小时后`, `两个小时以后`, `半小时后`); a date and a time (`12-08 9:00`,
`12月8日 9点`, `2026-12-08 09:00`: a date without its year is the next such day; alone, its midnight), or ISO 8601.
A time without a zone is on `zone`, the person's clock. It must be to come, and at most MOST_AHEAD from now.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from bot.fields.moments import written
from bot.fields.rentals import FieldError
from bot.fields.spans import SpanError, parse_span
from bot.text import Lang, t
from bot.text.runway import when_said
from rules.clock import clock_of

NIGHT_ENDS = 6  # 今晚12点 is the midnight that ends tonight; an hour before this is the night's, past midnight
MOST_AHEAD = timedelta(days=31)  # a job's end is known days ahead, not months: a month covers any run people plan
# a day said before the time: how many days on, and the part of the day it says (明晚: 晚上)
DAYS_ON = {
    "today": (0, ""),
    "今天": (0, ""),
    "今日": (0, ""),
    "今早": (0, "早上"),
    "今晚": (0, "晚上"),
    "tonight": (0, "晚上"),
    "tomorrow": (1, ""),
    "明天": (1, ""),
    "明日": (1, ""),
    "明早": (1, "早上"),
    "明晚": (1, "晚上"),
    "后天": (2, ""),
}
DAY_THEN = re.compile(rf"(?P<day>{'|'.join(DAYS_ON)})\s*(?:at\s+|的)?(?P<time>.+)", re.IGNORECASE)
LATER = re.compile(r"(?:in\s+)?(?P<span>.+?)\s*(?:later|from now|后|之后|以后)?", re.IGNORECASE)


def coming_moment(text: str, lang: Lang, now: datetime, zone: ZoneInfo, field: str = "at") -> datetime:
    """The moment `text` says, after `now` and at most MOST_AHEAD on; FieldError naming `field` otherwise, with
    what is accepted."""
    moment = _read(text.strip(), now, zone)
    if moment is None:
        raise FieldError(field, t("error.coming.bad", lang, value=text[:60]), t("error.coming.bad_short", lang))
    if moment <= now:
        raise FieldError(field, t("error.coming.past", lang, at=_said(moment, zone, text)))
    if moment - now > MOST_AHEAD:
        raise FieldError(field, t("error.coming.too_far", lang, at=_said(moment, zone, text), days=MOST_AHEAD.days))
    return moment


def _said(moment: datetime, zone: ZoneInfo, text: str) -> str:
    """The moment on the person's clock, or as typed where no such local time exists (year 1 east of UTC, 9999
    west of it: `0001-01-01T00:00+14:00` was an OverflowError)."""
    try:
        return when_said(moment, zone)
    except OverflowError:
        return text[:60]


def says_a_time(text: str) -> bool:
    """Whether words say a time as coming_moment reads one (whenever now is): what a stop asked in words must have
    before it is read as one (`训练机2关机了` says none: a box's report, not a stop at 训练机2)."""
    return _read(text.strip(), SOME_NOW, UTC_ZONE) is not None


SOME_NOW, UTC_ZONE = datetime(2026, 1, 1, tzinfo=ZoneInfo("UTC")), ZoneInfo("UTC")


def _read(text: str, now: datetime, zone: ZoneInfo) -> datetime | None:
    local = now.astimezone(zone)
    of_day = clock_of(text)
    if of_day is not None:  # the next such time: 9点 said at 22:00 is tomorrow's
        today = datetime.combine(local.date(), of_day, tzinfo=zone)
        return today if today > now else datetime.combine(local.date() + timedelta(days=1), of_day, tzinfo=zone)
    named = DAY_THEN.fullmatch(text)
    if named is not None:
        days, part = DAYS_ON[named["day"].lower()]
        clock = clock_of(named["time"], part or named["day"].lower())
        if clock is None:
            return None
        if part == "晚上" and clock.hour < NIGHT_ENDS:  # 今晚12点, 明晚1点: past midnight, the next day's
            days += 1
        return datetime.combine(local.date() + timedelta(days=days), clock, zone)
    later = _later(text)
    if later is not None:
        return now + later
    return written(text, local, zone, 1)


def _later(text: str) -> timedelta | None:
    """A length of time from now (`in 2h`, `2小时后`): None where the words say none."""
    found = LATER.fullmatch(text)
    if found is None or not (text.lower().startswith("in ") or found.end("span") < len(text)):
        return None  # a bare length (`2h`) says no time to come: `2h` may be a run's length
    try:
        return parse_span(found["span"], timedelta(minutes=1), timedelta(days=3660))  # too far: said as such
    except SpanError:
        return None
