"""A month outside what a report can cover is refused naming the accepted range, in the terminal and in chat
(issue 34.7: 0001-01 and 9999-12 ended in "unexpected error", 0000-01 is not a date at all)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from bot.app.invocation import CommandError as RentalCommandError
from bot.app.report import period
from bot.text import Lang
from tests.support.cli import run_cli


@pytest.mark.parametrize("month", ["0001-01", "9999-12", "1999-12", "2100-01"])
def test_the_terminal_refuses_a_month_out_of_range_naming_it(tmp_path: Path, month: str) -> None:
    done = run_cli("report", "--month", month, "--team", "T1", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert done.returncode == 2, done.stderr
    assert f"--month: '{month}' is outside the months a report covers: 2000-01 to 2099-12" in done.stderr
    far = run_cli("report", "--from", f"{month}-01", "--to", "2026-01-01", "--team", "T1", tmp=tmp_path)
    assert far.returncode == 2 and "2000-01 to 2099-12" in far.stderr


def test_0000_01_is_no_date_and_a_good_month_still_reports(tmp_path: Path) -> None:
    zero = run_cli("report", "--month", "0000-01", "--team", "T1", env={"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path)
    assert zero.returncode == 2 and "不是日期" in zero.stderr
    fine = run_cli("report", "--month", "2026-11", "--team", "T1", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert fine.returncode == 0, fine.stderr


@pytest.mark.parametrize("text", ["0000-01", "0001-01", "9999-12"])
def test_chat_refuses_it_in_the_users_language(text: str) -> None:
    with pytest.raises(RentalCommandError) as caught:
        period(text, date(2026, 12, 2), Lang.ZH)
    assert "超出报告可查的月份：2000-01 至 2099-12" in str(caught.value)
    assert period("2026-11", date(2026, 12, 2), Lang.EN) == (date(2026, 11, 1), date(2026, 11, 30))


def test_the_terminal_month_takes_what_chat_takes(tmp_path: Path) -> None:
    """`--month` took YYYY-MM only, while chat's `report` reads 11月, 2026年11月, this-month and last-month."""
    for said in ("2026年11月", "last-month", "this-month", "上个月"):
        done = run_cli(
            "report", "--month", said, "--json", "--team", "T1", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path
        )
        assert done.returncode == 0, (said, done.stderr)
        if said == "2026年11月":
            assert json.loads(done.stdout)["period"] == {"from": "2026-11-01", "to": "2026-11-30"}
    bad = run_cli("report", "--month", "13月", "--team", "T1", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert bad.returncode == 2 and "11月, this-month or last-month" in bad.stderr


def test_the_terminal_takes_the_period_as_chat_says_it(tmp_path: Path) -> None:
    """`gpu-advise report last-week` (chat's `report [last-week|this-month|…]`) was "more than the command takes":
    the period said is the days chat's report covers, as the same function reads them."""
    env = {"GPU_ADVISOR_LANG": "en", "GPU_ADVISOR_REMIND_TZ": "UTC"}
    said = run_cli("report", "2026-11", "--json", "--team", "T1", env=env, tmp=tmp_path)
    assert said.returncode == 0 and json.loads(said.stdout)["period"] == {"from": "2026-11-01", "to": "2026-11-30"}
    for words in (["last-week"], ["this-month"], ["上周"], ["last", "7", "days"]):
        done = run_cli("report", *words, "--json", "--team", "T1", env=env, tmp=tmp_path)
        today = datetime.now(UTC).date()  # the command's today, on the clock it was given
        assert done.returncode == 0, (words, done.stderr)
        start, end = period(" ".join(words), today, Lang.EN)
        assert json.loads(done.stdout)["period"] == {"from": start.isoformat(), "to": end.isoformat()}, words
    both = run_cli("report", "last-week", "--month", "2026-11", "--team", "T1", env=env, tmp=tmp_path)
    assert both.returncode == 2 and "give one period" in both.stderr
    bad = run_cli("report", "哈哈", "--team", "T1", env=env, tmp=tmp_path)
    assert bad.returncode == 2 and "'哈哈' is not a period" in bad.stderr and "--month YYYY-MM" in bad.stderr
    assert "report off" not in bad.stderr  # chat's switch, not the terminal's
