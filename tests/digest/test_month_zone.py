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


def test_one_channels_digest_says_the_figures_the_whole_teams_digest_says_for_it(tmp_path: Path) -> None:
    """A card sent again after a press composes one channel's digest: it counts only the items of that channel's
    projects and providers, and says the same spend, forecasts and runways as the team's digest says there."""
    from bot.state.balances import Balances

    store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
    rentals = Rentals(store)
    fields = {"owner": "U1", "gpu": "A100-80GB", "cards": 1, "price": 10.0, "unit": "hour", "currency": "CNY",
              "started_at": NOW - timedelta(days=3)}  # fmt: skip
    layout = [("a", "C1", "llm", "autodl"), ("b", "C2", "llm", None), ("c", "C2", "cv", None),
              ("d", "C3", "ops", "autodl"), ("e", "C3", "ops", None)]  # fmt: skip
    for name, channel, project, provider in layout:
        rentals.track_instance("T1", name, fields | {"channel": channel, "project": project, "provider": provider})
    for project, amount in (("llm", 100.0), ("cv", 10.0), ("ops", 50.0)):
        Budgets(store).put("T1", project, amount, "CNY", "U1", NOW)
    Balances(store).record("T1", "autodl", 900.0, "CNY", NOW - timedelta(days=1), NOW, by="U1")
    policy = load_policy()
    team = digests(rentals, "T1", ["C1", "C2", "C3"], NOW, policy.idle, policy.metering, SHANGHAI)
    for channel in ("C1", "C2", "C3"):
        alone = digests(rentals, "T1", [channel], NOW, policy.idle, policy.metering, SHANGHAI)[channel]
        assert alone.spend == team[channel].spend and alone.runways == team[channel].runways
    assert {s.project for s in team["C1"].spend} == {"llm"}  # b of C2 counted in llm's spend
    assert [s.amount for s in team["C1"].spend] == [120.0]  # 6 hours of December in Shanghai, a and b at 10
    assert [r.provider for r in team["C3"].runways] == ["autodl"]  # a of C1 burns the same balance
