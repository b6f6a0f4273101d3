"""A quote request that pydantic refused, said as the person can act on it: the flag or key they typed, what they
gave and the bound it broke, in their language. pydantic's own messages ("hours_per_day: Input should be less than
or equal to 24") are English and name our fields, not the terminal's flags or the chat's keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.text.catalogue import t
from bot.text.format import literal
from bot.text.lang import Lang

if TYPE_CHECKING:
    from pydantic import ValidationError

# pydantic's error types that name a bound in their context, with the bound's key there
BOUNDS = {"greater_than": "gt", "greater_than_equal": "ge", "less_than": "lt", "less_than_equal": "le"}
NOT_A_NUMBER = frozenset({"float_parsing", "float_type", "int_parsing", "int_type", "int_from_float"})


def request_problems(exc: ValidationError, lang: Lang, typed: Callable[[str, str], str], where: str = "cli") -> str:
    """Every problem of the refused request, joined: each as `typed(field, value)` gives it (`--cards 2000`,
    `cards=2000`) and what was wrong with it. A problem of the whole request (no field) is its schedule missing
    (QuoteRequest's one check), said as `typed("schedule", "")`. In a chat (`where`) what was typed is echoed as
    literal text, never a mention or a link."""
    joined = "；" if lang is Lang.ZH else "; "
    return joined.join(_problem(error, lang, typed, where) for error in exc.errors(include_url=False))


def _problem(error: Any, lang: Lang, typed: Callable[[str, str], str], where: str) -> str:
    field = str(error["loc"][0]) if error["loc"] else ""
    kind, context, given = error["type"], error.get("ctx") or {}, _shown(error.get("input"))
    given = literal(given) if where == "chat" else given
    if not field:
        return t("request.schedule", lang, said=typed("schedule", ""))
    said = typed(field, given)
    if kind in BOUNDS:
        return t(f"request.{kind}", lang, said=said, bound=_shown(context[BOUNDS[kind]]))
    if kind in NOT_A_NUMBER or kind == "finite_number":
        return t("request.not_finite" if kind == "finite_number" else "request.not_a_number", lang, said=said)
    return f"{said}: {error['msg']}"  # none other is reachable from the terminal's or the chats' checked fields


def _shown(value: object) -> str:
    """A number as people write it (24, 0.5, 10,000,000); anything else as it was given."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if abs(value) >= 1e15 or value != value:  # past what anyone types as digits, or nan
        return f"{value:g}"
    return f"{int(value):,}" if float(value).is_integer() else f"{value:,.6g}"
