"""One figure everywhere (issue 52): an item whose price changed mid-month reads the same money in the report (its
rows added up), the budget's spent, the digest's month and the balance's spent, each billing every hour at the
price it had. The report billed every day at today's price before."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from bot.report.compose import compose
from bot.state import Store
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from rules import metering
from rules.budget import standings
from rules.digest import spent_this_month
from rules.runway import runway
from tests.support.state_template import migrated_state_db

START = datetime(2026, 12, 1, tzinfo=UTC)
NOW = datetime(2026, 12, 4, tzinfo=UTC)  # midnight: the report's whole days end here
FIELDS = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "hour", "price": 10.0, "currency": "CNY",
          "channel": "C1", "owner": "U1", "project": "llm", "provider": "autodl"}  # fmt: skip


def test_a_price_changed_mid_month_reads_the_same_money_everywhere(tmp_path: Path) -> None:
    store = Store(migrated_state_db(tmp_path / "state.db"))
    rentals = Rentals(store)
    rentals.track_instance("T1", "box", FIELDS | {"started_at": START})
    rentals.set_price("T1", "box", 20.0, "hour", "U1", START + timedelta(hours=36))
    [box] = rentals.instances("T1")
    timelines = PowerLog(store).timelines([box], NOW)
    expected = 36 * 10.0 + 36 * 20.0  # each hour at the price it had
    made = compose(rentals, "T1", date(2026, 12, 1), date(2026, 12, 3), zone=ZoneInfo("UTC"), now=NOW,
                   busy_above_pct=5)  # fmt: skip
    in_report = sum(r.cost for r in made.rows if r.item == "box")
    [budget] = standings([box], [], {("llm", "CNY"): 5000.0}, NOW, timelines=timelines)
    wallet = SimpleNamespace(provider="autodl", amount=5000.0, currency="CNY", at=START, source="typed")
    left = runway(wallet, [box], timelines, NOW).left
    assert in_report == pytest.approx(expected)
    assert budget.spent == pytest.approx(expected)
    assert spent_this_month(box, NOW, timelines) == pytest.approx(expected)
    assert 5000.0 - left == pytest.approx(expected)


def test_a_box_switched_to_monthly_bills_its_hours_before_and_a_month_from_the_switch(tmp_path: Path) -> None:
    """`box 改成包月 38000` after 36 hours at ¥10: those hours stay hourly (¥360) and a month begins at the switch
    (¥38,000). The hours before were billed as a month at the hourly price × 720 (¥7,200) from the box's start, and
    the month switched to was never billed, since no month began after the switch."""
    store = Store(migrated_state_db(tmp_path / "state.db"))
    rentals = Rentals(store)
    rentals.track_instance("T1", "box", FIELDS | {"started_at": START})
    switched = START + timedelta(hours=36)
    rentals.set_price("T1", "box", 38000.0, "month", "U1", switched)
    rentals.set_billing("T1", "box", billing="month")
    [box] = rentals.instances("T1")
    timelines = PowerLog(store).timelines([box], NOW)
    expected = 36 * 10.0 + 38000.0
    made = compose(rentals, "T1", date(2026, 12, 1), date(2026, 12, 3), zone=ZoneInfo("UTC"), now=NOW,
                   busy_above_pct=5)  # fmt: skip
    assert sum(r.cost for r in made.rows if r.item == "box") == pytest.approx(expected)
    [budget] = standings([box], [], {("llm", "CNY"): 50000.0}, NOW, timelines=timelines)
    assert budget.spent == pytest.approx(expected)
    assert spent_this_month(box, NOW, timelines) == pytest.approx(expected)
    wallet = SimpleNamespace(provider="autodl", amount=50000.0, currency="CNY", at=START, source="typed")
    assert 50000.0 - runway(wallet, [box], timelines, NOW).left == pytest.approx(expected)
    assert metering.period_end(box, NOW) == switched + timedelta(days=31)  # its next month: 01-02 12:00
