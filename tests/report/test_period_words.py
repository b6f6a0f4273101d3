"""`report …` periods as a team types them (bot/app/report.py): the week words, this and last month, and a month
with or without its year ("11月" was refused; only YYYY-MM read). The day is given: nothing depends on today."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.app.invocation import CommandError
from bot.app.report import period
from bot.text import Lang

TODAY = date(2026, 3, 15)  # a Sunday


@pytest.mark.parametrize(
    ("said", "span"),
    [
        ("", (date(2026, 3, 2), date(2026, 3, 8))),
        ("上周", (date(2026, 3, 2), date(2026, 3, 8))),
        ("本周", (date(2026, 3, 9), TODAY)),
        ("本月", (date(2026, 3, 1), TODAY)),
        ("this-month", (date(2026, 3, 1), TODAY)),
        ("上个月", (date(2026, 2, 1), date(2026, 2, 28))),
        ("last-month", (date(2026, 2, 1), date(2026, 2, 28))),
        ("3月", (date(2026, 3, 1), date(2026, 3, 31))),
        ("11月", (date(2025, 11, 1), date(2025, 11, 30))),  # no year: the last November up to now
        ("2026年1月", (date(2026, 1, 1), date(2026, 1, 31))),
        ("2026-01", (date(2026, 1, 1), date(2026, 1, 31))),
        # in words with spaces, a month by its English name, and the days up to today: refused before
        # a day back from today (how much did we spend today: "'today' is not a period" before)
        ("today", (TODAY, TODAY)),
        ("今天", (TODAY, TODAY)),
        ("Yesterday", (date(2026, 3, 14), date(2026, 3, 14))),
        ("前天", (date(2026, 3, 13), date(2026, 3, 13))),
        ("last week", (date(2026, 3, 2), date(2026, 3, 8))),
        ("this  week", (date(2026, 3, 9), TODAY)),
        ("this month", (date(2026, 3, 1), TODAY)),
        ("last month", (date(2026, 2, 1), date(2026, 2, 28))),
        ("november", (date(2025, 11, 1), date(2025, 11, 30))),
        ("nov 2026", (date(2026, 11, 1), date(2026, 11, 30))),
        ("sept", (date(2025, 9, 1), date(2025, 9, 30))),
        ("march", (date(2026, 3, 1), date(2026, 3, 31))),
        ("最近7天", (date(2026, 3, 9), TODAY)),
        ("近 30 天", (date(2026, 2, 14), TODAY)),
        ("过去一周", (date(2026, 3, 9), TODAY)),
        ("最近两周", (date(2026, 3, 2), TODAY)),
        ("近一个月", (date(2026, 2, 16), TODAY)),
        ("last 7 days", (date(2026, 3, 9), TODAY)),
        ("the past two weeks", (date(2026, 3, 2), TODAY)),
        ("past month", (date(2026, 2, 16), TODAY)),
    ],
)
def test_a_period_as_typed(said: str, span: tuple[date, date]) -> None:
    assert period(said, TODAY, Lang.ZH) == span


@pytest.mark.parametrize(
    "said", ["13月", "lastweek", "2026-13", "最近0天", "last 99999 days", "novembre", "last x days"]
)
def test_what_is_not_a_period_is_refused_naming_the_words(said: str) -> None:
    with pytest.raises(CommandError) as refused:
        period(said, TODAY, Lang.ZH)
    assert "上个月" in str(refused.value) and "11月" in str(refused.value) and "最近7天" in str(refused.value)


def test_months_back_end_on_the_shorter_months_last_day() -> None:
    from rules.periods import rolling_span

    assert rolling_span("近一个月", date(2026, 3, 31)) == (date(2026, 3, 1), date(2026, 3, 31))  # from Feb 28's next
    assert rolling_span("last 12 months", date(2024, 2, 29)) == (date(2023, 3, 1), date(2024, 2, 29))


def test_a_period_in_several_words_is_read_through_the_chat(tmp_path: Path) -> None:
    """The chat's `report` read its first word alone: `report last 7 days` was refused naming "last"."""
    from tests.chat.test_both_platforms import driving

    with driving("slack", tmp_path) as chat:
        today = chat.deps.now().astimezone(ZoneInfo("Asia/Shanghai")).date()
        start = today - timedelta(days=6)
        assert f"{start:%m-%d}" in chat.command("report last 7 days")
        assert f"{start:%m-%d}" in chat.command("报告 最近 7 天")
