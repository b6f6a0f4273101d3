"""Printing advice and quotes in the terminal with rich: the same Advice the Slack views render."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from bot.advice import Advice
from bot.text import Lang, t
from bot.text.compare import cells, compare_title
from bot.text.quote import notes, rows, title
from bot.text.reasons import headline, render
from rules.decision import Choice
from rules.policy import Policy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pricing.compare import ProviderOffer
    from pricing.quote import Quote, QuoteRequest

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
        why.append(("?", f"{t('missing', lang)}: {', '.join(q.value for q in decision.missing)}", "yellow"))
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
    console = Console()
    print_decision(console, advice, lang)
    if advice.quote is not None:
        print_quote(advice.quote, policy, lang, console)
        if advice.schedule_assumed:
            key = "cli.assumed_service" if advice.quote.service else "cli.assumed_schedule"
            console.print(t(key, lang, hours=advice.quote.hours_per_day, days=advice.quote.days), markup=False)


def print_quote(quote: Quote, policy: Policy, lang: Lang, console: Console) -> None:
    table = Table(title=title(quote, lang), title_justify="left", show_lines=True)
    lines = rows(quote, policy, lang)
    # A figure is never folded: the cost column is at least as wide as its longest word (¥980–¥1,120).
    widest = max((cell_len(word) for row in lines for word in row.cost.split()), default=8)
    for key in ("col.option", "col.cost", "col.billing", "col.source"):
        table.add_column(t(key, lang), overflow="fold", min_width=widest if key == "col.cost" else None)
    for row in lines:
        table.add_row(row.option, row.cost, row.billing, row.source, style="yellow" if row.stale else None)
    console.print(table)
    for line in notes(quote, lang):
        console.print(f"• {line}", highlight=False)


def print_compare(rows: Sequence[ProviderOffer], req: QuoteRequest, lang: Lang, console: Console) -> None:
    """`quote --compare`: a row a provider, cheapest total first."""
    if not rows:
        console.print(t("compare.none", lang, gpu=req.gpu), highlight=False)
        return
    table = Table(*t("compare.columns", lang).split("|"), title=compare_title(rows, req, lang), title_justify="left")
    for row in rows:
        table.add_row(*cells(row, lang))
    console.print(table)
    included = sorted({kind for row in rows for kind in row.includes})
    if included:
        console.print("• " + t("compare.includes", lang, what=", ".join(included)), highlight=False)
