"""Times to come as people type them (bot/fields/coming.py), for a stop asked for at a time (`stop NAME at=…`, the
terminal's `stop NAME --at`, `训练机 明天早上9点关`): the clock is given, so nothing here depends on when or where
the tests run."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.fields.coming import MOST_AHEAD, coming_moment, says_a_time
from bot.fields.rentals import FieldError
from bot.text import Lang

SHANGHAI = ZoneInfo("Asia/Shanghai")
NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 12, 7, 14, 0, tzinfo=UTC)  # 22:00 in Shanghai


@settings(max_examples=300, deadline=None)
@given(
    now=st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 1, 1), timezones=st.just(UTC)),
    hour=st.integers(0, 23),
    minute=st.integers(0, 59),
)
def test_a_time_of_day_is_the_next_such_time(now: datetime, hour: int, minute: int) -> None:
    moment = coming_moment(f"{hour}:{minute:02d}", Lang.EN, now, NEW_YORK)
    assert now < moment and moment - now <= timedelta(hours=25)  # a day, and the hour a clock change adds
    local = moment.astimezone(NEW_YORK)
    if datetime.combine(local.date(), local.time()).replace(tzinfo=NEW_YORK).astimezone(UTC) == moment:
        assert (local.hour, local.minute) == (hour, minute)  # unless the time fell in a skipped hour


@pytest.mark.parametrize(
    ("typed", "local"),
    [
        ("23:00", "2026-12-07 23:00"),  # later today
        ("9点", "2026-12-08 09:00"),  # earlier than now: tomorrow's
        ("晚上10点", "2026-12-08 22:00"),
        ("9pm", "2026-12-08 21:00"),
        ("今晚11点", "2026-12-07 23:00"),
        ("今晚12点", "2026-12-08 00:00"),  # the midnight that ends tonight
        ("tonight 11pm", "2026-12-07 23:00"),
        ("明天9点", "2026-12-08 09:00"),
        ("明天早上9点", "2026-12-08 09:00"),
        ("明早9点", "2026-12-08 09:00"),
        ("明晚10点", "2026-12-08 22:00"),
        ("tomorrow 9am", "2026-12-08 09:00"),
        ("tomorrow at 9:00", "2026-12-08 09:00"),
        ("后天9点", "2026-12-09 09:00"),
        ("in 2h", "2026-12-08 00:00"),
        ("2h later", "2026-12-08 00:00"),
        ("2小时后", "2026-12-08 00:00"),
        ("两个小时以后", "2026-12-08 00:00"),
        ("半小时后", "2026-12-07 22:30"),
        ("12-08 9:00", "2026-12-08 09:00"),
        ("12月8日 9点", "2026-12-08 09:00"),
        ("2026-12-08 09:00", "2026-12-08 09:00"),
        ("2026-12-08T09:00", "2026-12-08 09:00"),
    ],
)
def test_each_way_of_saying_a_time_to_come(typed: str, local: str) -> None:
    moment = coming_moment(typed, Lang.ZH, NOW, SHANGHAI)
    assert f"{moment.astimezone(SHANGHAI):%Y-%m-%d %H:%M}" == local


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("yesterday 9:00", "is not a time to come"),  # a past day's words are not read here
        ("12-07 09:00", "has passed"),  # today's date, at an hour gone
        ("12-01", "more than 31 days off"),  # the next 1 December is next year's
        ("in 40d", "more than 31 days off"),
        ("2h", "is not a time to come"),  # a length alone is no time: it may be a run's
        ("soon", "is not a time to come"),
        ("明天", "is not a time to come"),  # a day without its time
        ("0001-01-01T00:00+14:00", "has passed"),  # no local time says it: said as typed (an OverflowError)
        ("9999-12-31T23:59-12:00", "more than 31 days off"),
    ],
)
def test_a_time_not_to_come_is_refused_saying_what_is_taken(typed: str, said: str) -> None:
    with pytest.raises(FieldError) as refused:
        coming_moment(typed, Lang.EN, NOW, SHANGHAI)
    assert said in refused.value.message and refused.value.field == "at"
    if "not a time" in said:
        assert "tomorrow 9am" in refused.value.message and "in 2h" in refused.value.message


def test_the_furthest_is_a_month_and_words_are_told_from_times() -> None:
    assert coming_moment("in 31d", Lang.EN, NOW, SHANGHAI) == NOW + MOST_AHEAD
    assert says_a_time("明天早上9点") and says_a_time("in 2 hours") and not says_a_time("训练机2")


@settings(max_examples=300, deadline=None)
@given(
    moment=st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59)),
    offset=st.integers(-14 * 60, 14 * 60),
)
@example(moment=datetime(1, 1, 1), offset=14 * 60)  # no local time says these: they were an OverflowError
@example(moment=datetime(9999, 12, 31, 23, 59), offset=-12 * 60)
def test_any_iso_time_with_any_offset_is_taken_or_refused_never_a_crash(moment: datetime, offset: int) -> None:
    text = f"{moment:%Y-%m-%dT%H:%M}{'+' if offset >= 0 else '-'}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"
    try:
        taken = coming_moment(text, Lang.EN, NOW, SHANGHAI)
    except FieldError as refused:
        assert refused.field == "at" and refused.message
        return
    assert NOW < taken <= NOW + MOST_AHEAD
