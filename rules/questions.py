"""Every answer a profile takes: its key, its parser, its usual answers, and when it is asked.

This is the one table of answers. The front ends derive from it: the CLI's flags, the inline keys
of `/gpu-advise`, the modal's fields and the conversation's order (bot/fields/answers.py), and which answers
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
    KIND = "kind"  # the kind of work: asked first, it decides which questions follow
    PROFILE = "profile"  # the five questions of the task profile (training and other batch work)
    CONTEXT = "context"  # optional questions asked after them
    INFERENCE = "inference"  # asked only when the workload is inference
    EXTRA = "extra"  # never asked in a conversation: flags and inline keys only


@dataclass(frozen=True)
class Ask:
    key: str  # the TaskProfile field it fills
    parse: Callable[[str], Any]
    options: tuple[str, ...] = ()  # the usual answers (buttons), each accepted by `parse`
    stage: Stage = Stage.PROFILE

    @property
    def required(self) -> bool:
        """Required to decide a training job (inference needs only QPS and P99: see required_in())."""
        return self.stage is Stage.PROFILE

    def accepted(self) -> list[str]:
        return parsing.accepted_for(self.key)


def _yes_no(key: str) -> Callable[[str], bool]:
    return lambda text: parsing.parse_yes_no(text, key)


ASKS: tuple[Ask, ...] = (
    Ask(
        "workload",
        parsing.parse_workload,
        ("pretrain", "full-finetune", "lora", "qlora", "hpo", "inference", "debug"),
        Stage.KIND,
    ),
    Ask("duration", parsing.parse_duration, ("<1h", "1-8h", ">8h")),
    Ask("memory", parsing.parse_memory, ("yes", "no")),
    Ask("model_parallel", parsing.parse_model_parallel, ("yes", "no")),
    Ask("frequency", parsing.parse_frequency, ("daily", "low")),
    Ask("can_resume", _yes_no("can_resume"), ("yes", "no")),
    Ask("phase", parsing.parse_phase, ("exploration", "stable", "deployment"), Stage.CONTEXT),
    Ask("gpu", parsing.parse_gpu, ("A100-80GB", "H100-80GB", "RTX4090-24GB"), Stage.CONTEXT),
    Ask("schedule", parsing.parse_schedule, (), Stage.CONTEXT),
    Ask("qps", parsing.parse_qps, (), Stage.INFERENCE),
    Ask("p99_ms", parsing.parse_p99, (), Stage.INFERENCE),
    Ask("serving_hours", parsing.parse_serving_hours, ("24/7", "12h a day", "8h a day"), Stage.INFERENCE),
    Ask("checkpointing", _yes_no("checkpointing"), ("yes", "no"), Stage.EXTRA),
    Ask("model_size_b", parsing.parse_model_size, (), Stage.EXTRA),
    Ask("cards", parsing.parse_cards, (), Stage.EXTRA),
    Ask("sharing", parsing.parse_sharing, ("mig", "vnpu", "qgpu", "hami", "time-slicing"), Stage.EXTRA),
    Ask("yearly_gpu_hours", parsing.parse_yearly_gpu_hours, (), Stage.EXTRA),
)

# what skips an optional question, typed in chat or the terminal, as the Skip button (or Enter) does: skip, 跳过, or
# one not decided yet or not known (`GPU: 还没定` was refused naming the known GPUs); not "none": no checkpoints is
# an answer
SKIP_WORDS = {"skip", "pass", "-", "跳过", "略过", "不填"}
SKIP_WORDS |= {"没定", "还没定", "没想好", "还没想好", "未定", "待定", "不确定", "不知道", "不清楚", "随便",
               "都行", "不限", "no idea", "don't know", "dont know", "not sure", "dunno", "undecided", "tbd",
               "any", "whatever", "no preference", "anything", "either", "没有偏好", "无偏好", "都可以"}  # fmt: skip
# no preference, said as leaving it to the advice ("whatever's cheapest" on the GPU question)
SKIP_WORDS |= {"无所谓", "没要求", "没什么要求", "你定", "你来定", "你推荐", "看着办", "最便宜的", "便宜的就行",
               "up to you", "you pick", "you choose", "your call", "whatever's cheapest", "whatever is cheapest",
               "cheapest", "the cheapest", "the cheapest one"}  # fmt: skip


def skips(text: str) -> bool:
    """Whether an answer to an optional question skips it: a skip word, or not knowing said in any words ("no idea
    honestly", "不知道呢"), as the Skip button does."""
    from rules.colloquial import unsure
    from rules.numbers import normalise

    said = text.strip().lower()
    return said in SKIP_WORDS or unsure(normalise(said))


BY_KEY: dict[str, Ask] = {a.key: a for a in ASKS}
FIVE: tuple[Ask, ...] = tuple(a for a in ASKS if a.stage is Stage.PROFILE)
INFERENCE_KEYS = ("qps", "p99_ms")


def is_inference(parsed: Mapping[str, Any]) -> bool:
    return parsed.get("workload") is Workload.INFERENCE


# Inference is a service: after its QPS, P99 and serving hours, the memory of the served model (optional).
_SERVICE = ("qps", "p99_ms", "serving_hours", "memory", "phase", "gpu")


def conversation(parsed: Mapping[str, Any]) -> list[Ask]:
    """The questions a conversation asks, in order: the kind of work first, then what matters for it
    (a service: QPS, P99, hours a day it serves, memory; other work: the five questions and the context)."""
    if is_inference(parsed):
        return [BY_KEY["workload"]] + [BY_KEY[key] for key in _SERVICE]
    stages = (Stage.KIND, Stage.PROFILE, Stage.CONTEXT)
    return [a for stage in stages for a in ASKS if a.stage is stage]


@dataclass(frozen=True)
class Step:
    """A question as a conversation asks it: required or not, and its place among the required ones."""

    ask: Ask
    required: bool
    number: int  # 1-based among the required questions (0 for an optional one)
    total: int  # how many questions are required
    model: str | None = None  # memory: a model the kind of work's answer named ("qwen2.5-72b"), offered as its answer


def steps(parsed: Mapping[str, Any]) -> list[Step]:
    """conversation() with each question's place: "Question 2/5", or optional."""
    required = required_in(parsed)
    out, number = [], 0
    for ask in conversation(parsed):
        is_required = ask.key in required
        number += is_required
        out.append(Step(ask, is_required, number if is_required else 0, len(required)))
    return out


def required_in(parsed: Mapping[str, Any]) -> tuple[str, ...]:
    """The answers a decision needs: QPS and P99 for inference, else the five questions'."""
    return INFERENCE_KEYS if is_inference(parsed) else tuple(a.key for a in FIVE)


def missing(parsed: Mapping[str, Any]) -> list[str]:
    """The required answers not yet given (inference: QPS and P99; other work: the five questions)."""
    return [key for key in required_in(parsed) if key not in parsed]
