"""How long a prepaid balance lasts, as the runway line says it: hours under two days, days with their hours from
then on (`autodl 还能用几天` was answered "133 小时")."""

from __future__ import annotations

import pytest

from bot.text import Lang
from bot.text.runway import lasts_said


@pytest.mark.parametrize(
    ("hours", "zh", "en"),
    [(0.42, "0.4 小时", "0.4 h"), (23.4, "23 小时", "23 h"), (47.9, "48 小时", "48 h"),
     (48, "2 天（48 小时）", "2 days (48 h)"), (133, "5.5 天（133 小时）", "5.5 days (133 h)")],
)  # fmt: skip
def test_a_runway_is_said_in_days_from_two_days_on(hours: float, zh: str, en: str) -> None:
    assert lasts_said(hours, Lang.ZH) == zh and lasts_said(hours, Lang.EN) == en
