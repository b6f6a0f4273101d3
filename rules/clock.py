"""A time of day as people say it: `9:30`, `0930`, `9点`, `9点半`, `9点15分`, `下午3点`, `晚上11点`, `9am`, `早上九点`,
`晚上十一点`, `三点一刻`, `11:30 pm`, and in English words: `nine thirty`, `half past nine`, `quarter to eight`,
`nine pm`, `noon`. Read once, here, for a remind time (`remind at 9点半`) and for a past moment
(bot/fields/moments.py: `power … at=昨晚11点`). A bare number says no clock and is not read (nor `nine` alone);
`12am` is midnight, `12pm` noon, `中午1点` 13:00, `晚上12点` midnight. Regular expressions over a handful of
words, not a date parser (dateparser): its readings of a bare number or a part of the day are not these."""

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


_EN_HOURS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
_EN_TEENS = ("thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
_EN_CLOCK = lazy(
    r"(?:(?P<rel>half|quarter|a quarter|\w+(?:[ -]\w+)?) (?P<dir>past|after|to|before) )?(?P<hour>[a-z]+)"
    r"(?:[ -](?![ap]\.?m\b|in the|at night|tonight)(?P<minute>o'?clock|oh [a-z]+|[a-z]+(?:[ -](?![ap]\.?m\b)[a-z]+)?))?"
    r"(?P<ampm>\s*[ap]\.?\s*m\.?| in the (?:morning|evening|afternoon)| at night| tonight)?"
)


def _en_number(word: str) -> int | None:
    """An English number word of a clock, 0 to 59 (nine, fifteen, forty-five, twenty five)."""
    said = word.replace("-", " ").strip()
    if said in _EN_HOURS:
        return _EN_HOURS.index(said)
    if said in _EN_TEENS:
        return 13 + _EN_TEENS.index(said)
    tens, _, ones = said.partition(" ")
    if tens in _EN_TENS and (not ones or ones in _EN_HOURS[1:10]):
        return _EN_TENS[tens] + (_EN_HOURS.index(ones) if ones else 0)
    return None


def _english(text: str) -> str:
    """A clock in English words as digits ("nine thirty" 9:30, "half past nine" 9:30, "quarter to eight" 7:45,
    "nine pm", "noon", "midnight"); the text as it was when it says none."""
    said = " ".join(text.strip().lower().split())
    if said in ("noon", "midday"):
        return "12:00"
    if said == "midnight":
        return "0:00"
    found = _EN_CLOCK.fullmatch(said)
    hour = _en_number(found["hour"]) if found else None
    if found is None or hour is None or hour > 12:
        return text
    minute: int | None = 0
    if found["rel"]:
        rel = {"half": 30, "quarter": 15, "a quarter": 15}.get(found["rel"], _en_number(found["rel"]) or -1)
        if found["minute"] or not 0 < rel < 60:
            return text
        minute = rel if found["dir"] in ("past", "after") else 60 - rel
        hour = hour if found["dir"] in ("past", "after") else (hour - 1) % 12 or 12
    elif found["minute"] and not found["minute"].startswith("o"):
        minute = _en_number(found["minute"])
    elif found["minute"] and found["minute"].startswith("oh "):
        minute = _en_number(found["minute"][3:])
        minute = minute if minute is not None and minute < 10 else None
    if minute is None or minute > 59:
        return text
    part = (found["ampm"] or "").strip()
    later = ("in the evening", "in the afternoon", "at night", "tonight")
    suffix = "pm" if part.startswith("p") or part in later else ""
    suffix = "am" if part.startswith("a") or part == "in the morning" else suffix
    if not suffix and not found["rel"] and not found["minute"]:
        return text  # "nine" alone: a bare number says no clock
    return f"{hour}:{minute:02d}{suffix}"


def hhmm(text: str) -> tuple[int, int] | None:
    """'09:30', '9:30' or '0930' as (hour, minute), unchecked; None for any other shape."""
    found = _HHMM.fullmatch(text.strip())
    return (int(found[1]), int(found[2])) if found else None


def clock_of(text: str, day_word: str = "") -> time | None:
    """The time of day `text` says (a clock with 点, am/pm or a part of the day; `day_word` is a day said before it,
    such as 昨晚, which makes 11点 23:00); None when it says none or one no day has (13pm, 25:00)."""
    text = _english(text)  # "nine thirty", "half past nine"
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
