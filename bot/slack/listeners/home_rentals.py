"""App Home's part about what the person rents: their running instances and kept storage, their spend this
month, the projects whose budget they set, with the forecast for the month's end, and the chart of the last
report of the channels their things are in."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.deps import Deps
from bot.slack.markup import escape
from bot.state.budgets import Budgets
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from bot.state.report_channels import ReportCharts
from bot.state.schedules import Schedules
from bot.text import Lang, t
from bot.text.budget import standing_line
from bot.text.format import money, show
from bot.text.quote import instance_rate
from rules.budget import standings
from rules.digest import spent_this_month, stored_this_month


def rentals_text(deps: Deps, team: str, user: str, lang: Lang, now: datetime) -> str:
    rentals = Rentals(deps.store)
    instances = [i for i in rentals.instances(team) if i.owner == user and not i.hidden_by]
    storage = [s for s in rentals.storage(team) if s.owner == user and not s.hidden_by]
    schedules = Schedules(deps.store, deps.settings.digest.default_schedule())
    zones = schedules.zones(team, [*(i.channel for i in instances), *(d.channel for d in storage)])
    # each item's month starts at midnight in its channel's digest zone, as `list` and the digest count it; the
    # budgets, which span channels, in the one zone the person's channels share, else the default zone
    shared = set(zones.values())
    local = now.astimezone(shared.pop() if len(shared) == 1 else ZoneInfo(deps.settings.digest.remind_tz))
    everything = rentals.instances(team)
    timelines = PowerLog(deps.store, deps.policy.metering).this_month(everything, now)
    spent: dict[str, float] = defaultdict(float)
    for inst in instances:
        spent[inst.currency] += spent_this_month(inst, now.astimezone(zones[inst.channel]), timelines)
    for disk in storage:
        spent[disk.currency] += stored_this_month(disk, now.astimezone(zones[disk.channel]))
    lines = [t("slack.home_rentals", lang)]
    for inst in (i for i in instances if i.released_at is None):
        cards = f"{inst.gpu} × {show(inst.share or inst.cards)}"
        lines.append(
            t(
                "slack.home_instance",
                lang,
                name=escape(inst.name),
                gpu=cards,
                price=instance_rate(inst, lang),
            )
        )
    for disk in (s for s in storage if s.deleted_at is None):
        lines.append(
            t(
                "slack.home_storage",
                lang,
                name=escape(disk.name),
                size=show(disk.size_gb),
                per_month=money(disk.size_gb * disk.price_gb_month, disk.currency),
            )
        )
    if len(lines) == 1:
        lines.append(t("slack.home_rents_nothing", lang))
    spend = ", ".join(money(a, c) for c, a in sorted(spent.items()) if a > 0)
    lines.append(t("slack.home_spent", lang, amount=spend or money(0, deps.settings.files.currency)))
    budgets = Budgets(deps.store)
    mine = {key: amount for key, amount in budgets.of(team).items() if budgets.set_by(team, key[0]) == user}
    for standing in standings(everything, rentals.storage(team), mine, local, timelines=timelines):
        lines.append(standing_line(standing, lang, "slack.home_budget"))
    return "\n".join(lines)


def home_chart(deps: Deps, team: str, user: str, lang: Lang) -> dict[str, str] | None:
    """The newest report chart of the channels the person's instances and storage are in."""
    rentals = Rentals(deps.store)
    channels = {i.channel for i in rentals.instances(team) if i.owner == user} | {
        s.channel for s in rentals.storage(team) if s.owner == user
    }
    chart = ReportCharts(deps.store).last(team, sorted(channels))
    if chart is None:
        return None
    period = {"start": f"{chart.start:%m-%d}", "end": f"{chart.end:%m-%d}"}
    return {
        "file_id": chart.file_id,
        "title": t("report.chart_title", lang, **period),
        "caption": t("slack.home_chart", lang, channel=f"<#{chart.channel}>", **period),
    }
