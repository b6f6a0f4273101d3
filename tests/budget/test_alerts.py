"""Budgets that alert: the forecast's arithmetic, one message per project, threshold and month (the highest
when several are crossed at once), given back when no channel could be told; the digest says a forecast over
budget before the threshold; `gpu-advise budget` in the terminal."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.digest.budget_alerts import check_budgets
from bot.slack.client import YieldingClient
from bot.slack.teller import SlackTeller
from bot.state import Store
from bot.state.budgets import Budgets
from bot.state.rentals import Instance, Rentals
from bot.text import Lang
from bot.text.spans import plain_text
from rules.budget import crossed, standings
from tests.support.cli import run_cli
from tests.support.fake_slack import fake_slack
from tests.support.state_template import migrated_state_db

NOW = datetime(2026, 12, 10, 4, tzinfo=UTC)  # 12:00 in Shanghai, 10 December
SHANGHAI = ZoneInfo("Asia/Shanghai")
THRESHOLDS = (50.0, 80.0, 100.0)


def box(
    name: str,
    *,
    price: float = 400.0,
    started: datetime = NOW - timedelta(days=2),
    project: str = "llm",
    released: datetime | None = None,
    billing: str | None = "hourly",  # a day's price billed by the hour while it runs (here: all the time)
) -> Instance:
    made = Instance(1, "T1", name, "C1", "U1", project, "A100-80GB", 1, None, "day", price, "CNY", started, released)
    return replace(made, billing=billing)


def test_spend_forecast_and_thresholds_add_up() -> None:
    running, done = box("a"), box("b", price=100.0, released=NOW - timedelta(days=1))
    [standing] = standings([running, done], [], {("llm", "CNY"): 1000.0}, NOW.astimezone(SHANGHAI))
    assert standing.spent == 900.0  # 400 x 2 days + 100 x 1 day
    days_left = (datetime(2027, 1, 1, tzinfo=SHANGHAI) - NOW).total_seconds() / 86400  # 21.5
    assert standing.forecast == round(900 + 400 * days_left, 2) == 9500.0
    assert standing.month_end.isoformat() == "2026-12-31" and standing.top == (("a", 800.0), ("b", 100.0))
    assert crossed(standing, THRESHOLDS) == [50.0, 80.0] and round(standing.over_pct) == 850


def test_a_day_card_bills_each_day_started_and_forecasts_its_renewals() -> None:
    card = box("a", billing=None, started=NOW - timedelta(days=2, hours=1))  # 400/day, two days and an hour in
    [standing] = standings([card], [], {("llm", "CNY"): 1000.0}, NOW.astimezone(SHANGHAI))
    assert standing.spent == 1200.0  # three periods started: 03:00 UTC Dec 8, 9 and 10
    # renewals at 03:00 UTC Dec 11..31 (Dec 31 03:00 UTC is 11:00 in Shanghai, before the month's end): 21
    assert standing.forecast == 1200.0 + 400 * 21


def test_one_alert_per_threshold_and_month_the_highest_when_several(tmp_path: Path) -> None:
    store = Store(migrated_state_db(tmp_path / "state.db"))
    rentals = Rentals(store)
    fields = {
        "gpu": "A100-80GB",
        "cards": 1,
        "share": None,
        "unit": "day",
        "price": 400.0,
        "currency": "CNY",
        "owner": "U1",
        "project": "llm",
        "billing": "hourly",  # a day's price billed by the hour: the alerts' arithmetic in hours
    }
    rentals.track_instance("T1", "a", fields | {"channel": "C1", "started_at": NOW - timedelta(days=2)})
    rentals.track_instance("T1", "b", fields | {"channel": "C2", "started_at": NOW - timedelta(hours=1)})
    Budgets(store).put("T1", "llm", 1000.0, "CNY", "U1", NOW)
    with fake_slack() as fake:
        client = YieldingClient(token="xoxb-test", base_url=fake.api_url)

        def check(now: datetime) -> list:  # type: ignore[type-arg]
            return check_budgets(
                rentals,
                lambda _t: SlackTeller(client, lambda _u: Lang.EN),
                now,
                SHANGHAI,
                THRESHOLDS,
                lambda _t, _c: Lang.EN,
            )

        fake.refuse_channels.update({"C1": "channel_not_found", "C2": "channel_not_found"})
        assert check(NOW) == []  # nobody could be told: the claim is given back
        fake.refuse_channels.clear()
        [alert] = check(NOW)
        assert (alert.project, alert.threshold_pct, alert.channels) == ("llm", 80.0, ["C1", "C2"])
        text = fake.of("chat.postMessage")[-1]["text"]
        assert "*Budget alert — llm:* ¥817 spent this month, 82% of its ¥1,000 budget (past 80%)" in text
        assert "Costing most: *a* ¥800, *b* ¥16.67" in text and "by 12-31" in text and "% over" in text
        assert check(NOW + timedelta(minutes=1)) == []  # once per threshold and month; 50% counted with 80%
        [past] = check(NOW + timedelta(hours=6))
        assert past.threshold_pct == 100.0
        assert check(datetime(2027, 1, 2, 4, tzinfo=UTC)) != []  # a new month: told again as it crosses


def test_the_terminal_sets_lists_and_removes_budgets(tmp_path: Path) -> None:
    env = {"GPU_ADVISOR_LANG": "en"}
    done = run_cli("budget", "llm", "20000", "--team", "T1", env=env, tmp=tmp_path)
    assert done.returncode == 0 and "Budget of llm: ¥20,000 a month." in done.stdout
    listed = json.loads(run_cli("budget", "--team", "T1", "--json", env=env, tmp=tmp_path).stdout)
    assert [(b["project"], b["amount"], b["currency"], b["spent"]) for b in listed] == [("llm", 20000.0, "CNY", 0.0)]
    bad = run_cli("budget", "llm", "lots", "--team", "T1", env=env, tmp=tmp_path)
    assert bad.returncode == 2 and "is not a budget" in bad.stderr
    usd = run_cli("budget", "llm", "100", "--currency", "EUR", "--team", "T1", env=env, tmp=tmp_path)
    assert usd.returncode == 2 and "CNY or USD" in usd.stderr
    # the amount as chat's `budget llm 3000 USD` says it (the currency was "more than the command takes")
    dollars = run_cli("budget", "llm", "3000", "USD", "--team", "T1", env=env, tmp=tmp_path)
    assert dollars.returncode == 0 and "Budget of llm: $3,000 a month." in dollars.stdout, dollars.stderr
    wan = run_cli("budget", "llm", "2万", "--team", "T1", env=env, tmp=tmp_path)
    assert wan.returncode == 0 and "Budget of llm: ¥20,000 a month." in wan.stdout, wan.stderr
    euros = run_cli("budget", "llm", "3000", "EUR", "--team", "T1", env=env, tmp=tmp_path)
    assert euros.returncode == 2 and "'3000 EUR' is not a budget" in euros.stderr
    off = run_cli("budget", "llm", "off", "--team", "T1", env=env, tmp=tmp_path)
    assert "removed" in off.stdout
    assert json.loads(run_cli("budget", "--team", "T1", "--json", env=env, tmp=tmp_path).stdout) == []


def test_the_terminal_list_reads_the_chats_figures_rounded_as_money(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 53.21: `gpu-advise budget` printed `%g` figures (a budget of 1234567 read 1.23457e+06, a spend of
    816.666667 read 816.667) beside the chat's ¥1,234,567 and ¥817; it reads as the chat's list now."""
    from bot.cli.budget import _list
    from bot.settings import Settings
    from bot.text.budget import standing_line

    settings = Settings(db=tmp_path / "bot.db", state_db=tmp_path / "state.db", lang=Lang.EN, remind_tz="Asia/Shanghai")
    store = Store(migrated_state_db(tmp_path / "state.db"))
    rentals = Rentals(store)
    fields = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "day", "price": 400.0, "currency": "CNY"}
    fields |= {"owner": "U1", "project": "llm", "billing": "hourly", "channel": "C1"}
    rentals.track_instance("T1", "a", fields | {"started_at": NOW - timedelta(days=2, hours=1)})
    Budgets(store).put("T1", "llm", 1234567.0, "CNY", "U1", NOW)
    _list(settings, rentals, "T1", NOW, as_json=False)
    said = capsys.readouterr().out
    assert said.startswith("llm: ¥817 of ¥1,234,567. At this rate ¥9,417 by 12-31, 99% under."), said
    assert "e+06" not in said and "816.6" not in said
    [standing] = standings(rentals.instances("T1"), [], Budgets(store).of("T1"), NOW.astimezone(SHANGHAI))
    chat = standing_line(
        standing, Lang.EN, "digest.budget_standing"
    )  # the chat's line: the same figures, the project in bold
    assert plain_text(chat) == said.strip().replace("llm:", "• *llm*", 1)


def test_a_budget_in_one_currency_says_what_the_projects_other_currency_spent() -> None:
    """Issue 34.12: `budget llm-ft 3000 CNY` left the project's USD instances out without a word."""
    from bot.text.budget import forecast_text

    cny, usd = box("a"), replace(box("b", price=48.0), currency="USD")
    [standing] = standings([cny, usd], [], {("llm", "CNY"): 3000.0}, NOW.astimezone(SHANGHAI))
    assert standing.spent == 800.0 and standing.not_counted == (("USD", 96.0),)  # 2 days at $48, not converted
    said = forecast_text(standing, Lang.EN)
    assert "Not counted: $96 this month on the project's USD items (the budget is in CNY" in said
    assert "未计入：本项目 USD 计价的资源本月 $96" in forecast_text(standing, Lang.ZH)
    both = standings([cny, usd], [], {("llm", "CNY"): 3000.0, ("llm", "USD"): 500.0}, NOW.astimezone(SHANGHAI))
    assert [s.not_counted for s in both] == [(), ()]  # each currency has its budget: nothing left out


def test_the_whole_teams_budget_counts_every_project_and_comes_first() -> None:
    """`预算 每月 5000` kept a budget of a project named 每月. A budget with no project named is the whole team's:
    it counts every item, whatever its project (or none), beside each project's own; an item hidden as "Not ours"
    counts in neither (it counted in the forecasts while the digest's spend left it out)."""
    from rules.budget import WHOLE_TEAM
    from rules.digest import spending

    llm, cv, loose = box("a"), box("b", price=100.0, project="cv"), box("c", price=50.0, project="")
    hidden = replace(box("d", price=999.0), hidden_by="U9")
    budgets = {(WHOLE_TEAM, "CNY"): 5000.0, ("llm", "CNY"): 1000.0}
    team, own = standings([llm, cv, loose, hidden], [], budgets, NOW.astimezone(SHANGHAI))
    assert (team.project, team.spent, own.project, own.spent) == (WHOLE_TEAM, 1100.0, "llm", 800.0)
    assert team.top == (("a", 800.0), ("b", 200.0), ("c", 100.0))
    assert team.forecast == round(1100 + 550 * 21.5, 2)  # the three at 550 a day to the month's end
    rows = spending([llm, cv, loose, hidden], [], NOW.astimezone(SHANGHAI), budgets)
    assert [(r.project, r.amount, r.budget) for r in rows] == [
        (WHOLE_TEAM, 1100.0, 5000.0), ("", 100.0, None), ("cv", 200.0, None), ("llm", 800.0, 1000.0)
    ]  # fmt: skip


def test_the_whole_teams_budget_alerts_every_channel_with_its_items(tmp_path: Path) -> None:
    store = Store(migrated_state_db(tmp_path / "state.db"))
    rentals = Rentals(store)
    fields = {"gpu": "A100-80GB", "cards": 1, "share": None, "unit": "day", "price": 400.0, "currency": "CNY"}
    fields |= {"owner": "U1", "billing": "hourly", "started_at": NOW - timedelta(days=2)}
    rentals.track_instance("T1", "a", fields | {"channel": "C1", "project": "llm"})
    rentals.track_instance("T1", "b", fields | {"channel": "C2", "project": "cv"})
    Budgets(store).put("T1", "*", 2000.0, "CNY", "U1", NOW)
    with fake_slack() as fake:
        client = YieldingClient(token="xoxb-test", base_url=fake.api_url)
        teller = SlackTeller(client, lambda _u: Lang.ZH)
        [alert] = check_budgets(rentals, lambda _t: teller, NOW, SHANGHAI, THRESHOLDS, lambda _t, _c: Lang.ZH)
        assert (alert.project, alert.threshold_pct, alert.channels) == ("*", 80.0, ["C1", "C2"])
        text = fake.of("chat.postMessage")[-1]["text"]
        assert "*预算提醒 —— 全队：* 本月已花费 ¥1,600，占预算 ¥2,000 的 80%" in text, text


def test_the_terminal_sets_the_whole_teams_budget_with_no_project(tmp_path: Path) -> None:
    env = {"GPU_ADVISOR_LANG": "en"}
    for typed, said in ((["20000"], "¥20,000"), (["每月", "3万"], "¥30,000"), (["500", "USD"], "$500")):
        done = run_cli("budget", *typed, "--team", "T1", env=env, tmp=tmp_path)
        assert done.returncode == 0 and f"Budget of the whole team: {said} a month." in done.stdout, done.stderr
    named = run_cli("budget", "2026", "100", "--team", "T1", env=env, tmp=tmp_path)  # a project named as a number
    assert "Budget of 2026: ¥100 a month." in named.stdout
    listed = json.loads(run_cli("budget", "--team", "T1", "--json", env=env, tmp=tmp_path).stdout)
    assert [(b["project"], b["amount"], b["currency"]) for b in listed] == [("*", 500.0, "USD"), ("2026", 100.0, "CNY")]
    shown = run_cli("budget", "--team", "T1", env=env, tmp=tmp_path).stdout
    assert shown.startswith("The whole team: $0 of $500."), shown
    assert "removed" in run_cli("budget", "off", "--team", "T1", env=env, tmp=tmp_path).stdout
    again = run_cli("budget", "off", "--team", "T1", env=env, tmp=tmp_path)
    assert "The whole team has no budget." in again.stdout


def test_the_team_named_is_the_whole_teams_budget_and_off_said_in_chinese_removes(tmp_path: Path) -> None:
    """`预算 全队 5万` kept a project named 全队, listed beside the whole team's own budget (also said 全队); `预算 llm
    关闭` was refused with the usage."""
    from tests.chat.test_both_platforms import driving

    with driving("dingtalk", tmp_path) as chat:
        assert "全队的预算：每月 ¥50,000" in chat.command("预算 全队 5万")
        assert "全队的预算：每月 ¥30,000" in chat.command("budget team 30000")
        chat.command("预算 llm 2万5")
        assert "已删除 llm 的预算" in chat.command("预算 llm 关闭")
        assert "用法：`budget 项目 20000" in chat.command("预算 off off")  # off is no project's name
        [team] = Budgets(chat.deps.store).teams()
        assert Budgets(chat.deps.store).of(team) == {("*", "CNY"): 30000.0}
    env = {"GPU_ADVISOR_LANG": "en"}
    done = run_cli("budget", "全队", "5万", "--team", "T1", env=env, tmp=tmp_path)
    assert "Budget of the whole team: ¥50,000 a month." in done.stdout, done.stderr
    assert "removed" in run_cli("budget", "all", "删除", "--team", "T1", env=env, tmp=tmp_path).stdout


def test_next_month_is_each_item_going_on_as_it_runs() -> None:
    """`下个月大概要花多少` was "not a period": next month at the rate the team runs, an hourly card every hour of
    January's 31 days, a day card each of its renewals, a month card its one renewal, a kept disk its month."""
    from rules.budget import next_month

    hourly = box("a")  # 400 a day, billed by the hour, on all the time
    daily = box("b", billing=None, started=NOW - timedelta(days=2, hours=1))
    monthly = replace(box("c", price=9000.0, billing=None), unit="month")
    gone = box("d", released=NOW - timedelta(hours=1))
    disk = type("Disk", (), {"project": "llm", "currency": "CNY", "size_gb": 100.0, "price_gb_month": 0.5,
                             "deleted_at": None, "owner": "U1", "name": "ckpt", "hidden_by": None})()  # fmt: skip
    coming = next_month([hourly, daily, monthly, gone], [disk], NOW.astimezone(SHANGHAI))
    assert coming == {"CNY": pytest.approx(400 * 31 + 400 * 31 + 9000 + 100 * 0.5)}
