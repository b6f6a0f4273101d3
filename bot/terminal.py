"""Printing a decision in the terminal with rich."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from rules.messages import Lang, ui


def print_decision(console: Console, data: dict[str, Any], lang: Lang) -> None:
    style = "bold magenta" if data["choice"] == "dedicated" else "bold green"
    title = Text(f"{ui('recommendation', lang)}: ", style="bold") + Text(data["choice_text"], style=style)
    body = Text()
    body.append(f"{ui('why', lang)}\n", style="bold")
    for check in data["checks"]:
        mark, mark_style = ("✔", "magenta") if check["fired"] else ("·", "dim")
        body.append(f"  {mark} ", style=mark_style)
        body.append(check["text"] + "\n")
    for reason in data["reasons"][len(data["hits"]):]:
        body.append(f"  → {reason}\n", style="bold")
    if data["missing"]:
        body.append(f"  {ui('missing', lang)}: {', '.join(data['missing'])}\n", style="yellow")
    topic = None
    for advice in data["advice"]:
        if advice["topic"] != topic:
            topic = advice["topic"]
            body.append(f"\n{ui('topic.' + topic, lang)}\n", style="bold")
        body.append(f"  • {advice['text']}\n")
    body.rstrip()
    console.print(Panel(body, title=title, title_align="left", expand=False))
