"""The money examples of docs/billing.md, computed by the code that says them: a half slice's day, a day card's
day, and the runway sentence the digest shows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.text import Lang
from bot.text.runway import runway_line
from rules import metering
from rules.power import Power, Stretch
from rules.runway import runway

PAGE = (Path(__file__).parents[2] / "docs" / "billing.md").read_text(encoding="utf-8")
SHANGHAI = ZoneInfo("Asia/Shanghai")
DAY = datetime(2026, 12, 4, tzinfo=SHANGHAI)


@dataclass(frozen=True)
class Box:
    price: float
    unit: str
    started_at: datetime = DAY
    released_at: datetime | None = None
    id: int = 1
    provider: str = "autodl"
    currency: str = "CNY"


def test_a_half_slice_on_four_hours_costs_56_not_336_and_a_day_card_its_day() -> None:
    slice_ = Box(14.0, "hour")
    on = [
        Stretch(Power.OFF, DAY, DAY + timedelta(hours=9), "person"),
        Stretch(Power.ON, DAY + timedelta(hours=9), DAY + timedelta(hours=13), "agent"),
        Stretch(Power.OFF, DAY + timedelta(hours=13), DAY + timedelta(days=1), "agent"),
    ]
    end = DAY + timedelta(days=1)
    assert metering.cost(slice_, on, DAY, end) == 56.0 and metering.per_hour(slice_) * 24 == 336.0
    assert "costs ¥56 a day, not ¥336" in PAGE
    assert metering.cost(Box(400.0, "day"), on, DAY, end) == 400.0 and "a ¥400/day card\n  ¥400 a day on or off" in PAGE


@dataclass(frozen=True)
class Balance:
    provider: str = "autodl"
    amount: float = 320.0
    currency: str = "CNY"
    at: datetime = DAY
    source: str = "typed"


def test_the_runway_sentence_of_the_page() -> None:
    until = datetime(2026, 12, 5, 14, 0, 30, tzinfo=SHANGHAI)
    now = until - timedelta(hours=320 / 14)
    started = now - timedelta(days=8)  # on for a week and more: the rate is the last 7 days' average
    box = Box(14.0, "hour", started_at=started)  # nothing billed since the balance was read, now
    left = runway(Balance(at=now), [box], {1: [Stretch(Power.ON, started, now, "track")]}, now)
    line = runway_line(left, Lang.EN, SHANGHAI)
    expected = "autodl: about ¥320 left, about 23 h at the average rate of the last 7 days (¥14/h), until 12-05 14:00"
    assert line == expected + " Asia/Shanghai"
    assert line in PAGE.replace("\n  ", " ")  # the page says it word for word (wrapped)


def test_a_runway_says_what_its_average_covers() -> None:
    """The rate was said to be "the average of the last 7 days" for a box rented minutes or hours ago."""

    now = datetime(2026, 12, 5, 14, 0, tzinfo=SHANGHAI)
    for started, said in [
        (now, "at the rate billed now (¥14/h)"),
        (now - timedelta(days=2), "at the average rate since its items started, 2 days ago (¥14/h)"),
        (now - timedelta(days=30), "at the average rate of the last 7 days (¥14/h)"),
    ]:
        box = Box(14.0, "hour", started_at=started)
        left = runway(Balance(at=now), [box], {1: [Stretch(Power.ON, started, now, "track")]}, now)
        assert said in runway_line(left, Lang.EN, SHANGHAI), started
