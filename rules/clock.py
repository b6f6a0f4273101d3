"""A time of day as people say it: `9:30`, `0930`, `9点`, `9点半`, `9点15分`, `下午3点`, `晚上11点`, `9am`, `早上九点`,
`晚上十一点`, `三点一刻`,
`11:30 pm`. Read once, here, for a remind time (`remind at 9点半`) and for a past moment (bot/fields/moments.py:
`power … at=昨晚11点`). A bare number says no clock and is not read; `12am` is midnight, `12pm` noon, `中午1点`
13:00, `晚上12点` midnight."""

from __future__ import annotations

import re
from datetime import time

from rules.patterns import lazy

_HHMM = lazy(r"(\d{1,2}):?(\d{2})")
_CLOCK = lazy(
    r"(?P<part>上午|早上|早晨|清晨|凌晨|中午|下午|傍晚|晚上|夜里)?\s*(?P<hour>\d{1,2})"
    r"(?:\s*[:：]\s*(?P<minute>\d{2})|\s*(?P<dian>[点點时時])\s*(?:(?P<half>半)|(?P<zh_minute>\d{1,2})\s*分?)?)?"
    r"\s*(?P<ampm>[ap]\.?\s*m\.?)?",
    re.IGNORECASE,
)
AFTERNOON = ("下午", "傍晚", "晚上", "夜里", "今晚", "昨晚")  # an hour below 12 said with these is after noon
NIGHT = ("晚上", "夜里", "今晚", "昨晚", "凌晨")  # 12 said with these is midnight


_CN = "零〇一二两三四五六七八九十"
_CN_HOUR = lazy(rf"[{_CN}]+(?=\s*[点點时時])")  # 九点, 十一点
_CN_MINUTE = lazy(rf"(?<=[点點时時])\s*(?:(?P<quarter>[一三])刻|(?P<n>[{_CN}]+)\s*分?)$")  # 十五, 零五, 一刻


def _in_digits(text: str) -> str:
    """A clock's Chinese numerals as digits (九点半 -> 9点半, 十点十五 -> 10点15, 三点一刻 -> 3点15): read here, not by
    rules/spoken.py, whose 一点 ("a little") took 十一点 apart."""
    from rules.numbers import chinese_int

    def minute(found: re.Match[str]) -> str:
        return "15" if found["quarter"] == "一" else "45" if found["quarter"] else f"{chinese_int(found['n']):02d}"

    return _CN_MINUTE.sub(minute, _CN_HOUR.sub(lambda found: str(chinese_int(found[0])), text))


def hhmm(text: str) -> tuple[int, int] | None:
    """'09:30', '9:30' or '0930' as (hour, minute), unchecked; None for any other shape."""
    found = _HHMM.fullmatch(text.strip())
    return (int(found[1]), int(found[2])) if found else None


def clock_of(text: str, day_word: str = "") -> time | None:
    """The time of day `text` says (a clock with 点, am/pm or a part of the day; `day_word` is a day said before it,
    such as 昨晚, which makes 11点 23:00); None when it says none or one no day has (13pm, 25:00)."""
    plain = hhmm(text)
    if plain is not None:
        return time(*plain) if plain[0] <= 23 and plain[1] <= 59 else None
    found = _CLOCK.fullmatch(_in_digits(text.strip()))
    if found is None or not (found["minute"] or found["dian"] or found["ampm"]):
        return None  # a bare number is not a time
    hour = int(found["hour"])
    minute = 30 if found["half"] else int(found["minute"] or found["zh_minute"] or 0)
    part, ampm = found["part"] or day_word, (found["ampm"] or "").lower()[:1]
    if ampm and not 1 <= hour <= 12:
        return None  # 13pm, 0am
    if ampm:
        hour = hour % 12 + (12 if ampm == "p" else 0)  # 12am is midnight, 12pm noon
    elif part == "中午" and hour < 6:
        hour += 12  # 中午1点: 13:00
    elif part in AFTERNOON and hour < 12:
        hour += 12
    elif part in NIGHT and hour == 12:
        hour = 0  # 晚上12点, 凌晨12点: midnight
    if hour > 23 or minute > 59:
        return None
    return time(hour, minute)
