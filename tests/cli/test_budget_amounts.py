"""A budget's currency sign is its currency, never dropped (issue 34.7d: `budget bp $500` stored ¥500); a sign that
disagrees with --currency, an amount below 1 (1e-320), nan and inf are refused naming what is accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.fields.rentals import budget_money
from tests.support.cli import run_cli


@pytest.mark.parametrize(
    ("typed", "currency", "found"),
    [
        ("$500", None, (500.0, "USD")),
        ("¥20,000", None, (20000.0, "CNY")),
        ("￥300", "cny", (300.0, "CNY")),
        ("800", "USD", (800.0, "USD")),
        ("800", None, (800.0, "CNY")),
        ("$500", "CNY", None),
        ("1e-320", None, None),
        ("0.5", None, None),
        ("nan", None, None),
        ("inf", None, None),
        ("1e12", None, None),
    ],
)
def test_a_budget_as_typed(typed: str, currency: str | None, found: tuple[float, str] | None) -> None:
    assert budget_money(typed, currency) == found


def test_the_terminal_keeps_dollars_as_dollars_and_refuses_a_disagreement(tmp_path: Path) -> None:
    env = {"GPU_ADVISOR_LANG": "en"}
    done = run_cli("budget", "bp", "$500", "--team", "T1", env=env, tmp=tmp_path)
    assert done.returncode == 0 and "$500 a month" in done.stdout
    [row] = json.loads(run_cli("budget", "--team", "T1", "--json", env=env, tmp=tmp_path).stdout)
    assert (row["amount"], row["currency"]) == (500, "USD")
    clash = run_cli("budget", "bp", "$500", "--currency", "CNY", "--team", "T1", env=env, tmp=tmp_path)
    assert clash.returncode == 2 and "must agree with --currency" in clash.stderr
    tiny = run_cli("budget", "bp", "1e-320", "--team", "T1", env={"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path)
    assert tiny.returncode == 2 and "1 到一万亿" in tiny.stderr
