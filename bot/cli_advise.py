"""`gpu-advise advise`: the terminal advisor, interactive or from flags."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console

from bot.present import decision_data
from bot.terminal import print_decision
from rules.answers import AnswersError, build_profile, parse_answers
from rules.engine import evaluate
from rules.errors import ParseError
from rules.messages import Lang, parse_error_text, ui
from rules.policy import Policy
from rules.profile import Workload
from rules.questions import FIVE, FOLLOW_UPS, INFERENCE, Ask

# flag name for each answer key, for error messages
FLAGS = {
    "duration": "--duration", "memory": "--memory-peak", "model_parallel": "--model-parallel",
    "frequency": "--frequency", "can_resume": "--can-resume", "workload": "--workload", "phase": "--phase",
    "gpu": "--gpu", "schedule": "--schedule", "qps": "--qps", "p99_ms": "--p99-ms",
    "checkpointing": "--checkpointing", "model_size_b": "--model-size", "cards": "--cards",
    "yearly_gpu_hours": "--yearly-gpu-hours",
}


class InputEnded(Exception):
    """Standard input closed before every required question was answered."""


def _ask(console: Console, ask: Ask, lang: Lang, number: str) -> Any:
    console.print(f"\n[bold]{number}[/bold] {ask.text(lang)}")
    if ask.options:
        usual = " · ".join(f"{o.value} ({o.label(lang)})" if o.value != o.label(lang) else o.value
                           for o in ask.options)
        console.print(f"  [dim]{ui('usual', lang)}: {usual}[/dim]")
    examples = ", ".join(ask.accepted()[:6])
    console.print(f"  [dim]{ui('or_type', lang)} {examples}[/dim]")
    if not ask.required:
        console.print(f"  [dim]({ui('optional', lang)})[/dim]")
    while True:
        try:
            text = console.input("> ")
        except EOFError:
            raise InputEnded(ask.key) from None
        if not text.strip() and not ask.required:
            return None
        try:
            return ask.parse(text)
        except ParseError as exc:
            console.print(f"  [red]{parse_error_text(text, exc.problem, exc.accepted, lang)}[/red]")


def _interview(console: Console, parsed: dict[str, Any], lang: Lang) -> None:
    """Ask, in order, every question that the flags did not answer."""
    follow_ups = [a for a in FOLLOW_UPS if a.key not in parsed]
    if parsed.get("workload") is not Workload.INFERENCE:
        for n, ask in enumerate(FIVE, 1):
            if ask.key not in parsed:
                parsed[ask.key] = _ask(console, ask, lang, ui("question", lang, n=n, total=len(FIVE)))
    for ask in follow_ups:
        value = _ask(console, ask, lang, "+")
        if value is not None:
            parsed[ask.key] = value
        if ask.key == "workload" and value is Workload.INFERENCE:
            for inf in INFERENCE:
                if inf.key not in parsed and (value := _ask(console, inf, lang, "+")) is not None:
                    parsed[inf.key] = value


def missing_required(parsed: dict[str, Any]) -> list[str]:
    inference_ready = parsed.get("workload") is Workload.INFERENCE and "qps" in parsed and "p99_ms" in parsed
    if inference_ready:
        return []
    return [a.key for a in FIVE if a.key not in parsed]


def run_advise(raw: dict[str, str | None], *, policy: Policy, lang: Lang, as_json: bool,
               interactive: bool, console: Console, err: Console) -> tuple[int, dict[str, Any] | None]:
    """Returns (exit code, decision data). Prints the decision unless the caller adds to it."""
    try:
        parsed = parse_answers(raw)
    except AnswersError as exc:
        for key, error in exc.errors.items():
            err.print(f"{FLAGS.get(key, key)}: {parse_error_text(error.text, error.problem, error.accepted, lang)}",
                      markup=False, highlight=False)
        return 2, None
    if interactive:
        try:
            _interview(console, parsed, lang)
        except InputEnded as exc:
            err.print(f"input ended before the question {FLAGS.get(str(exc), str(exc))} was answered",
                      markup=False)
            return 2, None
    missing = missing_required(parsed)
    if missing:
        names = ", ".join(f"{FLAGS[k]} ({k.replace('_', ' ')})" for k in missing)
        err.print(f"missing answers: {names}. Pass them as flags, or run in a terminal to be asked.",
                  markup=False, highlight=False)
        return 2, None
    profile = build_profile(parsed)
    data = decision_data(profile, evaluate(profile, policy), lang)
    return 0, data


def emit(data: dict[str, Any], *, as_json: bool, lang: Lang, console: Console) -> None:
    if as_json:
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        print_decision(console, data, lang)
