"""Budgets that alert: each project's month-to-date spend against its budget, the forecast for the month's
end, and the thresholds crossed. Pure: the rented things, the budgets, the clock and the thresholds come in.

The forecast is the spend so far plus what each item will bill to the month's end as it runs
(rules/metering.py): an hourly instance at its share of billed time over the last week, a period instance each
renewal, storage not deleted at its price a month. Money is per currency, never converted.

A budget of the whole team (`budget 20000`, `预算 每月 5000`: no project named) is kept under WHOLE_TEAM and counts
every item, whatever its project, beside the item's own project's budget.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from rules import metering
from rules.digest import WHOLE_TEAM as WHOLE_TEAM  # kept beside spending, which this module builds on
from rules.digest import Rented, Stored, hidden, spent_this_month, stored_this_month
from rules.metering import Timelines, stretches_of


def budget_keys(project: str | None, currency: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """The budgets an item of `project` in `currency` counts towards: its project's, and the whole team's."""
    return (project or "", currency), (WHOLE_TEAM, currency)


@dataclass(frozen=True)
class Standing:
    project: str
    currency: str
    budget: float
    spent: float
    forecast: float
    month_end: date  # the month's last day
    top: tuple[tuple[str, float], ...]  # the items costing most this month, most first
    # the project's spend this month in currencies it has no budget in: not counted (money is never converted
    # here), said beside the standing so a budget in CNY does not hide the project's USD instances
    not_counted: tuple[tuple[str, float], ...] = ()

    @property
    def spent_pct(self) -> float:
        return 100 * self.spent / self.budget

    @property
    def over_pct(self) -> float:
        """How far the forecast goes past the budget, in percent (negative: under)."""
        return 100 * (self.forecast - self.budget) / self.budget


def month_end(now: datetime) -> datetime:
    """The first moment of next month, in `now`'s zone."""
    first = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return (first + timedelta(days=32)).replace(day=1)


def standings(
    instances: Iterable[Rented],
    storage: Iterable[Stored],
    budgets: Mapping[tuple[str, str], float],
    now: datetime,
    top: int = 3,
    timelines: Timelines | None = None,
) -> list[Standing]:
    """Each budgeted (project, currency): spent this month, the forecast, and what costs most. Items hidden by an
    admin ("Not ours") count nothing, as in the digest's spend (rules/digest.py's spending)."""
    left = max((month_end(now) - now).total_seconds(), 0.0) / 86400
    spent: dict[tuple[str, str], float] = defaultdict(float)
    ahead: dict[tuple[str, str], float] = defaultdict(float)
    items: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    projects = {project for project, _ in budgets}
    other: dict[tuple[str, str], float] = defaultdict(float)  # (project, currency without a budget) -> spent
    for inst in instances:
        keys = budget_keys(inst.project, inst.currency)
        if hidden(inst) or not any(key in budgets or key[0] in projects for key in keys):
            continue
        cost = spent_this_month(inst, now, timelines)
        coming = metering.ahead(inst, stretches_of(inst, timelines, now), now, month_end(now))
        for key in keys:
            if key in budgets:
                spent[key] += cost
                items[key].append((inst.name, cost))
                ahead[key] += coming
            elif key[0] in projects:
                other[key] += cost
    for disk in storage:
        keys = budget_keys(disk.project, disk.currency)
        if hidden(disk) or not any(key in budgets or key[0] in projects for key in keys):
            continue
        cost = stored_this_month(disk, now)
        for key in keys:
            if key in budgets:
                spent[key] += cost
                items[key].append((disk.name, cost))
                if disk.deleted_at is None:
                    ahead[key] += disk.size_gb * disk.price_gb_month / 30 * left
            elif key[0] in projects:
                other[key] += cost
    out = []
    for (project, currency), budget in sorted(budgets.items(), key=lambda b: (b[0][0] != WHOLE_TEAM, b[0])):
        key = (project, currency)
        ranked = tuple(sorted(((n, round(c, 2)) for n, c in items[key] if c > 0), key=lambda i: -i[1])[:top])
        others = tuple((c, round(a, 2)) for (p, c), a in sorted(other.items()) if p == project and a > 0)
        out.append(
            Standing(
                project,
                currency,
                budget,
                round(spent[key], 2),
                round(spent[key] + ahead[key], 2),
                (month_end(now) - timedelta(days=1)).date(),
                ranked,
                others,
            )
        )
    return out


def crossed(standing: Standing, thresholds: Iterable[float]) -> list[float]:
    """The thresholds (percent of the budget) this month's spend has reached, lowest first."""
    return [t for t in sorted(thresholds) if standing.spent >= standing.budget * t / 100]


def next_month(
    instances: Iterable[Rented], storage: Iterable[Stored], now: datetime, timelines: Timelines | None = None
) -> dict[str, float]:
    """What the whole team will bill next month if it goes on as it runs, in each currency: each instance from this
    month's end to the next's as `metering.ahead` reckons its coming money (an hourly item at its share of the last
    week, a period item each renewal), each kept disk a month of it. Items hidden by an admin count nothing."""
    start = month_end(now)
    end = month_end(start)
    coming: dict[str, float] = defaultdict(float)
    for inst in instances:
        if hidden(inst):
            continue
        stretches = stretches_of(inst, timelines, now)
        coming[inst.currency] += metering.ahead(inst, stretches, now, end) - metering.ahead(inst, stretches, now, start)
    for disk in storage:
        if not hidden(disk) and disk.deleted_at is None:
            coming[disk.currency] += disk.size_gb * disk.price_gb_month
    return dict(coming)
