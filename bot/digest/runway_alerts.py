"""Runway alerts: when a provider's prepaid balance would run out within the policy's `metering.runway_alert_hours`
(default 48 h, then 12 h) at the current rate, the channels of that provider's instances are told, once per
threshold and recorded balance across replicas and restarts (claimed on the balance's row; given back when no
channel could be told). A new balance (topped up, recorded again) starts afresh."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.chat.port import Teller, tell_each
from bot.state.balances import Balances
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from bot.text import Lang, t
from bot.text.format import show
from bot.text.runway import runway_line
from rules.policy import Metering
from rules.runway import Runway, crossed, runway

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunwayAlert:
    team: str
    provider: str
    below_h: float
    channels: list[str]


def check_runways(
    rentals: Rentals,
    teller_of: Callable[[str], Teller],
    now: datetime,
    zone: ZoneInfo,
    lang_of: Callable[[str, str], Lang],
    metering: Metering | None = None,
) -> list[RunwayAlert]:
    """Send each runway alert that is due; returns what was sent."""
    rules = metering or Metering()
    balances = Balances(rentals.store)
    latest = balances.latest()
    sent: list[RunwayAlert] = []
    for team in sorted({b.team for b in latest}):
        instances, mine = rentals.instances(team), [b for b in latest if b.team == team]
        timelines = PowerLog(rentals.store, rules).this_month(instances, now, also=[b.at for b in mine])
        for balance in mine:
            left = runway(balance, instances, timelines, now)
            below = crossed(left, rules.runway_alert_hours)
            if below is None or not balances.claim_alert(balance.id, below):
                continue
            channels = sorted(
                {i.channel for i in instances if i.provider == balance.provider and i.released_at is None and i.channel}
            )
            texts = {channel: _alert_text(left, below, lang_of(team, channel), zone) for channel in channels}
            told = tell_each(teller_of(team), texts, f"runway alert for {balance.provider}")
            if not told:
                balances.give_back_alert(balance.id, balance.alerted_below_h)
                continue
            sent.append(RunwayAlert(team, balance.provider, below, told))
    return sent


def _alert_text(left: Runway, below: float, lang: Lang, zone: ZoneInfo) -> str:
    return t("runway.alert", lang, line=runway_line(left, lang, zone), hours=show(below))
