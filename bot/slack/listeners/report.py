"""`/gpu-advise report [last-week|this-week|YYYY-MM]`: this channel's report, posted in the channel with its
chart; `/gpu-advise report off|on`: this channel's weekly report."""

from __future__ import annotations

import re
from datetime import date, timedelta
from zoneinfo import ZoneInfo

from bot.deps import Deps
from bot.report.compose import compose
from bot.report.post import post, week_before
from bot.slack.listeners.digest import is_admin
from bot.slack.listeners.rentals import RentalCommandError
from bot.slack.request import SlackRequest
from bot.slack.teller import slack_tellers
from bot.slack.ui import blocks
from bot.state.rentals import Rentals
from bot.state.report_channels import ReportChannels
from bot.state.schedules import Schedules
from bot.text import Lang, t
from bot.text.format import who
from rules.report import FIRST_DAY, LAST_DAY, month_days, reportable

MONTH = re.compile(r"(\d{4})-(\d{2})")


def period(text: str, today: date, lang: Lang) -> tuple[date, date]:
    if text in ("", "last-week", "上周"):
        return week_before(today - timedelta(days=today.weekday()))  # last Monday to Sunday
    if text in ("this-week", "本周"):
        return today - timedelta(days=today.weekday()), today
    found = MONTH.fullmatch(text)
    if found and 1 <= int(found[2]) <= 12:
        first = date(max(int(found[1]), 1), int(found[2]), 1)
        if not reportable(first):
            span = {"first": f"{FIRST_DAY:%Y-%m}", "last": f"{LAST_DAY:%Y-%m}"}
            raise RentalCommandError(t("report.out_of_range", lang, text=text[:40], **span))
        return month_days(first)
    raise RentalCommandError(t("report.bad_period", lang, text=text[:40]))


def on_report(deps: Deps, request: SlackRequest, args: list[str], lang: Lang) -> None:
    channel, team, now = request.channel or "", request.team, deps.now()
    word = args[0].lower() if args else ""
    if word in ("off", "on"):
        reports, user = ReportChannels(deps.store), request.user or ""
        setter = reports.set_by(team, channel)  # the same rule as `remind off`: whoever set it, or an admin
        if setter not in (None, user) and not is_admin(request.client, user, team):
            raise RentalCommandError(t("report.not_yours", lang, setter=who(setter, lang)))
        reports.set(team, channel, word == "on", user, now)
        text = t(f"report.{word}", lang, day=deps.settings.report_day)
        request.respond(response_type="in_channel", text=text, blocks=blocks.text(text))
        return
    zone = ZoneInfo(Schedules(deps.store, deps.settings.default_schedule()).of(team, channel).zone)
    start, end = period(word, now.astimezone(zone).date(), lang)
    made = compose(
        Rentals(deps.store),
        team,
        start,
        end,
        zone=zone,
        now=now,
        channel=channel,
        busy_above_pct=deps.policy.idle.utilisation_max_pct,
    )
    if not made.rows:
        text = t("report.nothing", lang, start=f"{start:%m-%d}", end=f"{end:%m-%d}")
        request.respond(response_type="ephemeral", text=text, blocks=blocks.text(text))
        return
    post(slack_tellers(deps, request.client)(team), channel, made, lang, store=deps.store, team=team, now=now)
