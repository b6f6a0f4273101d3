"""A report in a team's chat: a message with the totals and who and which project left cards idle (owners and
projects ranked by idle cost, the top 10 then "+N more"), and its chart uploaded into the message's thread
(each chat's own upload). Weekly, per channel, on GPU_ADVISOR_REPORT_DAY at the channel's digest time, once per
channel and week across restarts and replicas (claimed like the digest); on demand with
`/gpu-advise report`."""

from __future__ import annotations

import io
import logging
from collections.abc import Callable
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.chat.port import ChatError, Teller
from bot.report.chart import draw
from bot.report.compose import compose
from bot.state.digest_sends import Sends
from bot.state.rentals import Rentals
from bot.state.report_channels import ReportChannels, ReportCharts
from bot.state.store import Store
from bot.text import Lang, t
from bot.text.format import literal, mention, money, show
from rules.remind_schedule import RemindSchedule
from rules.report import Report, by_channel
from rules.worth import RAW, Worth

log = logging.getLogger(__name__)
TOP = 10
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def report_text(report: Report, lang: Lang, project: str | None = None) -> str:
    """The report's message; `project` named in its title where the report is one project's."""
    totals = report.totals()
    cost = ", ".join(money(a, c) for c, a in totals.cost.items()) or money(0, "CNY")
    lines = [t("report.of_project", lang, project=project)] if project else []
    lines += [
        t(
            "report.title",
            lang,
            start=f"{report.start:%m-%d}",
            end=f"{report.end:%m-%d}",
            cost=cost,
            paid=show(totals.gpu_hours),
            busy=show(totals.busy_gpu_hours),
            idle=show(totals.idle_gpu_hours),
            unknown=show(totals.unknown_gpu_hours),
        )
    ]
    lines += [] if project else spend_by_project(report, lang)
    for by in ("owner", "project"):
        ranked = [r for r in report.ranked(by) if any(r.idle_cost.values())]
        if not ranked:
            continue
        lines.append(t(f"report.by_{by}", lang))
        for rank in ranked[:TOP]:
            # an owner is a person (each chat shows its mention); a project from a tag is data, never a mention or link
            who = (
                (mention(rank.who) if by == "owner" else literal(rank.who))
                if rank.who
                else t("digest.no_project", lang)
            )
            idle = ", ".join(money(a, c) for c, a in rank.idle_cost.items() if a)
            lines.append(t("report.rank_line", lang, who=who, idle=idle, hours=show(rank.idle_gpu_hours)))
        if len(ranked) > TOP:
            lines.append(t("report.more", lang, count=len(ranked) - TOP))
    return "\n".join(lines + extras(report, lang))


def spend_by_project(report: Report, lang: Lang) -> list[str]:
    """What each project spent over the period, most first (the items in no project as one of them), where any
    project is named: "which project spends most" was not in the report, only each one's idle share."""
    ranked = [r for r in report.ranked("project") if any(r.cost.values())]
    if not any(rank.who for rank in ranked):  # no project named: the total says it all
        return []
    ranked.sort(key=lambda r: (-report.worth.of(r.cost), r.who))  # on the team's currency, only for the order
    lines = [t("report.spend_by_project", lang)]
    for rank in ranked[:TOP]:
        who = literal(rank.who) if rank.who else t("digest.no_project", lang)
        cost = ", ".join(money(a, c) for c, a in rank.cost.items() if a)
        lines.append(t("report.spend_line", lang, who=who, cost=cost))
    if len(ranked) > TOP:
        lines.append(t("report.more", lang, count=len(ranked) - TOP))
    return lines


def extras(report: Report, lang: Lang) -> list[str]:
    """What releases saved, and the storage that cost most."""
    out = []
    if report.released:
        saved: dict[str, float] = {}
        for r in report.released:
            saved[r.currency] = saved.get(r.currency, 0.0) + r.saved
        out.append(
            t(
                "report.released",
                lang,
                count=len(report.released),
                saved=", ".join(money(a, c) for c, a in saved.items()),
            )
        )
    costly = report.storage_costs(3)
    if costly:
        out.append(
            t("report.storage", lang, items=", ".join(f"*{literal(i)}* {money(c, cur)}" for i, cur, c in costly))
        )
    if report.unpriced:
        shown = ", ".join(literal(name) for name in report.unpriced[:10])
        more = len(report.unpriced) - 10
        items = shown + (" " + t("report.more_items", lang, count=more) if more > 0 else "")
        out.append(t("report.unpriced", lang, count=len(report.unpriced), items=items))
    return out


def post(
    teller: Teller,
    channel: str,
    report: Report,
    lang: Lang,
    *,
    store: Store,
    team: str,
    now: datetime,
    project: str | None = None,
) -> str:
    """Post the report and its chart (in the thread), and keep the chart's file as the channel's last (for App
    Home); the message's id. ChatError when the message cannot be posted."""
    ts = teller.say(channel, report_text(report, lang, project), link_previews=False)
    if not teller.takes_files:  # a chat that sends no files: its text alone, no chart drawn to be thrown away
        return ts
    png = io.BytesIO()
    draw(report, png, lang)
    title = t("report.chart_title", lang, start=f"{report.start:%m-%d}", end=f"{report.end:%m-%d}")
    try:
        file_id = teller.upload(channel, ts, "gpu-report.png", png.getvalue(), title)
    except ChatError as exc:  # the message is out; the chart is a bonus (files:write may be missing)
        log.warning("report chart not uploaded in %s: %s", channel, exc.code)
        return ts
    if file_id:
        ReportCharts(store).keep(team, channel, file_id, report.start, report.end, now)
    return ts


def week_before(day: date) -> tuple[date, date]:
    """The seven days before `day` (a Monday's report: last Monday to Sunday)."""
    return day - timedelta(days=7), day - timedelta(days=1)


def weekly_due(
    rentals: Rentals,
    teller_of: Callable[[str], Teller],
    now: datetime,
    *,
    report_day: str,
    schedules: Callable[[str, str], RemindSchedule],
    lang_of: Callable[[RemindSchedule], Lang],
    busy_above_pct: float,
    channels: Callable[[str], list[str]],
    worth: Worth = RAW,
) -> list[str]:
    """Post each channel's weekly report that is due; returns the channels told. `worth`: the team's currencies on
    one scale, for the rankings' order."""
    told = []
    sends = Sends(rentals.store, "weekly")
    for team in rentals.teams():
        composed: dict[tuple[date, str], dict[str, Report]] = {}  # one reading per week and zone, all channels
        for channel in channels(team):
            plan = schedules(team, channel)
            local = now.astimezone(ZoneInfo(plan.zone))
            if (
                not plan.enabled
                or DAYS[local.weekday()] != report_day
                or local.time() < plan.at
                or not ReportChannels(rentals.store).enabled(team, channel)
            ):
                continue
            if sends.claim(team, channel, local.date(), now) is None:
                continue  # sent already this week, or another replica is sending it
            start, end = week_before(local.date())
            if (start, plan.zone) not in composed:
                composed[(start, plan.zone)] = by_channel(
                    compose(
                        rentals,
                        team,
                        start,
                        end,
                        zone=ZoneInfo(plan.zone),
                        now=now,
                        busy_above_pct=busy_above_pct,
                        worth=worth,
                    )
                )
            made = composed[(start, plan.zone)].get(channel, Report(start, end))
            if not made.rows:
                sends.sent(team, channel, local.date(), now, None, 0)
                continue
            try:
                ts = post(teller_of(team), channel, made, lang_of(plan), store=rentals.store, team=team, now=now)
            except (ChatError, LookupError) as exc:
                sends.give_back(team, channel, local.date())
                log.warning("weekly report for %s not sent: %s", channel, exc)
                continue
            sends.sent(team, channel, local.date(), now, ts, len(made.rows))
            told.append(channel)
    return told
