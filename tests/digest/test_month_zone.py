"""Issue 34.10: one month, one zone. The digest counted the month from 00:00 UTC while budgets, alerts and App Home
count it from 00:00 in the digest's zone: the same project at the same minute showed two figures. Now every month
figure of a channel's digest counts from 00:00 in that channel's digest zone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.digest.send import digests
from bot.state import Store
from bot.state.budgets import Budgets
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from rules.budget import standings
from rules.policy import load_policy
from tests.support.state_template import migrated_state_db

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 11, 30, 22, tzinfo=UTC)  # 06:00 on 1 December in Shanghai: a new month there, not in UTC


def test_the_digest_and_the_budget_count_the_same_month(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
    rentals = Rentals(store)
    started = NOW - timedelta(days=2)
    fields = {"channel": "C1", "owner": "U1", "gpu": "A100-80GB", "cards": 1, "price": 10.0, "unit": "hour"}
    rentals.track_instance("T1", "box-1", fields | {"currency": "CNY", "project": "llm", "started_at": started})
    Budgets(store).put("T1", "llm", 1000.0, "CNY", "U1", NOW)
    policy = load_policy()
    local = digests(rentals, "T1", ["C1"], NOW, policy.idle, policy.metering, SHANGHAI)["C1"]
    utc = digests(rentals, "T1", ["C1"], NOW, policy.idle, policy.metering, ZoneInfo("UTC"))["C1"]
    instances = rentals.instances("T1")
    timelines = PowerLog(store).this_month(instances, NOW)
    [budget] = standings(instances, [], Budgets(store).of("T1"), NOW.astimezone(SHANGHAI), timelines=timelines)
    [spend] = local.spend
    assert spend.amount == budget.spent == 60.0  # 6 hours of December in Shanghai, at 10 an hour
    assert [s.amount for s in utc.spend] == [480.0]  # the UTC month (still November) is another figure
