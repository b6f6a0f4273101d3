"""`remind pause`'s words to the first day the digest comes again (bot/app/remind_pause.py): a day alone is the last
without it, `until` a day or `之前` the first with it, a week skipped back on the Monday after."""

from __future__ import annotations

from datetime import date

import pytest

from bot.app.remind_pause import resume_day

MONDAY = date(2026, 11, 30)


@pytest.mark.parametrize(
    ("words", "resumes"),
    [
        (["明天"], date(2026, 12, 2)),
        (["tomorrow"], date(2026, 12, 2)),
        (["今天"], date(2026, 12, 1)),
        (["until", "周五"], date(2026, 12, 4)),
        (["周五之前"], date(2026, 12, 4)),
        (["until", "monday"], date(2026, 12, 7)),  # said on a Monday: next week's
        (["until", "今天"], MONDAY),  # refused by the pause as no day after today
        (["这周"], date(2026, 12, 7)),
        (["下周"], date(2026, 12, 14)),
        (["this", "week"], date(2026, 12, 7)),
        ([], None),
        (["春节"], None),
    ],
)
def test_the_day_a_pause_ends(words: list[str], resumes: date | None) -> None:
    assert resume_day(words, MONDAY) == resumes
