"""The profiling conversation: which question comes next, and recording an answer.

Answers are kept as the text the user gave (a button value or a typed reply); an empty string
means "skipped". Parsing is the rules/ parsers', so a restart re-reads them the same way.
"""

from __future__ import annotations

from typing import Any

from bot.store import Conversation
from rules.answers import parse_answers
from rules.errors import ParseError
from rules.profile import Workload
from rules.questions import FIVE, FOLLOW_UPS, INFERENCE, Ask


def sequence(answers: dict[str, str]) -> list[Ask]:
    """The questions of this conversation, in order (QPS and P99 only for inference)."""
    asks = list(FIVE + FOLLOW_UPS)
    workload = answers.get("workload")
    if workload:
        try:
            is_inference = parse_answers({"workload": workload})["workload"] is Workload.INFERENCE
        except ParseError:
            is_inference = False
        if is_inference:
            asks += INFERENCE
    return asks


def current(convo: Conversation) -> tuple[int, Ask] | None:
    """(1-based number, question) of the first unanswered question, or None when all are answered."""
    for number, ask in enumerate(sequence(convo.answers), 1):
        if ask.key not in convo.answers:
            return number, ask
    return None


def record(convo: Conversation, ask: Ask, text: str | None) -> Any:
    """Store an answer (None skips an optional question). Raises ParseError and stores nothing if unreadable."""
    if text is None:
        if ask.required:
            raise ValueError(f"{ask.key} cannot be skipped")
        convo.answers[ask.key] = ""
        return None
    value = ask.parse(text)
    convo.answers[ask.key] = text.strip()
    return value


def given(answers: dict[str, str]) -> dict[str, str]:
    """The answers that were given (skipped ones left out)."""
    return {k: v for k, v in answers.items() if v}
