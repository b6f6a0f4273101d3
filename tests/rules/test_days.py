"""A day named in words from a given today (rules/days.py): the date each word names, pure of the clock."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.days import day_named

MONDAY = date(2026, 12, 7)
SATURDAY = date(2026, 12, 12)


@pytest.mark.parametrize(
    ("said", "today", "day"),
    [
        ("今天", MONDAY, MONDAY),
        ("明天", MONDAY, date(2026, 12, 8)),
        ("后天", MONDAY, date(2026, 12, 9)),
        ("大后天", MONDAY, date(2026, 12, 10)),
        ("周五", MONDAY, date(2026, 12, 11)),
        ("星期五", MONDAY, date(2026, 12, 11)),
        ("礼拜5", MONDAY, date(2026, 12, 11)),
        ("这周五", MONDAY, date(2026, 12, 11)),
        ("周一", MONDAY, MONDAY),  # today's
        ("周五", SATURDAY, date(2026, 12, 18)),  # past this week: the next one
        ("下周一", MONDAY, date(2026, 12, 14)),
        ("下周一", SATURDAY, date(2026, 12, 14)),  # the week after this one, not a week after today
        ("下个星期三", MONDAY, date(2026, 12, 16)),
        ("周日", MONDAY, date(2026, 12, 13)),
        ("星期天", MONDAY, date(2026, 12, 13)),
        ("15号", MONDAY, date(2026, 12, 15)),
        ("3号", MONDAY, date(2027, 1, 3)),  # passed this month: the next month's, across the year
        ("31日", date(2026, 11, 10), date(2026, 12, 31)),  # November has no 31st: December's
        ("tomorrow", MONDAY, date(2026, 12, 8)),
        ("Friday", MONDAY, date(2026, 12, 11)),
        ("fri", MONDAY, date(2026, 12, 11)),
        ("next monday", MONDAY, date(2026, 12, 14)),
        ("the 15th", MONDAY, date(2026, 12, 15)),
    ],
)
def test_each_word_names_its_day(said: str, today: date, day: date) -> None:
    assert day_named(said, today) == day


@pytest.mark.parametrize("said", ["40号", "0号", "周八", "someday", "下周", "", "fridays"])
def test_no_day_is_none(said: str) -> None:
    assert day_named(said, MONDAY) is None


@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 1, 1)), st.integers(0, 6))
def test_a_weekday_is_within_the_week_ahead_and_falls_on_its_day(today: date, weekday: int) -> None:
    said = "周" + "一二三四五六日"[weekday]
    day = day_named(said, today)
    assert day is not None and day.weekday() == weekday and today <= day < today + timedelta(days=7)
    after = day_named("下" + said, today)
    assert after is not None and after.weekday() == weekday and 7 - today.weekday() <= (after - today).days < 14
