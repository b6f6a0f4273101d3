"""Printing advice and quotes in the terminal with rich: the same Advice the Slack views render."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from bot.cli.common import text_console
from bot.cli.quote_print import print_quote
from bot.text import Lang, t
from bot.text.reasons import headline, render, unanswered
from rules.decision import Choice

if TYPE_CHECKING:
    from bot.advice import Advice
    from rules.policy import Policy

Bullet = tuple[str, str, str | None]


def _bullets(items: list[Bullet]) -> Table:
    """Marks and texts in two columns, so wrapped lines stay under their text."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=2, justify="right")
    grid.add_column(ratio=1, overflow="fold")
    for mark, text, style in items:
        grid.add_row(Text(mark, style=style or ""), Text(text, style=(style or "") if mark == "→" else ""))
    return grid


def print_decision(console: Console, advice: Advice, lang: Lang) -> None:
    decision = advice.decision
    style = "bold magenta" if decision.choice is Choice.DEDICATED else "bold green"
    heading = Text(f"{t('recommendation', lang)}: ", style="bold") + Text(headline(decision, lang), style=style)
    why: list[Bullet] = [
        ("✔", render(c, lang), "magenta") if c.fired else ("·", render(c, lang), "dim") for c in decision.checks
    ]
    why += [("→", render(reason, lang), "bold") for reason in decision.verdict]
    why += [("!", render(warning, lang), "yellow") for warning in decision.warnings]
    if decision.missing:
        why.append(("?", unanswered(decision.missing, lang), "yellow"))
    parts: list[RenderableType] = [Text(t("why", lang), style="bold"), _bullets(why)]
    topics: dict[str, list[Bullet]] = {}
    for item in decision.guidance:
        topics.setdefault(item.topic.value, []).append(("•", render(item, lang), None))
    for topic, items in topics.items():
        parts += [Text(""), Text(t("topic." + topic, lang), style="bold"), _bullets(items)]
    if heading.cell_len + 6 > console.width:  # a long headline wraps inside the panel rather than being cut
        console.print(Panel(Group(heading, Text(""), *parts)))
    else:
        console.print(Panel(Group(*parts), title=heading, title_align="left"))


def print_advice(advice: Advice, policy: Policy, lang: Lang) -> None:
    """The decision, then its quote when one was made, on stdout."""
    console = text_console()
    print_decision(console, advice, lang)
    if advice.quote is not None:
        print_quote(advice.quote, policy, lang, console)
        if advice.schedule_assumed:
            key = "cli.assumed_service" if advice.quote.service else "cli.assumed_schedule"
            console.print(t(key, lang, hours=advice.quote.hours_per_day, days=advice.quote.days), markup=False)
