"""Printing a decision in the terminal with rich."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from rules.messages import Lang, ui


def _bullets(rows: list[tuple[str, str, str | None]]) -> Table:
    """Marks and texts in two columns, so wrapped lines stay under their text."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=2, justify="right")
    grid.add_column(ratio=1, overflow="fold")
    for mark, text, style in rows:
        grid.add_row(Text(mark, style=style or ""), Text(text, style=(style or "") if mark == "→" else ""))
    return grid


def print_decision(console: Console, data: dict[str, Any], lang: Lang) -> None:
    style = "bold magenta" if data["choice"] == "dedicated" else "bold green"
    title = Text(f"{ui('recommendation', lang)}: ", style="bold") + Text(data["choice_text"], style=style)
    why: list[tuple[str, str, str | None]] = [
        ("✔", c["text"], "magenta") if c["fired"] else ("·", c["text"], "dim") for c in data["checks"]]
    why += [("→", reason, "bold") for reason in data["reasons"][len(data["hits"]):]]
    if data["missing"]:
        why.append(("?", f"{ui('missing', lang)}: {', '.join(data['missing'])}", "yellow"))
    parts: list[RenderableType] = [Text(ui("why", lang), style="bold"), _bullets(why)]
    topics: dict[str, list[tuple[str, str, str | None]]] = {}
    for advice in data["advice"]:
        topics.setdefault(advice["topic"], []).append(("•", advice["text"], None))
    for topic, rows in topics.items():
        parts += [Text(""), Text(ui("topic." + topic, lang), style="bold"), _bullets(rows)]
    console.print(Panel(Group(*parts), title=title, title_align="left"))
