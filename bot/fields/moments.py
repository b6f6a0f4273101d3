"""When something happened, as people type it for `power NAME off at=…` in chat or `--at` in the terminal: read
once, here, so that both take the same words. A time is in the past (up to now): what went on or off, or a balance
read.

Accepted: a time of day (`23:30`, `9:30`, `9am`, `11:30 pm`, `9点`, `9点半`, `下午3点`, `晚上11点`: the last such
time, so `23:30` said at 00:10 is last night), today's, yesterday's or the day before's (`yesterday 23:30`,
`昨天23:30`, `昨晚11点`, `今天 9:30`, `前天9点`), a length of time ago (`2h ago`, `30m ago`, `2小时前`), `now`
(`现在`), a date with or without its year and a time (`2026-12-01 9:00`, `2026/12/1`, `2026年12月1日 9点`,
`12月1日 下午3点`, `12-01`: a date without its year is the last such day), or ISO 8601 (`2026-12-05T23:30`, with or
without a zone). A date alone is its midnight. A time without a zone is in `zone`, the team's clock
(GPU_ADVISOR_REMIND_TZ). Local times follow the zone's daylight-saving rules (zoneinfo). Before 1970 is refused.

Why not dateparser: it reads far more and guesses where this asks (`9.30` is both a time and the 30th of September),
brings its own language data and a regex engine onto the start of every command that takes a time, and would still
need these rules around it (the last such time, never one to come, the team's clock)."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.fields.rentals import FieldError
from bot.fields.spans import SPAN, SpanError, parse_span
from bot.text import Lang, t
from bot.text.runway import when_said
from rules.clock import clock_of

DAYS_BACK = {
    "today": 0,
    "今天": 0,
    "今日": 0,
    "今早": 0,
    "今晚": 0,
    "yesterday": 1,
    "昨天": 1,
    "昨日": 1,
    "昨晚": 1,
    "前天": 2,
}
NOW_WORDS = ("now", "现在", "此刻", "刚才")
AGO = re.compile(r"(?P<span>.+?)\s*(?:ago|前|之前|以前)|-\s*(?P<minus>.+)", re.IGNORECASE)
EARLIEST, LATEST = datetime(1970, 1, 1, tzinfo=UTC), datetime(9999, 12, 30, tzinfo=UTC)  # no bill is older
LONGEST_AGO = timedelta(days=366)  # a bill is read by the month; a year back covers any that is still argued over
DAY_AND_TIME = re.compile(rf"(?P<day>{'|'.join(DAYS_BACK)})\s*(?:at\s+)?(?P<time>.+)", re.IGNORECASE)
# a date, with its year or without (the last such date): 2026-12-01, 2026/12/1, 2026年12月1日, 12月1日, 12-01
DATE = re.compile(
    r"(?:(?P<year>\d{4})\s*(?P<sep>[-/.年])\s*)?(?P<month>\d{1,2})\s*(?P<sep2>[-/.月])\s*(?P<day>\d{1,2})\s*[日号號]?"
    r"(?:\s*(?:T|at\s)?\s*(?P<time>.+))?",
    re.IGNORECASE,
)


def moment_of(text: str, lang: Lang, now: datetime, zone: ZoneInfo, field: str = "at") -> datetime:
    """The moment `text` says, at most `now`; FieldError naming `field` when it is not a time or is to come."""
    try:
        moment = _read(text.strip(), now, zone)
    except SpanError as exc:  # 400d ago: a length of time, but further back than is kept
        raise FieldError(field, t(f"error.span.{exc.code}", lang, **exc.params)) from None
    if moment is None:
        short = t("error.metering.bad_moment_short", lang, value=text[:30])
        raise FieldError(field, t("error.metering.bad_moment", lang, value=text[:60]), short)
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:  # year 1 east of Greenwich, or 9999 west of it: no UTC time says it
        utc = EARLIEST - timedelta(days=1) if moment.year < 1970 else LATEST
    if utc < EARLIEST:
        raise FieldError(field, t("error.metering.too_early", lang, value=text[:60]))
    if utc > now:
        raise FieldError(
            field, t("error.metering.future", lang, at=text[:60] if utc >= LATEST else when_said(utc, zone))
        )
    return moment


def _read(text: str, now: datetime, zone: ZoneInfo) -> datetime | None:
    if text.lower() in NOW_WORDS:
        return now
    ago = AGO.fullmatch(text)
    span = ago and (ago["span"] or ago["minus"]).strip()
    if span and SPAN.fullmatch(span):
        return now - parse_span(span, timedelta(0), LONGEST_AGO)
    local = now.astimezone(zone)
    of_day = clock_of(text)
    if of_day is not None:  # the last such time: 23:30 said at 00:10 is last night's
        today = datetime.combine(local.date(), of_day, tzinfo=zone)
        return today if today <= now else today - timedelta(days=1)
    named = DAY_AND_TIME.fullmatch(text)
    if named is not None:
        word = named["day"].lower()
        clock = clock_of(named["time"], word)
        return None if clock is None else datetime.combine(local.date() - timedelta(DAYS_BACK[word]), clock, zone)
    return written(text, local, zone, -1)


def written(text: str, local: datetime, zone: ZoneInfo, way: int) -> datetime | None:
    """A moment written out: ISO 8601 (no zone: `zone`), or a date as people write it, at a time of that day (its
    midnight when none is said); a date without its year is the last such day up to today (`way` -1), or the next
    from today (`way` 1: bot/fields/coming.py's times to come). None where the words are neither."""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return _dated(text, local, zone, way)
    return moment if moment.tzinfo else moment.replace(tzinfo=zone)


def _dated(text: str, local: datetime, zone: ZoneInfo, way: int) -> datetime | None:
    found = DATE.fullmatch(text)
    if found is None or (found["year"] is None and found["sep2"] == "."):  # 9.30 may be a time: not read as a date
        return None
    clock = time(0) if found["time"] is None else clock_of(found["time"])
    if clock is None:
        return None
    years = [int(found["year"])] if found["year"] else [local.year, local.year + way]
    for year in years:
        try:
            moment = datetime.combine(date(year, int(found["month"]), int(found["day"])), clock, zone)
        except ValueError:  # 2-30, or 2-29 of a year without it
            continue
        # today's date is this year's, at any hour
        if found["year"] or (moment.date() - local.date()).days * way >= 0:
            return moment
    return None
