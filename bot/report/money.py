"""Budgets and prepaid balances as rows: what `budget --json` and `balance --json` print and the board shows, made
here once so the figures are one (issue 48: the board's figures equal the terminal's)."""

from __future__ import annotations

from datetime import datetime, tzinfo
from typing import Any

from bot.state.rentals import Rentals
from rules.policy import Metering


def budget_standings(
    rentals: Rentals,
    team: str,
    now: datetime,
    zone: tzinfo,
    metering: Metering | None,
    projects: set[str] | None = None,
) -> list[Any]:
    """Each budgeted project's standing this month (the month of `zone`): spent, forecast, what costs most; of
    `projects` only when given, and the whole team's (their items alone are read: a project's standing counts only
    its own; the whole team's, every item)."""
    from bot.state.budgets import Budgets
    from bot.state.power import PowerLog
    from rules.budget import WHOLE_TEAM, standings

    wanted = None if projects is None else projects | {WHOLE_TEAM}
    budgets = {k: v for k, v in Budgets(rentals.store).of(team).items() if wanted is None or k[0] in wanted}
    if not budgets:
        return []
    named = {project for project, _ in budgets}
    every = wanted is None or WHOLE_TEAM in named
    instances = [i for i in rentals.instances(team) if every or (i.project or "") in named]
    storage = [s for s in rentals.storage(team) if every or (s.project or "") in named]
    timelines = PowerLog(rentals.store, metering).this_month(instances, now)
    return standings(instances, storage, budgets, now.astimezone(zone), timelines=timelines)


def team_forecast(rentals: Rentals, team: str, now: datetime, zone: tzinfo, metering: Metering | None) -> list[Any]:
    """The whole team's month in each currency its items bill in, budgeted or not: spent so far and where it is
    heading by the month's end, reckoned as a budget's forecast is (rules/budget.py: one forecast everywhere)."""
    from bot.state.power import PowerLog
    from rules.budget import WHOLE_TEAM, standings

    instances, storage = rentals.instances(team), rentals.storage(team)
    currencies = {i.currency for i in instances} | {s.currency for s in storage}
    if not currencies:
        return []
    timelines = PowerLog(rentals.store, metering).this_month(instances, now)
    every = {(WHOLE_TEAM, currency): 0.0 for currency in sorted(currencies)}  # no budget: the forecast alone
    return standings(instances, storage, every, now.astimezone(zone), timelines=timelines)


def team_next_month(
    rentals: Rentals, team: str, now: datetime, zone: tzinfo, metering: Metering | None
) -> dict[str, float]:
    """The whole team's next month at the rate it runs, in each currency (rules/budget.py next_month)."""
    from bot.state.power import PowerLog
    from rules.budget import next_month

    instances, storage = rentals.instances(team), rentals.storage(team)
    timelines = PowerLog(rentals.store, metering).this_month(instances, now)
    return next_month(instances, storage, now.astimezone(zone), timelines)


def budget_rows(standings: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "project": s.project,
            "amount": s.budget,
            "currency": s.currency,
            "spent": s.spent,
            "forecast": s.forecast,
            "month_end": s.month_end.isoformat(),
            "not_counted": dict(s.not_counted),  # the project's spend in currencies without a budget
        }
        for s in standings
    ]


def runways(
    rentals: Rentals, team: str, now: datetime, metering: Metering | None, providers: set[str] | None = None
) -> list[Any]:
    """Each prepaid balance kept for `team` (of `providers` only, when given), with what was billed to it since and
    how long the rest lasts; only the items billing to those providers are read."""
    from bot.state.balances import Balances
    from bot.state.power import PowerLog
    from rules.runway import runway

    recorded = [b for b in Balances(rentals.store).latest(team) if providers is None or b.provider in providers]
    if not recorded:
        return []
    wallets = {b.provider for b in recorded}
    instances = [i for i in rentals.instances(team) if i.provider in wallets]
    timelines = PowerLog(rentals.store, metering).this_month(instances, now, also=[b.at for b in recorded])
    return [runway(b, instances, timelines, now) for b in recorded]


def balance_rows(found: list[Any]) -> list[dict[str, Any]]:
    return [
        {
            "provider": r.provider,
            "balance": r.recorded,
            "currency": r.currency,
            "at": r.at.isoformat(),
            "source": r.source,
            "left": round(r.left, 2),
            "burn_per_hour": round(r.burn_per_hour, 4),
            "runway_hours": None if r.hours is None else round(r.hours, 2),
            "until": r.until.isoformat() if r.until else None,
            "burning": list(r.burning),  # the items that billed to it over the last 7 days, most first
        }
        for r in found
    ]
