"""Run lengths as people type them (issue 33, section 2, a first slice): bounds and approximations read as their
number, "more than" kept as more than ("8个多小时" is more than 8, so the long-run rule fires), a half in words."""

from __future__ import annotations

import pytest

from rules.errors import ParseError
from rules.parsing import parse_duration


@pytest.mark.parametrize(
    ("typed", "hours", "above"),
    [
        ("12个多小时", 12, True),
        ("十多个小时", 10, True),
        ("两个多小时", 2, True),
        ("8个多小时", 8, True),
        ("10+ hours", 10, True),
        ("至少20小时", 20, True),
        ("起码两天", 48, True),
        ("at least 20 hours", 20, True),
        ("just over a day", 24, True),
        ("three and a half hours", 3.5, False),
        ("2 and a half days", 60, False),
        ("六七个小时", 7, False),  # a range: its upper end
        ("不到一小时", 1, False),
    ],
)
def test_a_run_length_as_typed(typed: str, hours: float, above: bool) -> None:
    said = parse_duration(typed)
    assert (said.hours, said.above) == (hours, above)


@pytest.mark.parametrize("typed", ["+10 hours", "10 hours+-", "多个小时"])
def test_what_is_not_a_length_is_refused(typed: str) -> None:
    with pytest.raises(ParseError):
        parse_duration(typed)


def test_more_than_eight_fires_the_long_run_rule(policy) -> None:  # type: ignore[no-untyped-def]
    from rules.answers import build_profile, parse_answers
    from rules.engine import evaluate

    answers = {
        "duration": "8个多小时",
        "memory": "no",
        "model_parallel": "no",
        "frequency": "daily",
        "can_resume": "no",
    }
    decision = evaluate(build_profile(parse_answers(answers)), policy)
    [long_run] = [c for c in decision.checks if c.id == "long_run_above"]
    assert long_run.fired
