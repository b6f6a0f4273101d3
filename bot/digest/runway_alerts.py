"""Runway alerts: when a provider's prepaid balance would run out within the policy's `metering.runway_alert_hours`
(default 48 h, then 12 h) at the current rate, or what is left of it falls below the amount the team set
(bot/state/balance_floors.py: `余额低于500提醒我`), the channels of that provider's instances are told (and for an
amount, the channel it was set in), once per threshold and recorded balance across replicas and restarts (claimed on
the balance's row; given back when no channel could be told). A new balance (topped up, recorded again) starts
afresh."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from zoneinfo import ZoneInfo

from bot.chat.port import Teller, tell_each
from bot.state.balance_floors import Floors, floor_for
from bot.state.balances import Balances
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from bot.text import Lang, t
from bot.text.format import money, show
from bot.text.runway import runway_line
from rules.policy import Metering
from rules.runway import Runway, crossed, runway

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunwayAlert:
    team: str
    provider: str
    below_h: float | None  # None: an amount's alert
    channels: list[str]
    below_amount: float | None = None  # the floor it fell below (an amount's alert)


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
    latest, floors = balances.latest(), Floors(rentals.store).of()
    sent: list[RunwayAlert] = []
    for team in sorted({b.team for b in latest}):
        instances, mine = rentals.instances(team), [b for b in latest if b.team == team]
        timelines = PowerLog(rentals.store, rules).this_month(instances, now, also=[b.at for b in mine])
        for balance in mine:
            left = runway(balance, instances, timelines, now)
            channels = sorted(
                {i.channel for i in instances if i.provider == balance.provider and i.released_at is None and i.channel}
            )
            told = _Told(teller_of(team), partial(lang_of, team), left, zone)
            below = crossed(left, rules.runway_alert_hours)
            if below is not None and balances.claim_alert(balance.id, below):
                if where := told(channels, partial(_alert_text, left, below, zone=zone)):
                    sent.append(RunwayAlert(team, balance.provider, below, where))
                else:
                    balances.give_back_alert(balance.id, balance.alerted_below_h)
            floor = floor_for(floors, team, balance.provider, balance.currency)
            if floor is not None and left.left < floor.amount and balances.claim_floor(balance.id, floor.amount):
                channels = sorted({*channels, *([floor.channel] if floor.channel else [])})
                if where := told(channels, partial(_floor_text, left, floor.amount, zone=zone)):
                    sent.append(RunwayAlert(team, balance.provider, None, where, floor.amount))
                else:
                    balances.give_back_floor(balance.id, balance.alerted_floor)
    return sent


@dataclass(frozen=True)
class _Told:
    """Telling one balance's alert in each channel, in that channel's language; the channels told."""

    teller: Teller
    lang_of: Callable[[str], Lang]
    left: Runway
    zone: ZoneInfo

    def __call__(self, channels: list[str], text_of: Callable[[Lang], str]) -> list[str]:
        texts = {channel: text_of(self.lang_of(channel)) for channel in channels}
        return tell_each(self.teller, texts, f"runway alert for {self.left.provider}")


def _floor_text(left: Runway, floor: float, lang: Lang, zone: ZoneInfo) -> str:
    return t("runway.floor_alert", lang, line=runway_line(left, lang, zone), floor=money(floor, left.currency))


def _alert_text(left: Runway, below: float, lang: Lang, zone: ZoneInfo) -> str:
    return t("runway.alert", lang, line=runway_line(left, lang, zone), hours=show(below))
