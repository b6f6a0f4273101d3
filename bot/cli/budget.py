"""`gpu-advise budget PROJECT AMOUNT [--currency CNY]`, `gpu-advise budget PROJECT off`, `gpu-advise budget
[--json]`: projects' monthly budgets beside Slack's `/gpu-advise budget`; the list shows each project's
spend this month and the forecast for the month's end. Setting one sends any budget alert now due (with a
bot token configured)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from typing import Annotated, Any
from zoneinfo import ZoneInfo

import typer

from bot.cli.common import LangOpt, fail, load_effective_policy, load_settings, say
from bot.cli.rentals import JsonOpt, TeamOpt, chosen_team, open_rentals
from bot.fields.rentals import OFF_WORDS, budget_target, budget_words
from bot.text import t
from bot.text.catalogue import tw
from bot.text.format import money
from bot.text.spans import plain_text

# click reads "-5" as an option; for `budget llm -5` it is an amount, refused as no budget (bot/cli/main.py reads it)
CONTEXT = {"budget": {"ignore_unknown_options": True}}


def budget(
    project: Annotated[
        str | None,
        typer.Argument(help="The project (none: list every budget; an amount instead: the whole team's budget)."),
    ] = None,
    amount_said: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[amount [CNY|USD]]",
            help="The monthly budget, e.g. 20000, 2万 or 3000 USD (as chat says it); or off.",
            show_default=False,
        ),
    ] = None,
    currency: Annotated[
        str | None, typer.Option("--currency", help="CNY or USD (default: a ¥ or $ sign on the amount, else CNY).")
    ] = None,
    team: TeamOpt = None,
    lang: LangOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Set, remove or list monthly budgets, a project's or the whole team's."""
    from bot.state.budgets import Budgets
    from bot.state.rentals import NAME
    from bot.text.budget import project_said
    from rules.budget import WHOLE_TEAM

    settings = load_settings(lang=lang)
    amount = " ".join(amount_said) if amount_said else None  # `llm 3000 USD`: the code after the amount
    rentals = open_rentals(settings)
    team = chosen_team(settings, team)
    budgets = Budgets(rentals.store)
    now = datetime.now(UTC)
    if project is None:
        _list(settings, rentals, team, now, as_json)
        return
    if project.lower() in ("forecast", "预测", "预计") and amount is None:  # the team's month, budgeted or not
        _forecast(settings, rentals, team, now, as_json)
        return
    lang, words = settings.files.lang, [w for w in (project, amount) if w is not None]
    whole, words = budget_target(words)  # no project named, or 全队 / team: the whole team's budget
    if whole:
        project, amount = WHOLE_TEAM, " ".join(words) or None
    elif project.lower() in OFF_WORDS:  # `budget off off`: off is no project's name
        raise fail(t("cli.budget_usage", lang))
    elif not NAME.fullmatch(project):
        raise fail(t("error.rental.bad_name", lang, name=project))
    said = plain_text(project_said(project, lang))
    if amount is None:
        raise fail(t("cli.budget_usage", lang))
    if amount.lower() in OFF_WORDS:
        gone = budgets.remove(team, project)
        key, start = ("cli.budget_removed", False) if gone else ("cli.budget_none_for", True)
        sys.stdout.write(t(key, lang, project=plain_text(project_said(project, lang, start))) + "\n")
        return
    found = budget_words(words if whole else amount.split(), currency)  # "5000 USD": the code after the amount
    if found is None:
        typed = " ".join(words if whole else [amount])[:40] + (f" --currency {currency[:8]}" if currency else "")
        raise fail(t("cli.budget_bad", settings.files.lang, said=typed))
    value, code = found
    budgets.put(team, project, value, code, "terminal", now)
    sys.stdout.write(t("cli.budget_set", lang, project=said, amount=money(value, code)) + "\n")
    _alert(settings, rentals, team)


def _forecast(settings: Any, rentals: Any, team: str, now: datetime, as_json: bool) -> None:
    """`budget forecast`: the whole team's month in each currency, as chat's `budget forecast` says it."""
    from bot.report.money import team_forecast, team_next_month
    from bot.text.budget import forecast_lines

    zone, metering = ZoneInfo(settings.digest.remind_tz), load_effective_policy(settings).metering
    found = team_forecast(rentals, team, now, zone, metering)
    coming = team_next_month(rentals, team, now, zone, metering) if found else {}
    if as_json:
        rows = [{"currency": s.currency, "spent": s.spent, "forecast": s.forecast, "month_end": s.month_end.isoformat(),
                 "next_month": round(coming.get(s.currency, 0.0), 2)} for s in found]  # fmt: skip
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    lang, local = settings.files.lang, now.astimezone(zone)
    said = forecast_lines(found, local, lang, coming) if found else [tw("budget.forecast_none", lang, "cli")]
    sys.stdout.write("\n".join(plain_text(line) for line in said) + "\n")


def _list(settings: Any, rentals: Any, team: str, now: datetime, as_json: bool) -> None:
    from bot.report.money import budget_rows, budget_standings
    from bot.text.budget import standing_line

    metering = load_effective_policy(settings).metering
    found = budget_standings(rentals, team, now, ZoneInfo(settings.digest.remind_tz), metering)
    rows = budget_rows(found)
    if as_json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return
    if not rows:
        sys.stdout.write(t("cli.budget_empty", settings.files.lang) + "\n")
    for s in found:  # the chat's figures, rounded as money reads everywhere (--json keeps them exact)
        sys.stdout.write(plain_text(standing_line(s, settings.files.lang)) + "\n")


def _alert(settings: Any, rentals: Any, team: str) -> None:
    """Send the budget alerts now due through the team's chat (Slack's or Feishu's, with that chat's own
    settings), each in its channel's language (its digest's), as serve's are. Without the chat's settings the
    alert waits for serve."""
    from bot.cli.reach import teller_or_none
    from bot.cli.remind import channel_lang
    from bot.digest.budget_alerts import check_budgets
    from bot.state.schedules import Schedules
    from bot.text.budget import project_said

    teller = teller_or_none(settings, rentals.store, team)
    if teller is None:
        return
    langs = channel_lang(Schedules(rentals.store, settings.digest.default_schedule()), team)
    policy = load_effective_policy(settings)
    alerts = check_budgets(
        rentals,
        lambda _team: teller,
        datetime.now(UTC),
        ZoneInfo(settings.digest.remind_tz),
        policy.budget.thresholds_pct,
        lambda _team, channel: langs(channel),
    )
    for alert in alerts:
        say(
            t(
                "cli.budget_alerted",
                settings.files.lang,
                project=plain_text(project_said(alert.project, settings.files.lang)),
                pct=f"{alert.threshold_pct:g}",
                channels=", ".join(alert.channels),
            )
        )
