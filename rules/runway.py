"""How long a prepaid balance lasts. Pure: the balance, the provider's instances, their timelines and the clock.

Left: the balance minus what the provider's instances (in its currency) have billed since it was recorded
(rules/metering.py). Burn: what they cost an hour on average (hourly items at their share of billed time over the
last 7 days, or since they started; period items at their period price spread over the period). Runway: left over
burn, in hours: the same whether a slice on a daily schedule is on or off at the moment it is read.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from rules import metering
from rules.metering import Timelines, stretches_of


@dataclass(frozen=True)
class Runway:
    provider: str
    currency: str
    recorded: float  # the balance as recorded
    at: datetime  # when it was that
    source: str
    left: float
    burn_per_hour: float
    hours: float | None  # None: nothing burns
    until: datetime | None
    burning: tuple[str, ...] = ()  # the items that billed to it over the last 7 days, most burn first
    # the hours the average covers: the last 7 days, or since its oldest hourly item started when that is younger
    # ("the average of the last 7 days" said of a box rented yesterday); None where no hourly item burns
    measured_hours: float | None = None
    # whether any item of the team is on this provider at all: none says how a balance's items are named
    named: bool = True


def runway(balance: Any, instances: Iterable[Any], timelines: Timelines | None, now: datetime) -> Runway:
    """`balance`: provider, amount, currency, at, source; `instances`: every instance of the team."""
    spent = burn = 0.0
    burners: list[tuple[float, str]] = []
    measured: float | None = None
    week_ago = now - timedelta(days=metering.FORECAST_DAYS)
    named = False
    for inst in instances:
        if getattr(inst, "provider", None) != balance.provider:
            continue
        named = True
        if inst.currency != balance.currency:
            continue
        if getattr(inst, "hidden_by", None):
            continue
        stretches = stretches_of(inst, timelines, now)
        spent += metering.cost(inst, stretches, balance.at, now)
        rate = metering.average_burn(inst, stretches, now)
        burn += rate
        if rate > 0 and getattr(inst, "name", None):
            burners.append((-rate, inst.name))
        if rate > 0 and metering.basis(inst) is metering.Basis.HOURLY:
            span = (now - max(inst.started_at, week_ago)).total_seconds() / 3600
            measured = max(measured or 0.0, span)
    left = balance.amount - spent
    hours = max(left, 0.0) / burn if burn > 0 else None
    until = now + timedelta(hours=hours) if hours is not None else None
    return Runway(
        balance.provider,
        balance.currency,
        balance.amount,
        balance.at,
        balance.source,
        left,
        burn,
        hours,
        until,
        tuple(name for _, name in sorted(burners)),
        measured,
        named,
    )


def crossed(runway: Runway, thresholds: Iterable[float]) -> float | None:
    """The lowest threshold (hours) the runway is below, if any."""
    below = [t for t in thresholds if runway.hours is not None and runway.hours < t]
    return min(below) if below else None
