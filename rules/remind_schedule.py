"""When a channel's digest is due: a local time, a time zone and working days. Pure; the clock comes in.

A digest is due on a working day once the local time has passed the configured time, until the
local day ends; so a digest missed while the process was down still goes out at start-up the same
day, and not the next. Local times follow the zone's daylight-saving rules (zoneinfo).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from rules.clock import clock_of, hhmm
from rules.errors import ParseError

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
ZH_DAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
ACCEPTED = {
    "remind_at": ["09:30", "9:30", "0930", "9点半", "9am"],
    "remind_zone": ["Asia/Shanghai", "America/New_York", "UTC"],
    "remind_days": ["mon-fri", "mon,wed,fri", "daily", "工作日", "周一-周五"],
}
NAMED = {"daily": "mon-sun", "everyday": "mon-sun", "every day": "mon-sun", "weekdays": "mon-fri", "工作日": "mon-fri",
         "每天": "mon-sun", "天天": "mon-sun", "每日": "mon-sun", "weekends": "sat-sun", "weekend": "sat-sun",
         "周末": "sat-sun", "双休日": "sat-sun", "每个工作日": "mon-fri", "工作日每天": "mon-fri",
         "每个周末": "sat-sun", "每周末": "sat-sun", "every weekday": "mon-fri", "weekday": "mon-fri",
         "every weekend": "sat-sun", "on weekdays": "mon-fri", "on weekends": "sat-sun",
         # the weekend left out: the weekdays ("提醒 周末不要" was the usage)
         "周末不要": "mon-fri", "周末不提醒": "mon-fri", "不要周末": "mon-fri", "周末不用": "mon-fri",
         "除了周末": "mon-fri", "周末除外": "mon-fri", "no weekends": "mon-fri", "not on weekends": "mon-fri",
         "except weekends": "mon-fri", "weekdays only": "mon-fri"}  # fmt: skip
_ZH_LIST = re.compile(r"(?:每)?(?:周|星期|礼拜)([一二三四五六日天](?:[、,，]?[一二三四五六日天])+)")  # 周一三五
# Zones as Chinese teams name them (the clock of mainland China, Hong Kong, Taiwan and Singapore is UTC+8)
ZONE_WORDS = {"北京时间": "Asia/Shanghai", "中国时间": "Asia/Shanghai", "东八区": "Asia/Shanghai",
              "beijing": "Asia/Shanghai", "china": "Asia/Shanghai", "utc+8": "Asia/Shanghai",
              "gmt+8": "Asia/Shanghai", "香港时间": "Asia/Hong_Kong", "新加坡时间": "Asia/Singapore"}  # fmt: skip


@dataclass(frozen=True)
class RemindSchedule:
    at: time
    zone: str
    days: frozenset[int]  # 0 = Monday
    enabled: bool = True
    lang: str | None = None  # the channel's language (zh or en); None: the team default
    resume_on: date | None = None  # paused: the first local day it is sent again; None: not paused

    @property
    def days_text(self) -> str:
        return days_text(self.days)


_DOTTED = re.compile(r"(\d{1,2})\.(\d{2})")


def parse_at(text: str) -> time:
    """'09:30', '9:30', '0930', or a clock as people say it (rules/clock.py: '9点半', '上午9点', '9am') -> 09:30."""
    dotted = _DOTTED.fullmatch(text.strip())  # 9.30: the clock a dot apart, as people type it
    clock = f"{dotted[1]}:{dotted[2]}" if dotted else text
    plain = hhmm(clock)
    if plain is not None and (plain[0] > 23 or plain[1] > 59):  # 25:00, 9:75: a time, but not one of a day
        raise ParseError("remind_at", text, ACCEPTED["remind_at"], "not_a_time_of_day")
    said = clock_of(clock)
    if said is None:
        raise ParseError("remind_at", text, ACCEPTED["remind_at"])
    return said


def parse_zone(text: str) -> str:
    """An IANA zone ('Asia/Shanghai', 'UTC', 'utc'), or one as people name it ('北京时间', '东八区', 'UTC+8')."""
    text = ZONE_WORDS.get(text.strip().lower(), text)
    text = text.upper() if text.upper() in ("UTC", "GMT") else text
    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise ParseError("remind_zone", text, ACCEPTED["remind_zone"]) from None
    return text


def zone_said(word: str) -> bool:
    """Whether a word of `remind at 9:30 …` names the zone (else it says the days)."""
    return "/" in word or word.upper() in ("UTC", "GMT") or word.strip().lower() in ZONE_WORDS


def _day(token: str) -> int:
    token = token.strip().lower()
    if token[:3] in DAYS:
        return DAYS.index(token[:3])
    token = token.removeprefix("周").removeprefix("星期")
    if token in ZH_DAYS:
        return ZH_DAYS[token]
    raise ValueError(token)


def parse_days(text: str) -> frozenset[int]:
    """'mon-fri', 'mon,wed,fri', 'daily', '工作日', '周一-周五', '周一到周五', '周一至周五' -> weekday numbers
    (0 = Monday)."""
    # 周一到周五, mon to fri: a span as people write one
    said = re.sub(r"\s*(?:到|至|~|～|–|\bto\b|\bthrough\b)\s*", "-", text.strip().lower())
    said = re.sub(r"\s*(?:\band\b|&|和|及)\s*", ",", said)  # mondays and thursdays, 周一和周四
    listed = _ZH_LIST.fullmatch(said)
    if listed:  # 周一三五, 每周二、四: each day of the list
        said = ",".join(c for c in listed[1] if c in ZH_DAYS)
    spec = NAMED.get(text.strip().lower(), NAMED.get(said, said))
    days: set[int] = set()
    try:
        for part in re.split(r"[,，、]", spec):
            if "-" in part:
                first, last = (_day(p) for p in part.split("-", 1))
                span = (last - first) % 7
                days |= {(first + i) % 7 for i in range(span + 1)}
            else:
                days.add(_day(part))
    except ValueError:
        one_day = text.strip().lower() in _ONE_DAY  # 明天早上9点提醒我: a day, not the digest's days of the week
        raise ParseError("remind_days", text, ACCEPTED["remind_days"], "one_day" if one_day else None) from None
    return frozenset(days)


_ONE_DAY = frozenset(("明天", "今天", "后天", "明早", "明晚", "今晚", "今早", "tomorrow", "today", "tonight"))


def days_text(days: frozenset[int]) -> str:
    ordered = sorted(days)
    if ordered == list(range(ordered[0], ordered[-1] + 1)) and len(ordered) > 2:
        return f"{DAYS[ordered[0]]}-{DAYS[ordered[-1]]}"
    return ",".join(DAYS[d] for d in ordered)


def is_due(schedule: RemindSchedule, now: datetime) -> bool:
    """Is today's digest due at `now` (a working day, past the time, the local day not over)?"""
    local = now.astimezone(ZoneInfo(schedule.zone))
    paused = schedule.resume_on is not None and local.date() < schedule.resume_on
    return schedule.enabled and not paused and local.weekday() in schedule.days and local.time() >= schedule.at


def next_send(schedule: RemindSchedule, now: datetime) -> datetime | None:
    """The next moment a digest goes out after `now` (None when off), in the schedule's zone."""
    if not schedule.enabled or not schedule.days:
        return None
    zone = ZoneInfo(schedule.zone)
    local = now.astimezone(zone)
    first = max(local.date(), schedule.resume_on or local.date())  # paused: not before the day it resumes
    for ahead in range(8):
        day = first + timedelta(days=ahead)
        moment = datetime.combine(day, schedule.at, tzinfo=zone)
        if day.weekday() in schedule.days and moment > local:
            return moment
    return None
