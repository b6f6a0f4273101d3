"""From typed answers (keyed by TaskProfile field) to a TaskProfile, collecting every error at once."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from rules import parsing
from rules.errors import ParseError
from rules.profile import TaskProfile
from rules.questions import BY_KEY


def _yearly(text: str) -> float:
    return parsing._positive("yearly_gpu_hours", text, r"(?P<n>\d+(?:\.\d+)?)(?P<unit>h|hours|gpu-hours|小时)?", {})


parsing.ACCEPTED["yearly_gpu_hours"] = ["1500", "3000h"]

PARSERS: dict[str, Callable[[str], Any]] = {key: ask.parse for key, ask in BY_KEY.items()} | {
    "checkpointing": lambda text: parsing.parse_yes_no(text, "checkpointing"),
    "model_size_b": parsing.parse_model_size,
    "cards": parsing.parse_cards,
    "yearly_gpu_hours": _yearly,
}


class AnswersError(ValueError):
    """One or more answers could not be read; `errors` maps each field to its ParseError."""

    def __init__(self, errors: dict[str, ParseError]) -> None:
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors.values()))


def parse_answers(raw: Mapping[str, str | None]) -> dict[str, Any]:
    """Parse every given answer (None or blank means not given). Raises AnswersError listing all bad ones."""
    parsed: dict[str, Any] = {}
    errors: dict[str, ParseError] = {}
    for key, text in raw.items():
        if text is None or not str(text).strip():
            continue
        if key not in PARSERS:
            raise KeyError(key)
        try:
            parsed[key] = PARSERS[key](text)
        except ParseError as exc:
            errors[key] = exc
    if errors:
        raise AnswersError(errors)
    return parsed


def build_profile(parsed: Mapping[str, Any]) -> TaskProfile:
    """A TaskProfile from parsed answers. Parsed answers are already valid, so this only fails on a bug."""
    try:
        return TaskProfile.model_validate(dict(parsed))
    except ValidationError as exc:  # pragma: no cover - parsers guarantee valid values
        raise ValueError(f"inconsistent answers: {exc}") from exc
