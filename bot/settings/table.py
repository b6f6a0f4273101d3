"""The configuration page's tables (docs/configuration.md), made from the Settings model's areas: every setting,
with its variable, type, default and meaning. tests/test_docs.py keeps the page equal to what this makes."""

from __future__ import annotations

import types
import typing
from datetime import date
from enum import Enum
from pathlib import Path

from pydantic import SecretStr
from pydantic.fields import FieldInfo

from bot.settings import AREAS, FLAT, variables

TITLES = {  # the page's heading of each area of Settings (bot/settings/model.py)
    "files": "Files, language and currency",
    "prices": "Price sources",
    "slack": "Slack",
    "feishu": "Feishu/Lark",
    "serve": "serve: the front door, the work process, replicas, logs",
    "samples": "Captures, heartbeats and samples",
    "discovery": "Discovery",
    "digest": "The digest and reports",
}
TYPES: dict[type, str] = {
    bool: "true or false",
    int: "integer",
    float: "number",
    str: "text",
    Path: "path",
    SecretStr: "secret",
    date: "date (YYYY-MM-DD)",
}


def variable(flat: str, field: FieldInfo) -> str:
    return variables(flat, field)[0]


def kind(field: FieldInfo) -> str:
    """What a setting takes, in words: its type, or an enum's values."""
    annotation = field.annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return " or ".join(str(member.value) for member in annotation)
    return TYPES.get(annotation, str(annotation)) if isinstance(annotation, type) else str(annotation)


def default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        return "`~/.local/share/gpu-advisor/gpu-advisor.db`"
    if field.default in (None, ""):
        return "-"
    value = field.default.value if isinstance(field.default, Enum) else field.default
    return f"`{value}`"


def settings_table() -> str:
    """Every setting, one table an area (titled here, or by the first line of a chat's own area's doc)."""
    flat_of = {(area, name): flat for flat, (area, name) in FLAT.items()}
    parts = []
    for area, model in AREAS.items():
        title = TITLES.get(area) or (model.__doc__ or area).strip().splitlines()[0]  # a chat's own area: its doc
        rows = [f"### {title}", "", "| variable | type | default | meaning |", "|---|---|---|---|"]
        for name, field in model.model_fields.items():
            variable_name = variable(flat_of[(area, name)], field)
            rows.append(f"| `{variable_name}` | {kind(field)} | {default(field)} | {field.description} |")
        parts.append("\n".join(rows))
    return "\n\n".join(parts)
