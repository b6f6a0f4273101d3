"""From typed answers (keyed by TaskProfile field) to a TaskProfile, collecting every error at once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from rules.errors import ParseError
from rules.profile import TaskProfile
from rules.questions import BY_KEY


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
        try:
            parsed[key] = BY_KEY[key].parse(text)
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


def dump_answers(parsed: Mapping[str, Any]) -> dict[str, Any]:
    """Parsed answers as JSON-ready data (to keep them, parsed once, in a database)."""
    return build_profile(parsed).model_dump(mode="json", include=set(parsed))


def load_answers(data: Mapping[str, Any]) -> dict[str, Any]:
    """The parsed answers dump_answers() kept: validated back into their types, not parsed again."""
    profile = TaskProfile.model_validate(dict(data))
    return {key: getattr(profile, key) for key in data}
