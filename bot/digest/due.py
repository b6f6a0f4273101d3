"""The scheduler's job: every minute, send the digests that are due and not yet sent today.

A digest is due on a channel's working day once its local time has passed, until its local day
ends (rules/remind_schedule.py), so one missed while the process was down goes out at start-up.
Every process may run this job: the claim in digest_sends makes each digest go out once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.chat.port import Teller
from bot.deps import Deps
from bot.digest.budget_alerts import Alert, check_budgets
from bot.digest.outlet import Outlet
from bot.digest.runway_alerts import RunwayAlert, check_runways
from bot.digest.send import Outcome, channels_of, send_digests
from bot.state.digest_sends import Sends
from bot.state.rentals import Rentals
from bot.state.schedules import Schedules
from bot.text import Lang
from rules.remind_schedule import RemindSchedule, is_due

log = logging.getLogger(__name__)


def _zones(plans: dict[str, RemindSchedule]) -> Callable[[str], ZoneInfo]:
    return lambda channel: ZoneInfo(plans[channel].zone)


def _langs(plans: dict[str, RemindSchedule], default: Lang) -> Callable[[str], Lang]:
    """Each channel's language: the one its schedule names, else the team default."""
    return lambda channel: Lang.named_or(plans[channel].lang, default)


def board_links(store: Any, settings: Any, team: str, now: datetime) -> Callable[[str], str | None]:
    """Each channel's board link for its digest (bot/board/links.py), None without GPU_ADVISOR_PUBLIC_URL."""
    from bot.web.board_links import link_for

    def link(channel: str) -> str | None:
        made = link_for(store, settings.serve.public_url, settings.serve.board_link_hours, team, channel, now)
        return made[0] if made else None

    return link


def run_due(deps: Deps, outlet_for: Callable[[str], Outlet]) -> list[Outcome]:
    """The digests due now, each team's through its chat (`outlet_for`: LookupError when the team's chat is not
    reachable any more: the app uninstalled there)."""
    rentals, sends = Rentals(deps.store), Sends(deps.store)
    schedules = Schedules(deps.store, deps.settings.digest.default_schedule())
    outcomes: list[Outcome] = []
    for team in rentals.teams():
        now = deps.now()
        plans = schedules.plans(team, channels_of(rentals, team))
        due = [
            channel
            for channel, plan in plans.items()  # a dead claim too: its sender was killed mid-post
            if is_due(plan, now) and sends.due(team, channel, now.astimezone(ZoneInfo(plan.zone)).date(), now)
        ]
        if not due:
            continue
        try:
            outlet = outlet_for(team)
        except LookupError:
            log.info("no digest for team %s: the app is not installed there", team)
            continue
        outcomes += send_digests(
            rentals,
            sends,
            outlet,
            team=team,
            channels=due,
            now=deps.now,
            rules=deps.policy.idle,
            metering=deps.policy.metering,
            lang=_langs(plans, deps.settings.files.lang),
            zone=_zones(plans),
            scheduled=True,
            all_clear=deps.settings.digest.remind_all_clear,
            pace_s=deps.settings.digest.remind_pace_s,
            board=board_links(deps.store, deps.settings, team, now),
            worth=deps.prices.worth(),
        )
    for outcome in outcomes:
        if outcome.status == "failed":
            log.warning("digest for %s failed: %s", outcome.channel, outcome.error)
    return outcomes


def channel_langs(deps: Deps) -> Callable[[str, str], Lang]:
    """A channel's language: its schedule's, else GPU_ADVISOR_LANG."""
    schedules = Schedules(deps.store, deps.settings.digest.default_schedule())
    return lambda team, channel: Lang.named_or(schedules.of(team, channel).lang, deps.settings.files.lang)


def budgets_due(deps: Deps, teller_of: Callable[[str], Teller]) -> list[Alert]:
    """serve's `budgets:check` (and `remind --now`, `budget ...`): the budget alerts that are due."""
    lang_of = channel_langs(deps)
    sent = check_budgets(
        Rentals(deps.store),
        teller_of,
        deps.now(),
        ZoneInfo(deps.settings.digest.remind_tz),
        deps.policy.budget.thresholds_pct,
        lang_of,
        deps.policy.metering,
    )
    for alert in sent:
        log.info("budget alert: %s past %s%% in %s", alert.project, alert.threshold_pct, ", ".join(alert.channels))
    return sent


def runways_due(deps: Deps, teller_of: Callable[[str], Teller]) -> list[RunwayAlert]:
    """serve's `balances:check`: the prepaid balances' runway alerts that are due."""
    lang_of = channel_langs(deps)
    sent = check_runways(
        Rentals(deps.store),
        teller_of,
        deps.now(),
        ZoneInfo(deps.settings.digest.remind_tz),
        lang_of,
        deps.policy.metering,
    )
    for alert in sent:
        below = f"{alert.below_h} h" if alert.below_h is not None else f"{alert.below_amount} left"
        log.info("runway alert: %s below %s in %s", alert.provider, below, ", ".join(alert.channels))
    return sent
