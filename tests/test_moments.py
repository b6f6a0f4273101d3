"""Past times as people type them (bot/fields/moments.py), for chat's `power NAME off at=…` and the terminal's
`--at`: the clock is given, so nothing here depends on when or where the tests run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.fields.moments import moment_of
from bot.fields.rentals import FieldError
from bot.text import Lang

NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 3, 8, 7, 30, tzinfo=UTC)  # 03:30 in New York, an hour after its clocks went forward


@settings(max_examples=300, deadline=None)
@given(
    now=st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 1, 1), timezones=st.just(UTC)),
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
)
def test_a_time_of_day_is_the_last_such_time_up_to_now(now: datetime, hour: int, minute: int) -> None:
    moment = moment_of(f"{hour}:{minute:02d}", Lang.EN, now, NEW_YORK)
    assert moment <= now and now - moment < timedelta(hours=25)  # a day, and the hour a clock change adds
    local = moment.astimezone(NEW_YORK)
    if datetime.combine(local.date(), local.time()).replace(tzinfo=NEW_YORK).astimezone(UTC) == moment:
        assert (local.hour, local.minute) == (hour, minute)  # unless the time fell in a skipped hour


@pytest.mark.parametrize(
    ("typed", "local"),
    [
        ("3:00", "2026-03-08 03:00"),
        ("3:31", "2026-03-07 03:31"),  # later than now today: yesterday's
        ("yesterday 23:30", "2026-03-07 23:30"),
        ("昨天 1:00", "2026-03-07 01:00"),
        ("今天0:15", "2026-03-08 00:15"),
        ("2h ago", "2026-03-08 00:30"),  # two hours of the clock, one of them skipped
        ("90分钟前", "2026-03-08 01:00"),
        ("-30m", "2026-03-08 03:00"),
        ("now", "2026-03-08 03:30"),
        ("现在", "2026-03-08 03:30"),
        ("2026-03-01T12:00", "2026-03-01 12:00"),
        ("2026-03-01 12:00Z", "2026-03-01 07:00"),
        # as people type a clock and a date, not as ISO 8601 has them
        ("3am", "2026-03-08 03:00"),
        ("3点", "2026-03-08 03:00"),
        ("下午3点", "2026-03-07 15:00"),  # later than now today: yesterday's
        ("昨晚11点", "2026-03-07 23:00"),
        ("昨天下午3点半", "2026-03-07 15:30"),
        ("yesterday at 11:30 pm", "2026-03-07 23:30"),
        ("12am", "2026-03-08 00:00"),
        ("中午1点", "2026-03-07 13:00"),
        ("凌晨12点", "2026-03-08 00:00"),
        ("14时30分", "2026-03-07 14:30"),
        ("前天9:00", "2026-03-06 09:00"),
        ("2026-03-01 9:00", "2026-03-01 09:00"),
        ("2026/3/1 9:00", "2026-03-01 09:00"),
        ("2026年3月1日 9点", "2026-03-01 09:00"),
        ("3月1日", "2026-03-01 00:00"),
        ("3月1日 下午2点", "2026-03-01 14:00"),
        ("12-25", "2025-12-25 00:00"),  # a date without its year: the last such date
        ("2026.03.01", "2026-03-01 00:00"),
    ],
)
def test_each_form_people_type(typed: str, local: str) -> None:
    assert f"{moment_of(typed, Lang.EN, NOW, NEW_YORK).astimezone(NEW_YORK):%Y-%m-%d %H:%M}" == local


@settings(max_examples=200, deadline=None)
@given(hour=st.integers(0, 23), minute=st.integers(0, 59), spaced=st.booleans())
def test_a_clock_said_with_am_pm_or_a_part_of_the_day_is_the_clock_of_24_hours(
    hour: int, minute: int, spaced: bool
) -> None:
    said = moment_of(f"{hour}:{minute:02d}", Lang.EN, NOW, NEW_YORK)
    ampm = f"{(hour + 11) % 12 + 1}:{minute:02d}{' ' if spaced else ''}{'pm' if hour >= 12 else 'am'}"
    part = "下午" if hour >= 12 else "上午"
    zh = f"{part}{hour - 12 if hour > 12 else hour}点{minute}分"
    assert moment_of(ampm, Lang.EN, NOW, NEW_YORK) == said, ampm
    assert moment_of(zh, Lang.ZH, NOW, NEW_YORK) == said, zh


def _chinese(n: int) -> str:
    """0-59 in Chinese numerals, as a clock is said: 五, 十, 十五, 二十三, 零五 (a minute below ten)."""
    digits = "零一二三四五六七八九"
    tens, ones = divmod(n, 10)
    if n < 10:
        return digits[n]
    return ("" if tens == 1 else digits[tens]) + "十" + (digits[ones] if ones else "")


@settings(max_examples=200, deadline=None)
@given(hour=st.integers(0, 23), minute=st.integers(0, 59))
def test_a_clock_said_in_chinese_numerals_is_the_clock_in_digits(hour: int, minute: int) -> None:
    """早上九点, 晚上十一点, 十点十五 were not times (十一点 was read as 10 and "a little")."""
    part = "下午" if hour >= 12 else "上午"
    h12 = hour - 12 if hour > 12 else hour
    said = f"{part}{_chinese(h12)}点" + (("零" if minute < 10 else "") + _chinese(minute) + "分" if minute else "")
    digits = f"{part}{h12}点{minute}分"
    assert moment_of(said, Lang.ZH, NOW, NEW_YORK) == moment_of(digits, Lang.ZH, NOW, NEW_YORK), said


@pytest.mark.parametrize(
    ("typed", "local"),
    [("昨晚十一点", "2026-03-07 23:00"), ("早上九点半", "2026-03-07 09:30"), ("三点一刻", "2026-03-08 03:15"),
     ("十点三刻", "2026-03-07 10:45"), ("凌晨十二点", "2026-03-08 00:00")],
)  # fmt: skip
def test_a_clock_in_chinese_numerals_with_its_day_and_quarters(typed: str, local: str) -> None:
    assert f"{moment_of(typed, Lang.ZH, NOW, NEW_YORK).astimezone(NEW_YORK):%Y-%m-%d %H:%M}" == local


@pytest.mark.parametrize(
    ("typed", "lang", "said"),
    [
        ("tomorrow", Lang.EN, "'tomorrow' is not a time: give 23:30 (the last 23:30), yesterday 23:30, 2h ago"),
        ("明天", Lang.ZH, "“明天”不是时间：请用 23:30"),
        ("25:00", Lang.EN, "'25:00' is not a time"),
        ("today 23:00", Lang.EN, "the time 2026-03-08 23:00 America/New_York is in the future"),
        ("2026-03-09T00:00", Lang.ZH, "时间 2026-03-09 00:00 America/New_York 在未来"),
        ("2 years ago", Lang.EN, "'2 years ago' is not a time"),
        ("400d ago", Lang.EN, "400d is outside what is accepted here: from 0s to 366d"),
        ("13pm", Lang.EN, "'13pm' is not a time"),
        ("9", Lang.EN, "'9' is not a time"),  # a bare number says no clock
        ("9.30", Lang.EN, "'9.30' is not a time"),  # a time or the 30th of September: not guessed
        ("2-30", Lang.EN, "'2-30' is not a time"),
        ("3月8日 下午2点", Lang.EN, "the time 2026-03-08 14:00 America/New_York is in the future"),
        ("今晚8点", Lang.ZH, "时间 2026-03-08 20:00 America/New_York 在未来"),
        ("0001-01-01T00:00:00+14:00", Lang.EN, "'0001-01-01T00:00:00+14:00' is before 1970"),
        ("9999-12-31T23:59:59-14:00", Lang.EN, "the time 9999-12-31T23:59:59-14:00 is in the future"),
    ],
)
def test_what_is_not_a_past_time_is_refused_saying_what_is(typed: str, lang: Lang, said: str) -> None:
    with pytest.raises(FieldError) as refused:
        moment_of(typed, lang, NOW, NEW_YORK, field="at")
    assert refused.value.field == "at" and said in refused.value.message
