"""Several answers in one message, a clause each, as people describe a job in a sentence rather than answer question
by question: `我想微调一个qwen2.5 7b，用lora，大概跑3个小时` is the model (and so the memory's estimate), LoRA and
3 h; `训练一个7B模型，显存不到64G，每天跑，可以断点续训` four answers. Each clause is read by the questions' own
parsers (rules/answers.py), so a clause means here what it means as the answer to its question; a clause no
question reads is left out (the chat says back what it kept), and so is a bare yes or no (`需要`), which names no
question. Patterns over clauses, not a language model: what is
not split by punctuation is one clause, read by one question."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from typing import Any

from rules.answers import answer_in_context, model_said
from rules.errors import ParseError
from rules.numbers import normalise
from rules.parsing import read_yes_no
from rules.patterns import lazy

# at punctuation and Chinese joining words; not at English "and", which is inside answers (`three and a half hours`)
_BREAK = lazy(r"[,，;；。!！?？、：\n]+|:\s+|然后|而且|并且|另外")
# the order a clause is offered to the questions, the first that reads it taking it: the profile's own questions
# before the details that share their words (`3小时` is the run's length before hours of serving or of a year)
ORDER = (
    "workload",
    "duration",
    "memory",
    "model_parallel",
    "frequency",
    "can_resume",
    "qps",
    "p99_ms",
    "phase",
    "gpu",
    "model_size_b",
    "checkpointing",
)
# what a clause says beside the answer it gives (`全参微调一个13B模型`: the size too; `部署…做推理`: the phase too)
ALSO = ("model_size_b", "phase", "checkpointing")
# the answers a decision is made of: a message giving two of them describes a job
CORE = frozenset(("workload", "duration", "memory", "model_parallel", "frequency", "can_resume", "qps", "p99_ms"))


def clauses(text: str) -> list[str]:
    """The clauses of a message, split at punctuation and joining words."""
    return [part.strip() for part in _BREAK.compiled.split(text) if part and part.strip()]


def _reads(key: str, clause: str, values: Mapping[str, Any]) -> Any:
    """`key`'s answer in `clause` (read with the other answers, not with its own), or None."""
    with contextlib.suppress(ParseError):
        return answer_in_context(key, clause, {k: v for k, v in values.items() if k != key})
    return None


def answers_in(
    text: str, values: Mapping[str, Any] | None = None, skip: frozenset[str] = frozenset()
) -> dict[str, str]:
    """Each question a clause of `text` answers, with that clause as typed (the first clause to answer a question
    keeps it); `values`: what was answered before (the kind of work, for a model's memory), `skip`: questions
    answered already. A clause answers the first question of ORDER that reads it, and those of ALSO it says
    besides."""
    parts = clauses(text)
    context = dict(values or {})
    if "workload" not in context and "workload" not in skip:  # said anywhere, it is how a model's memory is read
        for part in parts:
            if (work := _reads("workload", part, context)) is not None:
                context["workload"] = str(work)
                break
    found: dict[str, str] = {}
    for part in parts:
        if read_yes_no(normalise(part)) is not None:  # `需要`, `no`: a yes or no alone names no question
            continue
        read = [key for key in ORDER if key not in found and key not in skip and _reads(key, part, context) is not None]
        for key in read[:1] + [key for key in read[1:] if key in ALSO]:
            found[key] = part
    if "memory" not in found and "memory" not in skip and "model_size_b" in found:
        model = model_said(found["model_size_b"], context)  # `我想微调一个qwen2.5 7b` beside LoRA: its estimate,
        if model is not None:  # as the memory question's button offers it
            found["memory"] = model
    return found


# a message that asks rather than answers (4090一天多少钱, 能中断吗, 7B LoRA 需要什么卡, how much is an A100?): read
# for a question it names, it is that question asked, not its answer
_ASKS = lazy(
    r"[?？]\s*$|(?:吗|么|嘛)\s*[?？。]?\s*$|多少|什么|怎么|为什么|哪(?:个|些|款|种|张|家|里)|是否|要不要|能不能|可不可以"
    r"|\b(?:how|what|which|why|whether)\b",
    re.IGNORECASE,
)


def asks(text: str) -> bool:
    """Whether `text` asks something (a question's words or mark) rather than answering it."""
    return _ASKS.search(text) is not None
