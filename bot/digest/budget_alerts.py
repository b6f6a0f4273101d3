"""Budget alerts: when a project's month-to-date spend crosses a threshold of its budget (the policy's
`budget.thresholds_pct`, default 50, 80 and 100%), the channels where its instances and storage are get one
message, once per project, threshold and month across replicas and restarts (claimed first; given back when
no channel could be told). Crossing several at once sends one message, for the highest. The month is the
reminders' (GPU_ADVISOR_REMIND_TZ)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.chat.port import Teller, tell_each
from bot.state.budgets import Budgets
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from bot.text import Lang, t
from bot.text.budget import forecast_text, project_said
from bot.text.format import literal, money, sentences, show
from rules.budget import WHOLE_TEAM, Standing, crossed, standings
from rules.policy import Metering

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Alert:
    team: str
    project: str
    threshold_pct: float
    channels: list[str]  # the channels told


def check_budgets(
    rentals: Rentals,
    teller_of: Callable[[str], Teller],
    now: datetime,
    zone: ZoneInfo,
    thresholds: tuple[float, ...],
    lang_of: Callable[[str, str], Lang],
    metering: Metering | None = None,
) -> list[Alert]:
    """Send each alert that is due; returns what was sent. `lang_of(team, channel)`: a channel's language."""
    budgets, local = Budgets(rentals.store), now.astimezone(zone)
    month = f"{local:%Y-%m}"
    sent: list[Alert] = []
    for team in budgets.teams():
        instances, storage = rentals.instances(team), rentals.storage(team)
        timelines = PowerLog(rentals.store, metering).this_month(instances, now)
        for standing in standings(instances, storage, budgets.of(team), local, timelines=timelines):
            reached = crossed(standing, thresholds)
            highest = (
                budgets.claim_alert(team, standing.project, standing.currency, month, reached, now) if reached else None
            )
            if highest is None:
                continue
            everyone = standing.project == WHOLE_TEAM  # the whole team's budget: every channel with its items
            channels = sorted(
                {i.channel for i in instances if (everyone or (i.project or "") == standing.project) and i.channel}
                | {s.channel for s in storage if (everyone or (s.project or "") == standing.project) and s.channel}
            )
            texts = {channel: alert_text(standing, highest, lang_of(team, channel)) for channel in channels}
            told = tell_each(teller_of(team), texts, f"budget alert for {standing.project}")
            if not told:
                budgets.give_back_alert(team, standing.project, standing.currency, month, now)
                continue
            sent.append(Alert(team, standing.project, highest, told))
    return sent


def alert_text(standing: Standing, threshold: float, lang: Lang) -> str:
    project = project_said(standing.project, lang)
    top = ", ".join(f"*{literal(name)}* {money(cost, standing.currency)}" for name, cost in standing.top) or "-"
    text = t(
        "budget.alert",
        lang,
        project=project,
        pct=show(threshold),
        spent=money(standing.spent, standing.currency),
        budget=money(standing.budget, standing.currency),
        share=show(round(standing.spent_pct)),
        top=top,
    )
    return sentences(lang, text, forecast_text(standing, lang))
