"""`report [last-week|this-week|this-month|last-month|YYYY-MM|11月]`: this channel's report, posted in the channel
with its chart in the thread; `report off|on`: this channel's weekly report (whoever set it, or an admin, may change
it)."""

from __future__ import annotations

import csv
import io
import logging
import re
from datetime import date, timedelta
from zoneinfo import ZoneInfo

from bot.app.invocation import CommandError, Invocation
from bot.chat.message import plain
from bot.chat.port import ChatError, Teller
from bot.fields.rentals import as_spelt
from bot.report.compose import CSV_COLUMNS, compose, csv_rows
from bot.report.post import post, week_before
from bot.state.rentals import NAME, Rentals
from bot.state.report_channels import ReportChannels
from bot.state.schedules import Schedules
from bot.text import Lang, t
from bot.text.chinese_names import SWITCH_WORDS
from bot.text.format import literal, who
from rules.patterns import lazy
from rules.periods import FIRST_DAY, LAST_DAY, WEEK_WORDS, month_span, reportable, rolling_span
from rules.remind_schedule import DAYS
from rules.report import Report

log = logging.getLogger(__name__)


class NotAPeriod(CommandError):
    """Words that name no period (chat's sentence says `report off|on` too; the terminal says its flags instead)."""


# a day said back from today (how much did we spend today, 昨天花了多少): that day alone
DAYS_BACK = {"今天": 0, "今日": 0, "today": 0, "昨天": 1, "昨日": 1, "yesterday": 1, "前天": 2}


def period(text: str, today: date, lang: Lang) -> tuple[date, date]:
    """The days the report covers (rules/periods.py), as typed: a day back, a week, a month, or the days up to
    today."""
    if (back := DAYS_BACK.get(" ".join(text.lower().split()))) is not None:  # 今天, yesterday: that day
        return today - timedelta(days=back), today - timedelta(days=back)
    week = WEEK_WORDS.get(" ".join(text.split()), "last-week" if not text else None)
    if week == "last-week":
        return week_before(today - timedelta(days=today.weekday()))  # last Monday to Sunday
    if week == "this-week":
        return today - timedelta(days=today.weekday()), today
    # 2026-11, 2026年11月, 11月, November, this-month, last-month; 最近7天, last 7 days
    span = month_span(text, today) or rolling_span(text, today)
    if span is not None:
        if not reportable(span[0]):
            covered = {"first": f"{FIRST_DAY:%Y-%m}", "last": f"{LAST_DAY:%Y-%m}"}
            raise CommandError(t("report.out_of_range", lang, text=text[:40], **covered))
        return span
    raise NotAPeriod(t("report.bad_period", lang, text=text[:40]))


def _project_named(rentals: Rentals, team: str, said: str, lang: Lang) -> str:
    """The team's project `said` names, as it is spelt (`LLM` for llm); CommandError naming the projects when none
    is (a report of no items said "nothing rented", as if the project had rented nothing)."""
    found, unknown = project_named(rentals, team, said, lang)
    if unknown is not None:
        raise CommandError(unknown)
    return found


def project_named(rentals: Rentals, team: str, said: str, lang: Lang) -> tuple[str, str | None]:
    """The team's project `said` names, as it is spelt, and None; or `said` and why it names none (the projects
    there are, or how to give one where none is yet): chat's report and the terminal's say the same."""
    projects = rentals.projects(team)
    found = as_spelt(said, projects)
    if found is not None:
        return found, None
    if not projects:  # `llm项目花了多少` before any item has a project: how to give one
        return said, t("report.no_projects_yet", lang, project=said)
    return said, t("report.no_project", lang, project=said, projects=", ".join(projects))


def _project_said(rentals: Rentals, team: str, words: list[str], today: date) -> tuple[str, list[str]] | None:
    """The team's project one of `words` names, without `project=` (`report llm`, `report 上周 llm`), or begins with
    before a period (`llm这周`, from `llm这周花了多少`), and the words left; None where none does. A name glued to
    the rest of a word is split off only where that rest is a period: a project `l` leaves `last-week` whole."""
    projects = rentals.projects(team)
    for at, word in enumerate(words):
        found = as_spelt(word, projects)
        if found is not None:
            return found, words[:at] + words[at + 1 :]
        for name in sorted(projects, key=len, reverse=True):  # llm这周: the name, then the period glued to it
            rest = word[len(name) :]
            if word.lower().startswith(name.lower()) and rest and _a_period(rest.lower(), today):
                return name, [*words[:at], rest, *words[at + 1 :]]
    return None


def _a_period(text: str, today: date) -> bool:
    """Whether `text` names a report's period, as period() reads it."""
    return text in WEEK_WORDS or (month_span(text, today) or rolling_span(text, today)) is not None


def report(inv: Invocation, args: list[str]) -> None:
    deps, channel, team, lang, now = inv.deps, inv.channel, inv.team, inv.lang, inv.deps.now()
    keyed = [a.partition("=")[2] for a in args if a.partition("=")[0].lower() in ("project", "项目")]
    args = [a for a in args if a.partition("=")[0].lower() not in ("project", "项目")]
    by_project = _by_project(args, lang)  # `哪个项目花钱最多`: said where no item has a project to rank
    args = [a for a in args if a.partition("=")[0].lower() != "by"]
    args = _CSV_SAID.compiled.sub(" ", " ".join(args)).split()  # `report last week as csv`: the CSV comes with it
    project = keyed[-1] if keyed else None  # `report 上周 项目=llm`: one project's items
    if project is not None and not NAME.fullmatch(project):  # a name, never markup said in the channel
        raise CommandError(f"`project`: {t('error.rental.bad_name', lang, name=project[:40])}")
    if project is not None:
        project = _project_named(Rentals(deps.store), team, project, lang)
    elif args and (bare := _project_said(Rentals(deps.store), team, args, now.date())) is not None:
        project, args = bare  # `报告 llm`, `llm这周花了多少`: a project's name said without project=
    word = " ".join(args).lower()  # `report last 7 days`: a period in words
    word = SWITCH_WORDS.get(word, word)  # `report 关闭`, `report 开启`
    if word in ("off", "on"):
        reports = ReportChannels(deps.store)
        setter = reports.set_by(team, channel)  # the same rule as `remind off`: whoever set it, or an admin
        if setter not in (None, inv.user) and not inv.is_admin():
            raise CommandError(t("report.not_yours", lang, setter=who(setter, lang)))
        reports.set(team, channel, word == "on", inv.user, now)
        day = t(f"word.weekday.{DAYS.index(deps.settings.digest.report_day)}", lang)  # "mon" is the setting's spelling
        inv.announce(plain(t(f"report.{word}", lang, day=day), lang))
        return
    zone = ZoneInfo(Schedules(deps.store, deps.settings.digest.default_schedule()).of(team, channel).zone)
    start, end = _period_named(word, now.astimezone(zone).date(), lang, Rentals(deps.store), team)

    def made_over(first: date, last: date) -> Report:
        return compose(
            Rentals(deps.store),
            team,
            first,
            last,
            zone=zone,
            now=now,
            channel=channel,
            project=project,
            busy_above_pct=deps.policy.idle.utilisation_max_pct,
            worth=deps.prices.worth(),
        )

    made = made_over(start, end)
    nothing = t("report.nothing", lang, start=f"{start:%m-%d}", end=f"{end:%m-%d}")
    if not made.rows and not word:  # `report` alone, nothing last week: this week so far, if it has anything
        this_week = period("this-week", now.astimezone(zone).date(), lang)
        made = made_over(*this_week)
        if made.rows:
            inv.answer(plain(nothing + ("" if lang is Lang.ZH else " ") + t("report.this_week_instead", lang), lang))
    if not made.rows:
        named = t("report.of_project", lang, project=project) + "\n" if project else ""
        yet = _not_billed_yet(Rentals(deps.store), team, channel, project, end >= now.astimezone(zone).date())
        said = t("report.nothing_yet", lang, start=f"{start:%m-%d}", end=f"{end:%m-%d}", count=yet) if yet else nothing
        inv.answer(plain(named + said, lang))
        return
    teller = inv.teller()
    ts = post(teller, channel, made, lang, store=deps.store, team=team, now=now, project=project)
    _attach_csv(teller, channel, ts, made, team, lang)
    if by_project and not Rentals(deps.store).projects(team):  # the report has no project's spend to say
        inv.answer(plain(t("report.no_projects_to_rank", lang), lang))


# the CSV asked for with the period (report last week as csv, 上周的报告 导出csv): every report posts its CSV
_CSV_SAID = lazy(r"(?:(?:as|in)\s+(?:a\s+)?)?\bcsv\b(?:\s+file)?|(?:导出|的)?csv(?:格式|文件)?|导出", re.IGNORECASE)


def _by_project(args: list[str], lang: Lang) -> bool:
    """Whether `by=project` is given (each project's spend asked: 哪个项目花钱最多, spend by project); CommandError for
    a `by=` that is not `project`."""
    by = [a.partition("=")[2].lower() for a in args if a.partition("=")[0].lower() == "by"]
    if any(b not in ("project", "项目") for b in by):
        raise CommandError(t("report.bad_by", lang, by=literal(by[0][:40])))
    return bool(by)


def _period_named(word: str, today: date, lang: Lang, rentals: Rentals, team: str) -> tuple[date, date]:
    """period(), where a name glued before a period (`训练机这个月`, from `训练机这个月花了多少`) that is no project of
    the team's and no item's is said to be neither, with the projects there are: it was "训练机这个月 is not a
    period"."""
    try:
        return period(word, today, lang)
    except NotAPeriod:
        cut = next((at for at in range(1, len(word)) if _a_period(word[at:].strip(), today)), None)
        if cut is None:
            raise
        name = word[:cut].strip()
        projects = ", ".join(rentals.projects(team)) or "-"
        raise NotAPeriod(t("report.no_such_name", lang, name=literal(name[:40]), projects=projects)) from None


def _not_billed_yet(rentals: Rentals, team: str, channel: str, project: str | None, to_today: bool) -> int:
    """How many items running or kept in the channel (of the project, where one is asked) have billed nothing yet, in a
    period up to today: "nothing was rented" was said of boxes tracked a minute before."""
    if not to_today:
        return 0
    running = rentals.instances(team, active_only=True, channel=channel)
    kept = rentals.storage(team, kept_only=True, channel=channel)  # a disk tracked a minute before: "nothing rented"
    projects = [i.project for i in running] + [k.project for k in kept]
    return sum(1 for each in projects if project is None or each == project)


def _attach_csv(teller: Teller, channel: str, thread: str, made: Report, team: str, lang: Lang) -> None:
    """The report's rows as a CSV file in its thread (one row per item per day, as `gpu-advise report --csv`): for
    chargeback without a terminal. The message and chart are out; a refused file is logged, not said. None made
    for a chat that takes no files."""
    if not teller.takes_files:
        return
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    writer.writerows(csv_rows(made, team))
    name = f"gpu-report-{made.start:%Y%m%d}-{made.end:%Y%m%d}.csv"
    title = t("report.csv_title", lang, start=f"{made.start:%m-%d}", end=f"{made.end:%m-%d}")
    try:
        teller.upload(channel, thread, name, out.getvalue().encode("utf-8-sig"), title)
    except ChatError as exc:
        log.warning("report CSV not uploaded in %s: %s", channel, exc.code)
