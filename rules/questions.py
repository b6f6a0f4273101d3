"""Every answer a profile takes: its key, its parser, its usual answers, and when it is asked.

This is the one table of answers. The front ends derive from it: the CLI's flags, the inline keys
of `/gpu-advise`, the modal's fields and the conversation's order (bot/fields.py), and which answers
are required (missing() below). Each usual answer is a string its own parser accepts, so a button
press and a typed reply go through the same code. Wording lives in the bot's text catalogue
(`question.<key>`, `answer.<key>.<value>`), never here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rules import parsing
from rules.profile import Workload


class Stage(StrEnum):
    PROFILE = "profile"  # the five questions of the task profile
    CONTEXT = "context"  # optional questions asked after them
    INFERENCE = "inference"  # optional, asked only when the workload is inference
    EXTRA = "extra"  # never asked in a conversation: flags and inline keys only


@dataclass(frozen=True)
class Ask:
    key: str  # the TaskProfile field it fills
    parse: Callable[[str], Any]
    options: tuple[str, ...] = ()  # the usual answers (buttons), each accepted by `parse`
    stage: Stage = Stage.PROFILE

    @property
    def required(self) -> bool:
        """Required to decide a training job (inference needs only QPS and P99: see missing())."""
        return self.stage is Stage.PROFILE

    def accepted(self) -> list[str]:
        return parsing.accepted_for(self.key)


def _yes_no(key: str) -> Callable[[str], bool]:
    return lambda text: parsing.parse_yes_no(text, key)


ASKS: tuple[Ask, ...] = (
    Ask("duration", parsing.parse_duration, ("<1h", "1-8h", ">8h")),
    Ask("memory", parsing.parse_memory, ("yes", "no")),
    Ask("model_parallel", _yes_no("model_parallel"), ("yes", "no")),
    Ask("frequency", parsing.parse_frequency, ("daily", "low")),
    Ask("can_resume", _yes_no("can_resume"), ("yes", "no")),
    Ask("workload", parsing.parse_workload,
        ("pretrain", "full-finetune", "lora", "qlora", "hpo", "inference", "debug"), Stage.CONTEXT),
    Ask("phase", parsing.parse_phase, ("exploration", "stable", "deployment"), Stage.CONTEXT),
    Ask("gpu", parsing.parse_gpu, ("A100-80GB", "H100-80GB", "RTX4090-24GB"), Stage.CONTEXT),
    Ask("schedule", parsing.parse_schedule, (), Stage.CONTEXT),
    Ask("qps", parsing.parse_qps, (), Stage.INFERENCE),
    Ask("p99_ms", parsing.parse_p99, (), Stage.INFERENCE),
    Ask("checkpointing", _yes_no("checkpointing"), ("yes", "no"), Stage.EXTRA),
    Ask("model_size_b", parsing.parse_model_size, (), Stage.EXTRA),
    Ask("cards", parsing.parse_cards, (), Stage.EXTRA),
    Ask("yearly_gpu_hours", parsing.parse_yearly_gpu_hours, (), Stage.EXTRA),
)

BY_KEY: dict[str, Ask] = {a.key: a for a in ASKS}
FIVE: tuple[Ask, ...] = tuple(a for a in ASKS if a.stage is Stage.PROFILE)
INFERENCE_KEYS = ("qps", "p99_ms")


def is_inference(parsed: Mapping[str, Any]) -> bool:
    return parsed.get("workload") is Workload.INFERENCE


def conversation(parsed: Mapping[str, Any]) -> list[Ask]:
    """The questions a conversation asks, in order: the five, the context, then QPS and P99 for inference."""
    stages = [Stage.PROFILE, Stage.CONTEXT] + ([Stage.INFERENCE] if is_inference(parsed) else [])
    return [a for stage in stages for a in ASKS if a.stage is stage]


def missing(parsed: Mapping[str, Any]) -> list[str]:
    """The required answers not yet given: none for inference with QPS and P99, else the five questions'."""
    if is_inference(parsed) and all(key in parsed for key in INFERENCE_KEYS):
        return []
    return [a.key for a in FIVE if a.key not in parsed]
