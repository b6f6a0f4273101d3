"""How a budget's forecast reads, in the digest and in a budget alert."""

from __future__ import annotations

from datetime import datetime

from bot.text.catalogue import t
from bot.text.format import literal, money, sentences, show
from bot.text.lang import Lang
from rules.budget import WHOLE_TEAM, Standing, month_end


def project_said(project: str, lang: Lang, start: bool = False) -> str:
    """A budget's project as people read it: its name, "(no project)", or the whole team's (`budget 20000`, no
    project named; `start`: beginning a sentence, "The whole team"). A project's name is a rental NAME (no &, < or
    >): escaped for the chats, the terminal's reads the same."""
    if project == WHOLE_TEAM:
        said = t("budget.whole_team", lang)
        return said[:1].upper() + said[1:] if start else said
    return literal(project) if project else t("digest.no_project", lang)


def forecast_text(standing: Standing, lang: Lang) -> str:
    """ "At this rate ¥23,400 by 12-31, 17% over" (or under); "Nothing billed yet this month." where nothing is, nor
    forecast ("At this rate ¥0 by 12-31, 100% under" said nothing)."""
    if standing.spent == 0 and standing.forecast == 0:
        return sentences(lang, t("budget.forecast_nothing", lang), not_counted_text(standing, lang))
    key = "budget.forecast_over" if standing.forecast > standing.budget else "budget.forecast_under"
    said = t(
        key,
        lang,
        amount=money(standing.forecast, standing.currency),
        day=f"{standing.month_end:%m-%d}",
        pct=show(round(abs(standing.over_pct))),
    )
    return sentences(lang, said, not_counted_text(standing, lang))  # no space after 。


def not_counted_text(standing: Standing, lang: Lang) -> str:
    """ "Not counted: $12.50 of the project's USD items (no USD budget; money is not converted)." or ""."""
    if not standing.not_counted:
        return ""
    amounts = ", ".join(money(amount, currency) for currency, amount in standing.not_counted)
    currencies = "/".join(currency for currency, _ in standing.not_counted)
    key = "budget.not_counted.team" if standing.project == WHOLE_TEAM else "budget.not_counted"
    return t(key, lang, amounts=amounts, currencies=currencies, currency=standing.currency)


def standing_line(standing: Standing, lang: Lang, key: str = "cli.budget_line") -> str:
    """One project's budget with its spend and forecast, the figures the same wherever it is said: the terminal's
    `gpu-advise budget` ("llm: ¥812 of ¥20,000. At this rate ¥23,400 by 12-31, 17% over."), the chats' `budget`
    list (`digest.budget_standing`, the project in bold) and App Home (`slack.home_budget`). A project's name is a
    rental NAME (no &, < or >), so escaping it for the chats leaves the terminal's the same."""
    said = t(
        key,
        lang,
        project=project_said(standing.project, lang, start=key == "cli.budget_line"),
        spent=money(standing.spent, standing.currency),
        budget=money(standing.budget, standing.currency),
    )
    return sentences(lang, said, forecast_text(standing, lang))


def forecast_lines(
    found: list[Standing], local: datetime, lang: Lang, coming: dict[str, float] | None = None
) -> list[str]:
    """The whole team's month (`budget forecast`, chat and the terminal): a title, then each currency's spend so far,
    its forecast for the month's end and what that is a day from `local` (the reader's clock) on; then `coming`, next
    month at that rate in each currency (`下个月大概要花多少`)."""
    left = max((month_end(local) - local).total_seconds() / 86400, 1 / 24)  # days to the month's end
    lines = [
        t(
            "budget.forecast_team",
            lang,
            spent=money(s.spent, s.currency),
            forecast=money(s.forecast, s.currency),
            day=f"{s.month_end:%m-%d}",
            per_day=money((s.forecast - s.spent) / left, s.currency),
        )
        for s in found
    ]
    if coming:
        start = month_end(local)
        days = (month_end(start) - start).days
        month = f"{start.year} 年 {start.month} 月" if lang is Lang.ZH else f"{start:%Y-%m}"
        amounts = ", ".join(money(amount, currency) for currency, amount in sorted(coming.items()))
        lines.append(t("budget.forecast_next", lang, month=month, days=days, amount=amounts))
    return [t("budget.forecast_title", lang), *lines]
