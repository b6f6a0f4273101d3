"""`report …` periods as a team types them (bot/app/report.py): the week words, this and last month, and a month
with or without its year ("11月" was refused; only YYYY-MM read). The day is given: nothing depends on today."""

from __future__ import annotations

from datetime import date

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
    ],
)
def test_a_period_as_typed(said: str, span: tuple[date, date]) -> None:
    assert period(said, TODAY, Lang.ZH) == span


@pytest.mark.parametrize("said", ["13月", "lastweek", "2026-13"])
def test_what_is_not_a_period_is_refused_naming_the_words(said: str) -> None:
    with pytest.raises(CommandError) as refused:
        period(said, TODAY, Lang.ZH)
    assert "上个月" in str(refused.value) and "11月" in str(refused.value)
