"""Printing quotes and provider comparisons in the terminal with rich: `quote`, and the quote under `advise --quote`.

Apart from the advice's printing (bot/cli/terminal.py), so that `quote` imports neither the advisor nor its
reasons' texts (issue 50: every command's start)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.table import Table

from bot.cli.tables import fitted, folded_table, print_records, print_table
from bot.text import Lang, t
from bot.text.compare import cells, compare_title
from bot.text.quote import notes, rows, run_said, run_totals, title

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console

    from pricing.compare import ProviderOffer
    from pricing.quote import Quote, QuoteRequest
    from rules.policy import Policy


def print_quote(quote: Quote, policy: Policy, lang: Lang, console: Console) -> None:
    table = Table(title=title(quote, lang), title_justify="left", show_lines=True)
    lines = rows(quote, policy, lang)
    # A figure is never folded: the cost column is at least as wide as its longest word (¥980–¥1,120).
    widest = max((cell_len(word) for row in lines for word in row.cost.split()), default=8)
    for key in ("col.option", "col.cost", "col.billing", "col.source"):
        table.add_column(t(key, lang), overflow="fold", min_width=widest if key == "col.cost" else None)
    for row in lines:
        table.add_row(row.option, row.cost, row.billing, row.source, style="yellow" if row.stale else None)
    # rich measures a Chinese sentence as one word: it could not shrink the table to 80 columns and cut its right edge
    # ("domest / c-reference"); where the words do not fit a word a line, the options are said as records
    if fitted(table, console):
        console.print(table)
    else:
        print_records(table, console)
    for line in notes(quote, lang):
        console.print(f"• {line}", highlight=False)


def print_compare(rows: Sequence[ProviderOffer], req: QuoteRequest, lang: Lang, console: Console) -> None:
    """`quote --compare`: a row a provider, cheapest total first."""
    if not rows:
        console.print(t("compare.none", lang, gpu=req.gpu), highlight=False)
        return
    table = folded_table(t("compare.columns", lang), title=compare_title(rows, req, lang), title_justify="left")
    for row in rows:
        table.add_row(*cells(row, lang))
    print_table(table, console)
    included = sorted({kind for row in rows for kind in row.includes})
    if included:
        console.print("• " + t("compare.includes", lang, what=", ".join(included)), highlight=False)


def print_side_by_side(quotes: Sequence[Quote], lang: Lang, console: Console) -> None:
    """`quote A100 H100 4x14`: the run, then a row a GPU with each option's total (chat says the same lines)."""
    first = quotes[0]
    gpus = " · ".join(q.gpu for q in quotes)
    heading = t("prices.run_side_by_side", lang, gpus=gpus, run=run_said(first, lang), currency=first.currency)
    table = folded_table(t("quote.side_by_side_columns", lang), title=heading.replace("*", ""), title_justify="left")
    for quote in quotes:
        totals = {kind: (label, total) for kind, label, total in run_totals(quote, lang)}
        shared = totals.get("shared")
        table.add_row(
            quote.gpu,
            str(quote.cards),
            totals.get("dedicated", ("", "-"))[1],
            f"{shared[0]} {shared[1]}" if shared else "-",
            totals.get("spot", ("", "-"))[1],
        )
    print_table(table, console)
    note = t("prices.run_side_by_side_note", lang, gpu=first.gpu).replace("`", "")
    console.print(f"• {note}", highlight=False, soft_wrap=True)  # Chinese has no spaces to wrap at
