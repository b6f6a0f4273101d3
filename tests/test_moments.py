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
    ],
)
def test_each_form_people_type(typed: str, local: str) -> None:
    assert f"{moment_of(typed, Lang.EN, NOW, NEW_YORK).astimezone(NEW_YORK):%Y-%m-%d %H:%M}" == local


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
    ],
)
def test_what_is_not_a_past_time_is_refused_saying_what_is(typed: str, lang: Lang, said: str) -> None:
    with pytest.raises(FieldError) as refused:
        moment_of(typed, lang, NOW, NEW_YORK, field="at")
    assert refused.value.field == "at" and said in refused.value.message
