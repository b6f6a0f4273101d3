"""Issue 33.3: the Chinese reply to `remind at 09:30 mon-fri` says the days in Chinese, not `mon-fri`."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.app.rentals import days_said, schedule_text
from bot.text import Lang
from rules.remind_schedule import RemindSchedule, parse_at, parse_days


def plan(days: str) -> RemindSchedule:
    return RemindSchedule(parse_at("09:30"), "Asia/Shanghai", parse_days(days), True, None)


def test_days_in_chinese_and_as_typed_in_english() -> None:
    assert days_said(plan("mon-fri"), Lang.ZH) == "周一至周五"
    assert days_said(plan("mon,wed,fri"), Lang.ZH) == "周一、周三、周五"
    assert days_said(plan("daily"), Lang.ZH) == "每天"
    assert days_said(plan("mon-fri"), Lang.EN) == "mon-fri"
    said = schedule_text(plan("mon-fri"), datetime(2026, 11, 30, 1, tzinfo=UTC), Lang.ZH, Lang.ZH)
    assert "周一至周五" in said and "mon-fri" not in said
