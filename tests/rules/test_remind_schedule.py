"""When a digest is due: working days, local time, daylight saving, the local day's end."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from rules.errors import ParseError
from rules.remind_schedule import RemindSchedule, days_text, is_due, next_send, parse_at, parse_days, parse_zone

WEEKDAYS = frozenset(range(5))
SHANGHAI = RemindSchedule(time(9, 30), "Asia/Shanghai", WEEKDAYS)
NEW_YORK = RemindSchedule(time(9, 30), "America/New_York", WEEKDAYS)


def test_due_from_the_local_time_until_the_local_day_ends() -> None:
    # Monday 2026-11-30: 09:29 and 09:30 in Shanghai are 01:29 and 01:30 UTC
    assert not is_due(SHANGHAI, datetime(2026, 11, 30, 1, 29, tzinfo=UTC))
    assert is_due(SHANGHAI, datetime(2026, 11, 30, 1, 30, tzinfo=UTC))
    assert is_due(SHANGHAI, datetime(2026, 11, 30, 15, 59, tzinfo=UTC))  # 23:59 local: still that day (catch-up)
    assert not is_due(SHANGHAI, datetime(2026, 11, 28, 3, 0, tzinfo=UTC))  # a Saturday
    assert not is_due(
        RemindSchedule(time(9, 30), "Asia/Shanghai", WEEKDAYS, enabled=False), datetime(2026, 11, 30, 3, 0, tzinfo=UTC)
    )


def test_a_paused_digest_comes_again_on_the_day_it_resumes() -> None:
    """Paused until Thursday 12-03 (local): not due Monday to Wednesday, due Thursday; the next send is Thursday's,
    and past a weekend the Monday after it."""
    paused = replace(SHANGHAI, resume_on=date(2026, 12, 3))
    monday = datetime(2026, 11, 30, 3, 0, tzinfo=UTC)  # 11:00 in Shanghai
    assert is_due(SHANGHAI, monday) and not is_due(paused, monday)
    assert not is_due(paused, datetime(2026, 12, 2, 15, 59, tzinfo=UTC))  # Wednesday 23:59 local
    assert is_due(paused, datetime(2026, 12, 3, 1, 30, tzinfo=UTC))  # Thursday 09:30 local
    assert next_send(paused, monday) == datetime(2026, 12, 3, 9, 30, tzinfo=ZoneInfo("Asia/Shanghai"))
    weekend = replace(SHANGHAI, resume_on=date(2026, 12, 5))  # a Saturday: the Monday after it
    assert next_send(weekend, monday) == datetime(2026, 12, 7, 9, 30, tzinfo=ZoneInfo("Asia/Shanghai"))


def test_daylight_saving_moves_new_york_in_utc_and_not_shanghai() -> None:
    # New York leaves daylight saving on Sunday 2026-11-01: 09:30 is 13:30 UTC before, 14:30 UTC after
    assert next_send(NEW_YORK, datetime(2026, 10, 29, 14, 0, tzinfo=UTC)) == datetime(2026, 10, 30, 13, 30, tzinfo=UTC)
    assert next_send(NEW_YORK, datetime(2026, 10, 30, 14, 0, tzinfo=UTC)) == datetime(2026, 11, 2, 14, 30, tzinfo=UTC)
    assert next_send(SHANGHAI, datetime(2026, 10, 30, 2, 0, tzinfo=UTC)) == datetime(2026, 11, 2, 1, 30, tzinfo=UTC)
    assert not is_due(NEW_YORK, datetime(2026, 11, 2, 14, 0, tzinfo=UTC))  # 09:00 local after the change
    assert is_due(NEW_YORK, datetime(2026, 11, 2, 14, 30, tzinfo=UTC))


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("mon-fri", WEEKDAYS),
        ("daily", frozenset(range(7))),
        ("mon,wed,fri", frozenset({0, 2, 4})),
        ("工作日", WEEKDAYS),
        ("周一-周五", WEEKDAYS),
        ("fri-mon", frozenset({4, 5, 6, 0})),
        ("周末", frozenset({5, 6})),
        ("weekends", frozenset({5, 6})),
        ("天天", frozenset(range(7))),
        ("每个工作日", WEEKDAYS),
        ("每个周末", frozenset({5, 6})),
    ],
)
def test_days(text: str, days: frozenset[int]) -> None:
    assert parse_days(text) == days


@pytest.mark.parametrize("said", ["北京时间", "东八区", "UTC+8", "Beijing", "Asia/Shanghai"])
def test_the_clock_of_china_as_people_name_it(said: str) -> None:
    assert parse_zone(said) == "Asia/Shanghai"


def test_days_text_and_times() -> None:
    assert days_text(WEEKDAYS) == "mon-fri" and days_text(frozenset({0, 2})) == "mon,wed"
    assert parse_at("9:30") == time(9, 30) and parse_at("0930") == time(9, 30)
    assert parse_at("早上九点") == time(9) and parse_at("晚上八点半") == time(20, 30)  # not understood before


@pytest.mark.parametrize(
    ("parse", "text"),
    [
        (parse_at, "25:00"),
        (parse_at, "morning"),
        (parse_zone, "Mars/Base"),
        (parse_days, "someday"),
        (parse_zone, "../etc/passwd"),
    ],
)
def test_bad_input_says_what_is_accepted(parse: object, text: str) -> None:
    with pytest.raises(ParseError) as err:
        parse(text)  # type: ignore[operator]
    assert err.value.accepted


def test_an_hour_past_the_day_says_so() -> None:
    """25:00 was refused as "not understood"."""
    for said in ("25:00", "9:75", "2400"):
        with pytest.raises(ParseError) as caught:
            parse_at(said)
        assert caught.value.problem == "not_a_time_of_day", said
    with pytest.raises(ParseError) as caught:
        parse_at("noon-ish")
    assert caught.value.problem is None


@pytest.mark.parametrize(
    ("said", "at"),
    [("nine thirty", time(9, 30)), ("half past nine", time(9, 30)), ("quarter to eight", time(7, 45)),
     ("nine pm", time(21, 0)), ("eleven forty-five pm", time(23, 45)), ("seven in the evening", time(19, 0)),
     ("nine oh five", time(9, 5)), ("twenty past ten", time(10, 20)), ("nine o'clock", time(9, 0)),
     ("noon", time(12, 0)), ("midnight", time(0, 0)), ("twelve am", time(0, 0)), ("9.30", time(9, 30)),
     ("21.45", time(21, 45))],
)  # fmt: skip
def test_a_clock_in_english_words_or_a_dot_apart(said: str, at: time) -> None:
    """`remind at nine thirty` and `remind 9.30` were refused: only figures and Chinese numerals were read."""
    assert parse_at(said) == at


@pytest.mark.parametrize("said", ["nine", "thirteen", "nine ninety", "9.75", "half past"])
def test_what_says_no_clock_in_english_words_is_refused(said: str) -> None:
    with pytest.raises(ParseError):
        parse_at(said)


@pytest.mark.parametrize(
    ("said", "days"),
    [("周一三五", {0, 2, 4}), ("每周二、四", {1, 3}), ("星期六日", {5, 6}), ("weekday", {0, 1, 2, 3, 4}),
     ("every weekend", {5, 6}), ("mondays and thursdays", {0, 3}), ("周一和周四", {0, 3})],
)  # fmt: skip
def test_days_listed_as_people_list_them(said: str, days: set[int]) -> None:
    """周一三五 (Monday, Wednesday and Friday) was refused, and so were days joined by "and"."""
    assert parse_days(said) == frozenset(days)


@pytest.mark.parametrize("said", ["明天", "today", "今晚"])
def test_one_day_is_told_the_digest_comes_on_days_of_the_week(said: str) -> None:
    """`明天早上9点提醒我` was refused as "not understood": the digest has days of the week, and its time alone is
    `remind at`, which the refusal now says."""
    with pytest.raises(ParseError) as caught:
        parse_days(said)
    assert caught.value.problem == "one_day"
    from bot.text import Lang
    from bot.text.errors import parse_error_text

    assert "`remind at 09:00`" in parse_error_text(caught.value, Lang.ZH)
    with pytest.raises(ParseError) as other:
        parse_days("someday")
    assert other.value.problem is None
