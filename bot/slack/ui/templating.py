"""Block Kit from jinja2 templates (one per message kind), cut to Slack's limits and validated.

Templates produce JSON; strings go through the `j` filter (a JSON string literal, cut to a limit),
so no user text can break the structure.
"""

from __future__ import annotations

import json
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from bot.chat.parting import parted_text
from bot.slack.markup import escape, in_slack

__all__ = ["escape", "message", "render", "view"]

SECTION_TEXT = 3000  # the templates pass the other limits to `j`: button text 75, header 150, value 2000
METADATA = 3000
MAX_BLOCKS_MESSAGE = 50
MAX_BLOCKS_VIEW = 100


def cut(text: object, limit: int = SECTION_TEXT) -> str:
    value = str(text)
    return value if len(value) <= limit else value[: limit - 1] + "…"


def pieces(text: str, limit: int = SECTION_TEXT) -> list[str]:
    """A text as sections Slack takes (each at most `limit` characters once in Slack's markup), parted between its
    lines (bot/chat/parting.py): the help, 3,200 characters in English, lost its last lines to the cut ("…")."""
    return parted_text(text, lambda part: len(in_slack(part)) <= limit)


def _j(text: object, limit: int = SECTION_TEXT) -> str:
    """A text into a template: the neutral text's spans in Slack's markup (markup.py), then cut to its limit."""
    return json.dumps(cut(in_slack(str(text)), limit), ensure_ascii=False)


_env = Environment(
    loader=PackageLoader("bot.slack.ui", "templates"),
    autoescape=False,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
_env.filters["j"] = _j
_env.filters["tojson"] = lambda value: json.dumps(in_slack(value), ensure_ascii=False)


def render(template: str, **context: Any) -> Any:
    """Render `template` (a .json.j2 file) and parse it."""
    text = _env.get_template(template).render(**context)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:  # a template bug, caught by the tests
        raise ValueError(f"{template} rendered invalid JSON: {exc}") from exc


def message(template: str, **context: Any) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = render(template, **context)
    if len(blocks) > MAX_BLOCKS_MESSAGE:
        blocks = [*blocks[: MAX_BLOCKS_MESSAGE - 1], blocks[-1]]
    for block in blocks:
        Block.parse(block).validate_json()  # type: ignore[union-attr]
    return blocks


def view(template: str, **context: Any) -> dict[str, Any]:
    data: dict[str, Any] = render(template, **context)
    data["blocks"] = data["blocks"][:MAX_BLOCKS_VIEW]
    View(**data).validate_json()
    return data
