"""The corpus of answers as people type them (tests/data/answers.yaml): each reads as it says, or is refused
with the problem it names. The parsers are the ones every surface uses (rules/answers.parse_answers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from rules.answers import AnswersError, parse_answers

CORPUS = yaml.safe_load((Path(__file__).parents[1] / "data" / "answers.yaml").read_text("utf-8"))
CASES = [(key, str(text), expected) for key, answers in CORPUS.items() for text, expected in answers.items()]
BUCKETS = {"short", "medium", "long"}


def test_the_corpus_is_large_and_covers_both_languages() -> None:
    assert len(CASES) >= 300
    for key, answers in CORPUS.items():
        chinese = [t for t in answers if any("\u4e00" <= c <= "\u9fff" for c in str(t))]
        assert chinese and len(chinese) < len(answers), key  # both languages for every field


def _read(key: str, value: Any) -> Any:
    """The parsed value in the corpus's terms."""
    if key == "duration":
        if value.bucket is not None:
            return str(value.bucket)
        return f">{value.hours:g}" if value.above else round(value.hours, 4)
    if key == "memory":
        if value.tight is not None:
            return "tight" if value.tight else "roomy"
        fields = ("peak_gb", "card_gb", "fraction", "model_size_b", "method", "served_model", "quant", "context",
                  "bound", "low_gb")  # fmt: skip
        read = {f: getattr(value, f) for f in (*fields, "concurrency") if getattr(value, f) is not None}
        return {k: (round(v, 4) if isinstance(v, float) else str(v) if k == "method" else v) for k, v in read.items()}
    if key == "frequency":
        return str(value.level) if value.level is not None else round(value.runs_per_week, 4)
    if key == "schedule":
        return [value.hours_per_day, value.days]
    if key in ("workload", "phase"):
        return str(value)
    return value


@pytest.mark.parametrize(("key", "text", "expected"), CASES, ids=[f"{k}:{t}" for k, t, _ in CASES])
def test_each_answer_reads_as_the_corpus_says(key: str, text: str, expected: Any) -> None:
    if isinstance(expected, str) and expected.startswith("refused"):
        with pytest.raises(AnswersError) as caught:
            parse_answers({key: text})
        _, _, problem = expected.partition(":")
        if problem:
            assert caught.value.errors[key].problem == problem
        return
    parsed = parse_answers({key: text})
    read = _read(key, parsed[key])
    if key == "model_parallel" and isinstance(expected, dict):
        assert (read, parsed.get("model_parallel_cards")) == (True, expected["cards"])
        return
    if key == "memory" and isinstance(expected, dict):
        expected = {k: (str(v) if k == "method" else v) for k, v in expected.items()}
        assert {k: read.get(k) for k in expected} == expected, read
        return
    if isinstance(expected, float | int) and not isinstance(expected, bool):
        assert read == pytest.approx(expected, abs=1e-3)
        return
    assert read == expected


def test_the_memory_range_line_is_the_bundled_policys() -> None:
    """A memory range is refused when it straddles the tight line; the parser (which has no policy) keeps the
    bundled policy's fraction: a change of one without the other fails here."""
    from rules.memory_amounts import TIGHT_LINE
    from rules.policy import load_policy

    assert load_policy().two_of_four.memory_tight_fraction == TIGHT_LINE


def test_the_docs_say_how_many_answers_the_corpus_holds() -> None:
    import re

    said = re.search(r"A few of the (\d+)\s", (Path(__file__).parents[2] / "docs" / "terminal.md").read_text("utf-8"))
    assert said is not None and int(said[1]) == len(CASES)  # docs/terminal.md counts tests/data/answers.yaml
