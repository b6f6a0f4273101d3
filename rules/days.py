"""A day named in words, from today: 今天, 明天, 后天, 大后天, 周五, 星期五, 下周一, 15号, today, tomorrow, friday,
next monday. A weekday alone is its next one from today (today's where it is today); `下周X` / `next X` is that day
of the week after this one (weeks begin on Monday); `15号` this month's 15th, or next month's once it has passed."""

from __future__ import annotations

import re
from datetime import date, timedelta

from rules.patterns import lazy

_ZH_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_EN_WEEKDAY = {
    name: n
    for n, names in enumerate(
        (("monday", "mon"), ("tuesday", "tue", "tues"), ("wednesday", "wed"), ("thursday", "thu", "thurs"),
         ("friday", "fri"), ("saturday", "sat"), ("sunday", "sun"))
    )
    for name in names
}  # fmt: skip
_AHEAD = {"今天": 0, "today": 0, "明天": 1, "tomorrow": 1, "后天": 2, "大后天": 3}
_DAY_NAMES = "|".join(sorted(map(re.escape, _AHEAD), key=len, reverse=True))
_WEEKDAY_ZH = lazy(r"^(?P<next>下个?|这个?|本)?(?:周|星期|礼拜)(?P<day>[一二三四五六日天1-7])$")
_WEEKDAY_EN = lazy(r"^(?P<next>next |this )?(?P<day>[a-z]+)$", re.IGNORECASE)
_OF_MONTH = lazy(r"^(?P<day>\d{1,2})\s*(?:号|日)$|^the (?P<en>\d{1,2})(?:st|nd|rd|th)$", re.IGNORECASE)
# a day's words, for a pattern that has them inside it
DAY_WORDS = (
    rf"(?:{_DAY_NAMES}|(?:下个?|这个?|本)?(?:周|星期|礼拜)[一二三四五六日天1-7]|\d{{1,2}}\s*(?:号|日)"
    r"|(?:next |this )?(?:mon|tue|tues|wed|thu|thurs|fri|sat|sun)(?:day|nesday|sday|urday)?|the \d{1,2}(?:st|nd|rd|th))"
)


def day_named(text: str, today: date) -> date | None:
    """The day `text` names, from `today`; None where it names none (or a 15号 no month has next)."""
    said = text.strip().lower()
    if said in _AHEAD:
        return today + timedelta(days=_AHEAD[said])
    if (zh := _WEEKDAY_ZH.match(said)) is not None:
        day = zh["day"]
        weekday = int(day) - 1 if day.isdigit() else _ZH_WEEKDAY[day]
        return _weekday(today, weekday, bool(zh["next"] and zh["next"].startswith("下")))
    if (en := _WEEKDAY_EN.match(said)) is not None and en["day"] in _EN_WEEKDAY:
        return _weekday(today, _EN_WEEKDAY[en["day"]], (en["next"] or "").strip() == "next")
    if (month := _OF_MONTH.match(said)) is not None:
        return _of_month(today, int(month["day"] or month["en"]))
    return None


def _weekday(today: date, weekday: int, next_week: bool) -> date:
    if next_week:
        return today - timedelta(days=today.weekday()) + timedelta(days=7 + weekday)
    return today + timedelta(days=(weekday - today.weekday()) % 7)


def _of_month(today: date, day: int) -> date | None:
    year, month = today.year, today.month
    for _ in range(2):  # this month's, else the next month's
        try:
            found = date(year, month, day)
        except ValueError:
            found = None
        if found is not None and found >= today:
            return found
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None
