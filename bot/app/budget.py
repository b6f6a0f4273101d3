"""`budget …`: projects' and the whole team's monthly budgets in chat (set, removed, listed with each one's spend and
forecast), and `budget forecast`, where the whole team's month is heading, budgeted or not (the terminal's is
bot/cli/budget.py; both read the figures of bot/report/money.py and rules/budget.py)."""

from __future__ import annotations

import re

from bot.app.invocation import CommandError, Invocation
from bot.app.spend_asked import SET_TO
from bot.chat.message import plain
from bot.fields.rentals import OFF_WORDS, budget_target, budget_words
from bot.report.money import budget_standings, team_forecast, team_next_month
from bot.state.budgets import Budgets
from bot.state.rentals import RentalError, Rentals, check_name
from bot.text import t
from bot.text.budget import forecast_lines, project_said, standing_line
from bot.text.catalogue import tw
from bot.text.format import money, who
from rules.budget import WHOLE_TEAM
from rules.patterns import lazy


def _budgets_said(inv: Invocation) -> str:
    """Each project's budget with what it has spent this month and where it is heading, as the terminal says."""
    deps, lang = inv.deps, inv.lang
    found = budget_standings(Rentals(deps.store), inv.team, deps.now(), inv.channel_zone(), deps.policy.metering)
    if not found:
        return t("digest.budget_none", lang)
    lines = [standing_line(s, lang, "digest.budget_standing") for s in found]
    return "\n".join([t("digest.budget_title", lang), *lines])


def _forecast_said(inv: Invocation) -> str:
    """`budget forecast` (`这个月大概要花多少`, `what's our burn rate`): the whole team's month in each currency,
    spent so far and where it is heading, with what that is a day, as a budget's forecast is reckoned."""
    deps, lang = inv.deps, inv.lang
    now = deps.now()
    rentals, zone = Rentals(deps.store), inv.channel_zone()
    found = team_forecast(rentals, inv.team, now, zone, deps.policy.metering)
    if not found:
        return t("budget.forecast_none", lang)
    coming = team_next_month(rentals, inv.team, now, zone, deps.policy.metering)  # 下个月大概要花多少
    return "\n".join(forecast_lines(found, now.astimezone(zone), lang, coming))


# a budget's verb said first, after 预算 (预算设为每月5万: refused with the usage, 设为每月5万 read as no amount)
_SET_TO = lazy(SET_TO)
_SAID_AROUND = frozenset(("for", "of", "is", "to", "=", "at", "set", "the", "是", "为", "设为", "改成", "的"))
# a question of how the budgets stand, asked after the word (`预算 还剩多少`, `budget status`): the list
_HOW_IS_IT = lazy(
    r"(?:还剩|剩|用了|花了|超了|超没超|够不够|怎么样|情况|多少|吗|呢|了|[?？]|\s)+"
    r"|(?:(?:how much )?(?:is )?(?:left|status|used|spent|how are we doing|so far)[?]?\s*)+",
    re.IGNORECASE,
)


def budget(inv: Invocation, args: list[str]) -> None:
    """`budget PROJECT AMOUNT [CNY|USD]`, `budget PROJECT off`, or `budget` (the list); `budget AMOUNT` and
    `budget off`, no project named: the whole team's ("预算 每月 5000" kept a budget of a project named 每月)."""
    deps, lang = inv.deps, inv.lang
    budgets, team = Budgets(deps.store), inv.team
    if not args or _HOW_IS_IT.fullmatch(" ".join(args)):  # `预算 还剩多少`, `budget left?`: the list answers it
        inv.answer(plain(_budgets_said(inv), lang))
        return
    if " ".join(args).lower() in ("forecast", "预测", "预计"):  # the team's month, heading where: budgeted or not
        inv.answer(plain(_forecast_said(inv), lang))
        return
    if (verb := _SET_TO.match(args[0])) is not None:  # `预算设为每月5万`, `把预算改成5万`: the team's, set
        args = [args[0][verb.end() :], *args[1:]] if args[0][verb.end() :] else args[1:] or args
    if len(args) > 2:  # `budget for llm is 20000`, `预算 llm 是 2万`: the words around the project and amount
        args = [a for a in args if a.lower() not in _SAID_AROUND] or args
    whole, args = budget_target(args)  # `预算 全队 5万`, `budget off`, `budget 5万`: the whole team's
    if not args:  # `预算 全队`: its figure is in the list
        inv.answer(plain(_budgets_said(inv), lang))
        return
    project = WHOLE_TEAM if whole else args[0]
    if not whole and project.lower() in OFF_WORDS:  # `预算 off off`: off is no project's name
        raise CommandError(t("digest.budget_usage", lang, text=" ".join(args)))
    if not whole:
        try:
            check_name(project)
        except RentalError as exc:
            raise CommandError(tw(f"error.rental.{exc.code}", lang, "chat", **exc.params)) from None
    said = project_said(project, lang)
    setter = budgets.set_by(team, project)
    if setter not in (None, inv.user) and not inv.is_admin():
        raise CommandError(t("digest.budget_not_yours", lang, project=said, setter=who(setter, lang)))
    if args[-1].lower() in OFF_WORDS and len(args) == (1 if whole else 2):
        gone = budgets.remove(team, project)  # the terminal's words: "has no budget" where there was none
        key, start = ("digest.budget_removed", False) if gone else ("cli.budget_none_for", True)
        inv.answer(plain(t(key, lang, project=project_said(project, lang, start)), lang))
        return
    asked = budget_words(args if whole else args[1:], None, deps.settings.files.currency.upper())
    if asked is None:
        raise CommandError(t("digest.budget_usage", lang, text=" ".join(args)))  # all it was given: "budget 0" said “”
    amount, currency = asked
    budgets.put(team, project, amount, currency, inv.user, deps.now())
    inv.answer(plain(t("digest.budget_set", lang, project=said, amount=money(amount, currency)), lang))
