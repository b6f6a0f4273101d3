"""The period a report covers, as people name it: a month (2026-11, 2026年11月, 11月, 十一月, November, nov
2026), this or last week and month (本周, 上个月, last week), or the days up to today (最近7天, 过去一周, 近一个月,
last 7 days, past 2 weeks). Regular expressions over a few words: no date-parsing library (dateparser) for a
handful of forms whose readings (11月 is the last November up to today, a rolling span ends today) are this
project's."""

from __future__ import annotations

import re
from datetime import date, timedelta

from rules.numbers import chinese_int, number_value

# The days a report can be asked for: the data holds nothing older, and a day past it cannot be reached (9999-12
# has no next month to end at)
FIRST_DAY, LAST_DAY = date(2000, 1, 1), date(2099, 12, 31)


def reportable(day: date) -> bool:
    return FIRST_DAY <= day <= LAST_DAY


_MONTH = re.compile(r"(\d{4})\s*[-/.年]\s*(\d{1,2})\s*月?")  # 2026-11, 2026年11月
_MONTH_ALONE = re.compile(r"(\d{1,2})\s*月(?:份)?")  # 11月: the last such month up to today
THIS_MONTH = ("this-month", "this month", "本月", "这个月")
LAST_MONTH = ("last-month", "last month", "上月", "上个月")


def month_span(text: str, today: date) -> tuple[date, date] | None:
    """The days of the month `text` names: YYYY-MM, 2026年11月, 11月 (the last such month up to today), last-month
    (上个月) whole; this-month (本月) so far, as this-week is. None when it names none (or a 13th month)."""
    if text.strip().lower() in THIS_MONTH:
        return today.replace(day=1), today
    first = _month_said(text, today)
    return None if first is None else month_days(first)


_CN_MONTH = re.compile(r"[一二三四五六七八九十]{1,3}(?=\s*月)")  # 十一月: a month in Chinese numerals


def _month_said(text: str, today: date) -> date | None:
    said = _CN_MONTH.sub(lambda m: str(chinese_int(m[0])), text.strip().lower())  # 十一月 -> 11月
    if said in LAST_MONTH:
        return (today.replace(day=1) - timedelta(days=1)).replace(day=1)
    alone = _MONTH_ALONE.fullmatch(said)
    if alone and 1 <= int(alone[1]) <= 12:
        month = int(alone[1])
        return date(today.year if month <= today.month else today.year - 1, month, 1)
    found = _MONTH.fullmatch(said)
    if found and 1 <= int(found[2]) <= 12:
        return date(max(int(found[1]), 1), int(found[2]), 1)
    return _named_month(said, today)


def month_days(first: date) -> tuple[date, date]:
    """The first and last day of `first`'s month."""
    start = first.replace(day=1)
    if start.month == 12:  # December ends the year (9999-12 has no month after it to count back from)
        return start, start.replace(day=31)
    return start, start.replace(month=start.month + 1) - timedelta(days=1)


# the English months, by name and by the three letters that begin it
_EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
              "november", "december")  # fmt: skip
_NAMED = re.compile(r"(?P<a>\d{4})?\s*(?P<name>[a-z]{3,9})\.?,?\s*(?P<b>\d{4})?")


def _named_month(said: str, today: date) -> date | None:
    """November, nov, November 2026, 2026 nov: the month named (the last such up to today without a year)."""
    found = _NAMED.fullmatch(said)
    if found is None or (found["a"] and found["b"]):
        return None
    name = found["name"]
    month = next((i for i, m in enumerate(_EN_MONTHS, 1) if m == name or (len(name) >= 3 and m[:3] == name)), None)
    if name == "sept":  # September's own short form
        month = 9
    elif month is None or (len(name) > 3 and name not in _EN_MONTHS):
        return None
    year = found["a"] or found["b"]
    if year:
        return date(max(int(year), 1), month, 1)
    return date(today.year if month <= today.month else today.year - 1, month, 1)


WEEK_WORDS = {"last-week": "last-week", "last week": "last-week", "上周": "last-week", "上星期": "last-week"}
WEEK_WORDS |= {"上个星期": "last-week", "上一周": "last-week", "this-week": "this-week", "this week": "this-week"}
WEEK_WORDS |= {"本周": "this-week", "这周": "this-week", "这星期": "this-week", "这个星期": "this-week"}

_CN_NUMBER = "[零一二两三四五六七八九十百]+"
_ROLLING_ZH = re.compile(
    rf"(?:最近|近|过去|前)\s*(?P<n>\d+|{_CN_NUMBER})?\s*(?P<unit>天|日|周|个?星期|个?礼拜|个月)(?:内|以来)?"
)
_ROLLING_EN = re.compile(r"(?:the\s+)?(?:last|past|previous)\s+(?:(?P<n>\d+|[a-z]+)\s+)?(?P<unit>days?|weeks?|months?)")
_UNIT_DAYS = {"天": 1, "日": 1, "周": 7, "星期": 7, "礼拜": 7, "day": 1, "week": 7}


def rolling_span(text: str, today: date) -> tuple[date, date] | None:
    """The days up to today `text` names (最近7天, 过去一周, 近一个月, last 7 days, past 2 weeks): today and the days
    before it, N of them (a month: from the same day of the month before, the day after it). None when it names
    none, or none of at least one day."""
    said = text.strip().lower()
    found = _ROLLING_ZH.fullmatch(said) or _ROLLING_EN.fullmatch(said)
    if found is None:
        return None
    try:
        count = 1 if found["n"] is None else int(_count(found["n"]))
    except ValueError:
        return None
    unit = found["unit"].removesuffix("s").removeprefix("个")
    if not 1 <= count <= 1200:  # a hundred years of months at most: a date before year 1 is none
        return None
    if unit in ("月", "month"):
        start = _months_back(today, count) + timedelta(days=1)
    else:
        start = today - timedelta(days=count * _UNIT_DAYS[unit] - 1)
    return start, today


def _count(said: str) -> float:
    if said.isdigit():
        return float(said)
    if said.isascii():
        return number_value(said)  # seven, two (ValueError where it is no number)
    return float(chinese_int(said))


def _months_back(day: date, months: int) -> date:
    """The same day `months` months before (the month's last day where it is shorter)."""
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    first = date(year, month + 1, 1)
    last = month_days(first)[1]
    return first.replace(day=min(day.day, last.day))
