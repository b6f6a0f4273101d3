"""`gpu-advise report [--from DATE --to DATE | --week | --month YYYY-MM] [--channel C] [--project P]
[--json | --csv FILE] [--chart FILE.png]`: who and which project left cards idle, and what it cost.

Dates are local days of GPU_ADVISOR_REMIND_TZ, both included; `--week` is the seven days ending today
(the default). `--csv` writes one row per instance or storage item per day, for chargeback in a spreadsheet;
its rows add up to the report's totals."""

from __future__ import annotations

import csv
import json
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any
from zoneinfo import ZoneInfo

import typer

from bot.cli.common import LangOpt, fail, load_effective_policy, load_settings, say
from bot.cli.rentals import JsonOpt, TeamOpt, chosen_team, open_rentals
from bot.text import Lang, t
from bot.text.format import money, show

if TYPE_CHECKING:
    from rules.report import Report

TOP = 10


def _day(text: str, flag: str, lang: Lang, typed: str | None = None) -> date:
    """`text` as a day the report can cover; `typed`: what the user wrote, as the error shows it."""
    from rules.periods import FIRST_DAY, LAST_DAY, reportable

    shown = (typed or text)[:40]
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise fail(t("cli.report_bad_date", lang, flag=flag, text=shown)) from None
    if not reportable(day):
        first, last = f"{FIRST_DAY:%Y-%m}", f"{LAST_DAY:%Y-%m}"
        raise fail(t("cli.report_out_of_range", lang, flag=flag, text=shown, first=first, last=last))
    return day


def period(
    since: str | None, until: str | None, week: bool, month: str | None, today: date, lang: Lang
) -> tuple[date, date]:
    """The days asked for: --from/--to, --month, else the seven days ending today."""
    if sum(x for x in (since is not None or until is not None, week, month is not None)) > 1:
        raise fail(t("cli.report_one_period", lang))
    if month is not None:  # YYYY-MM, as chat's `report` takes a month: 2026年11月, 11月, this-month, last-month
        from rules.periods import month_days, month_span

        if len(month) == 7:  # YYYY-MM, read as a date (0000-01 is none)
            return month_days(_day(f"{month}-01", "--month", lang, typed=month))
        span = month_span(month, today)
        if span is None:
            return month_days(_day(month, "--month", lang))  # a day names its month; else says what is accepted
        _day(span[0].isoformat(), "--month", lang, typed=month)  # within the months a report covers
        return span
    if since is not None or until is not None:
        if since is None or until is None:
            raise fail(t("cli.report_both_dates", lang))
        start, end = _day(since, "--from", lang), _day(until, "--to", lang)
        if end < start or (end - start).days > 366:
            raise fail(t("cli.report_bad_span", lang, start=start.isoformat(), end=end.isoformat()))
        return start, end
    return today - timedelta(days=6), today


PeriodArg = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="[PERIOD]",
        help="The period as chat's report takes it: last-week, this-week, this-month, last-month, 2026-11, 上周, "
        "本月, 最近7天 (instead of the flags).",
        show_default=False,
    ),
]


def _days(
    said: list[str] | None, since: str | None, until: str | None, week: bool, month: str | None, today: date, lang: Lang
) -> tuple[date, date]:
    """The days asked for: the period said as chat's report reads it (`report last-week`, `report 本月`), else the
    flags; exit 2 for a period said beside a period flag, or words that name none (with the terminal's forms)."""
    if not said:
        return period(since, until, week, month, today, lang)
    from bot.app.invocation import CommandError
    from bot.app.report import NotAPeriod
    from bot.app.report import period as said_period

    if week or any(flag is not None for flag in (since, until, month)):
        raise fail(t("cli.report_one_period", lang))
    text = " ".join(said)
    try:
        return said_period(text, today, lang)
    except NotAPeriod:  # chat's sentence says `report off|on`; the terminal's, its flags
        raise fail(t("cli.report_bad_period", lang, text=text[:40])) from None
    except CommandError as exc:
        raise fail(str(exc)) from None


def report(
    period_said: PeriodArg = None,
    since: Annotated[str | None, typer.Option("--from", help="First day, YYYY-MM-DD (local, included).")] = None,
    until: Annotated[str | None, typer.Option("--to", help="Last day, YYYY-MM-DD (included).")] = None,
    week: Annotated[bool, typer.Option("--week", help="The seven days ending today (the default).")] = False,
    month: Annotated[
        str | None, typer.Option("--month", help="A month: YYYY-MM, 2026年11月, 11月, this-month or last-month.")
    ] = None,
    channel: Annotated[str | None, typer.Option("--channel", help="Only this channel's items.")] = None,
    project: Annotated[str | None, typer.Option("--project", help="Only this project's items.")] = None,
    csv_file: Annotated[Path | None, typer.Option("--csv", help="Write one row per item per day here.")] = None,
    chart_file: Annotated[Path | None, typer.Option("--chart", help="Draw the chart into this PNG file.")] = None,
    post_it: Annotated[
        bool, typer.Option("--post", help="Post it in --channel through its chat, the chart in the thread.")
    ] = False,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Who and which project left cards idle over a period, and what it cost."""
    from bot.report.compose import as_json as report_json
    from bot.report.compose import compose
    from bot.settings.worth import team_worth

    settings = load_settings(lang=lang)
    zone = ZoneInfo(settings.digest.remind_tz)
    now = datetime.now(UTC)
    today = now.astimezone(zone).date()
    start, end = _days(period_said, since, until, week, month, today, settings.files.lang)
    if post_it and not channel:
        raise fail(t("cli.report_post_needs_channel", settings.files.lang))
    rentals = open_rentals(settings)
    team = chosen_team(settings, team, rentals)
    if channel is not None:  # as its chat names it ("#C1", "feishu:oc_…"), or refused saying what a channel is
        from bot.cli.rentals import checked_channel

        channel = checked_channel(settings, team, channel)
    project = _project(rentals, team, project, settings.files.lang)
    busy = load_effective_policy(settings).idle.utilisation_max_pct
    if csv_file is not None:
        rows = _write_csv(
            csv_file,
            rentals,
            team,
            start,
            end,
            zone=zone,
            now=now,
            channel=channel,
            project=project,
            busy_above_pct=busy,
            lang=settings.files.lang,
        )
        say(t("cli.report_csv", settings.files.lang, rows=rows, path=str(csv_file)))
        if not (as_json or chart_file):
            return  # the CSV alone: written part by part, never the whole report at once
    made = compose(rentals, team, start, end, zone=zone, now=now, channel=channel, project=project,
                   busy_above_pct=busy, worth=team_worth(settings))  # fmt: skip
    if chart_file is not None:
        from bot.report.chart import draw

        try:
            draw(made, chart_file, settings.files.lang)
        except OSError as exc:  # a folder, a missing folder, /proc, a full disk
            reason = exc.strerror or type(exc).__name__
            said = t("cli.report_chart_cannot_write", settings.files.lang, path=str(chart_file), reason=reason)
            raise fail(said, code=1) from None
        say(t("cli.report_chart", settings.files.lang, path=str(chart_file)))
    if post_it and channel:
        _post(settings, rentals, team, channel, made, now, project)
    if as_json:
        sys.stdout.write(json.dumps(report_json(made), ensure_ascii=False, indent=2) + "\n")
    elif csv_file is None and not made.rows:
        sys.stdout.write(
            t("cli.report_nothing", settings.files.lang, start=start.isoformat(), end=end.isoformat()) + "\n"
        )
    elif csv_file is None:
        _print_text(made, settings.files.lang)


def _project(rentals: Any, team: str, said: str | None, lang: Lang) -> str | None:
    """--project as the team spells it; exit 2 for one no item has, naming those there are, as chat's report does
    (it printed "nothing was rented")."""
    if said is None:
        return None
    from bot.app.report import project_named

    found, unknown = project_named(rentals, team, said, lang)
    if unknown is not None:
        raise fail(unknown)
    return found


def _post(settings: Any, rentals: Any, team: str, channel: str, made: Any, now: datetime, project: str | None) -> None:
    """`--post`: the report in the channel, through the team's chat (its own settings), in the channel's language."""
    from bot.chat.port import ChatError
    from bot.cli.reach import reach
    from bot.cli.remind import channel_lang
    from bot.report.post import post
    from bot.state.schedules import Schedules

    teller = reach(settings, rentals.store, team)[1]
    lang = channel_lang(Schedules(rentals.store, settings.digest.default_schedule()), team)(channel)
    try:
        post(teller, channel, made, lang, store=rentals.store, team=team, now=now, project=project)
    except ChatError as exc:
        raise fail(t("cli.report_not_posted", settings.files.lang, channel=channel, error=exc.code), code=1) from None
    say(t("cli.report_posted", settings.files.lang, channel=channel))


def _write_csv(path: Path, rentals: Any, team: str, start: date, end: date, *, lang: Lang, **options: Any) -> int:
    """`--csv`: one row per item per day, written a part of the instances at a time; the rows written."""
    from bot.report.compose import CSV_COLUMNS, compose_parts, csv_rows

    written = 0
    try:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(CSV_COLUMNS)
            for part in compose_parts(rentals, team, start, end, **options):
                rows = csv_rows(part, team)
                writer.writerows(rows)
                written += len(rows)
    except OSError as exc:
        raise fail(t("cli.report_cannot_write", lang, path=str(path), reason=exc.strerror or "")) from None
    return written


def _print_text(made: Report, lang: Lang) -> None:
    """In a terminal, the totals and a table a ranking in the reader's words (`（无项目）`, `GPU 小时`); through a
    pipe, the lines scripts have read (a rank a line, its cells between tabs)."""
    from bot.cli.common import text_console

    console = text_console()
    if not console.is_terminal:
        sys.stdout.write(_text(made, lang) + "\n")
        return
    from bot.cli.tables import folded_table, print_table
    from bot.report.post import extras

    sys.stdout.write(_title(made, lang) + "\n")
    for by in ("owner", "project"):
        ranked = made.ranked(by)
        sys.stdout.write(t(f"cli.report_by_{by}", lang) + "\n")
        table = folded_table(t(f"cli.report_columns_{by}", lang))
        for rank in ranked[:TOP]:
            who = rank.who or t(f"cli.report_no_{by}", lang)
            table.add_row(who, *_cells(rank)[1:])
        print_table(table, console)
        if len(ranked) > TOP:
            sys.stdout.write("  " + t("cli.report_more", lang, count=len(ranked) - TOP) + "\n")
    for line in extras(made, lang):
        sys.stdout.write(line.replace("*", "") + "\n")


def _cells(rank: Any) -> tuple[str, str, str, str, str]:
    """A rank's who, idle cost, idle GPU-hours, spend and busy share, as both the lines and the table say them."""
    # none idle: nothing in the currency it spent in ("idle 0" read as a count beside "spent ¥37.5")
    idle = ", ".join(money(a, c) for c, a in rank.idle_cost.items() if a) or money(0, next(iter(rank.cost), "CNY"))
    spent = ", ".join(money(a, c) for c, a in rank.cost.items())
    share = f"{rank.busy_share:.0%}" if rank.busy_share is not None else "-"
    return rank.who or "-", idle, show(rank.idle_gpu_hours), spent, share


def _title(made: Report, lang: Lang) -> str:
    """The period, its spend and its GPU-hours: paid, busy, idle and without data."""
    totals = made.totals()
    cost = ", ".join(money(a, c) for c, a in totals.cost.items()) or "0"
    return t(
        "cli.report_title",
        lang,
        start=made.start.isoformat(),
        end=made.end.isoformat(),
        cost=cost,
        paid=show(totals.gpu_hours),
        busy=show(totals.busy_gpu_hours),
        idle=show(totals.idle_gpu_hours),
        unknown=show(totals.unknown_gpu_hours),
    )


def _text(made: Report, lang: Lang) -> str:
    from bot.report.post import extras

    lines = [_title(made, lang)]
    for by in ("owner", "project"):
        ranked = made.ranked(by)
        lines.append(t(f"cli.report_by_{by}", lang))
        for rank in ranked[:TOP]:
            who, idle, hours, spent, share = _cells(rank)
            lines.append(
                f"  {who}\t{t('cli.report_idle', lang)} {idle} ({hours} "
                f"GPU-h)\t{t('cli.report_spent', lang)} {spent}\t{t('cli.report_busy', lang)} {share}"
            )
        if len(ranked) > TOP:
            lines.append("  " + t("cli.report_more", lang, count=len(ranked) - TOP))
    return "\n".join(lines + [line.replace("*", "") for line in extras(made, lang)])
