"""The terminal's tables (`list`, `prices list`, `prices status`, `quote --compare`): every cell shown whole.

rich cuts a cell that does not fit with "…" by default, and through a pipe it assumes 80 columns: `prices list |
grep` lost the words it looked for ("RTX40…", "202…"). Here a cell wraps inside its column and is never cut; in a
terminal narrower than the table the columns get their longest word first and share the rest by how much more each
holds (rich's own shrinking takes from the widest columns first and so split "running" and "A100-80GB" in an
80-column terminal), and where even that does not fit, each row is printed as a record of "column  value" lines;
through a pipe or into a file the table is printed at its own width, a row a line."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from bot.cli.common import text_console

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table


def folded_table(headers: str, **options: Any) -> Table:
    """A rich Table with these columns ("GPU|offer|…", as the catalogue lists them) whose cells wrap and are never
    cut: a line under the header and two spaces between columns, no edges, so ten columns fit 80 columns with
    room for their longest words."""
    from rich import box
    from rich.table import Table

    given: dict[str, Any] = {"box": box.SIMPLE_HEAD, "show_edge": False, "collapse_padding": True, "pad_edge": False}
    table = Table(**(given | options))
    for header in headers.split("|"):
        table.add_column(header, overflow="fold")
    return table


def print_table(table: Table, console: Console | None = None) -> None:
    """`table` on `console` (stdout): in a terminal within its width (columns fitted, below); through a pipe or
    into a file at the table's own width, unless COLUMNS gives one."""
    console = console or text_console()
    natural = _width(table, console)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = text_console(width=max(console.width, natural))
    elif natural > console.width and not _fit(table, console):
        print_records(table, console)
        return
    console.print(table)


def print_records(table: Table, console: Console) -> None:
    """A table too wide for the terminal even with every word on a line of its own, as records: each row a block
    of "column  value" lines, blocks apart by an empty line (psql's expanded display, `\\x auto`), so that no word
    is split across lines ("dedica / ted", "2026-0 / 9-25") as ten narrow columns split them at 80 columns."""
    from rich.table import Table

    if table.title:
        console.print(table.title, style="bold")
    columns = table.columns
    for n, row in enumerate(zip(*(list(column.cells) for column in columns), strict=True)):
        if n:
            console.print()
        record = Table.grid(padding=(0, 2))
        record.add_column(style="bold", no_wrap=True)
        record.add_column(overflow="fold")
        for column, cell in zip(columns, row, strict=True):
            record.add_row(column.header, cell)
        console.print(record)


def _width(table: Table, console: Console) -> int:
    from rich.measure import Measurement

    return Measurement.get(console, console.options.update_width(100_000), table).maximum


def _fit(table: Table, console: Console) -> bool:
    """Give each column a width within the console's: its longest word first, then what is left shared in proportion
    to how much wider its longest cell is; two spaces between columns, else one. False where even a word a line does
    not fit: the table is printed as records instead. A Chinese cell is a word here too: broken between any two
    characters to fit a narrow column it read as 已过 / 期 and 每 / GPU / 小时, so it is never split."""
    found = _layout(table, console)
    if found is None:
        return False
    table.padding, widths = found
    for column, chosen in zip(table.columns, widths, strict=True):
        column.width = chosen
    return True


def fitted(table: Table, console: Console) -> bool:
    """Whether `table` fits the console with every word on a line of its own, its columns then set so (else:
    print_records). Fitting it, not only asking whether it could fit: rich's own shrinking of a table with boxes
    folded the quote's words ("domestic-referen / ce")."""
    return _width(table, console) <= console.width or _fit(table, console)


def _layout(table: Table, console: Console) -> tuple[tuple[int, int], list[int]] | None:
    """The padding and column widths _fit gives `table`, or None where its words do not fit (the table is left as
    it was)."""
    from rich.cells import cell_len

    cells = [[str(column.header), *(str(cell) for cell in column.cells)] for column in table.columns]
    whole = [max((cell_len(line) for cell in column for line in cell.splitlines()), default=1) for column in cells]
    words = [max(cell_len(word) for cell in column for word in [*cell.split(), ""]) for column in cells]
    was, gaps = table.padding, {}
    for padding in ((0, 1), (0, 0)):
        table.padding = padding
        gaps[padding] = _width(table, console) - sum(whole)
    table.padding = was
    fitting = next((p for p in gaps if sum(words) <= console.width - gaps[p]), None)
    if fitting is None:
        return None
    left = console.width - gaps[fitting]  # the room for the text, less gaps and rules
    spare, wanted = left - sum(words), [w - r for w, r in zip(whole, words, strict=True)]
    return fitting, [run + spare * extra // max(sum(wanted), 1) for run, extra in zip(words, wanted, strict=True)]
