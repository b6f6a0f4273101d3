"""From typed answers (keyed by TaskProfile field) to a TaskProfile, collecting every error at once."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Any

from rules.errors import ParseError
from rules.parsing import served_by_name_alone, with_workload
from rules.patterns import lazy
from rules.profile import TaskProfile, Workload
from rules.questions import BY_KEY, Step, skips

if TYPE_CHECKING:
    from pydantic import TypeAdapter


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
            parsed |= derived(key, str(text))
        except ParseError as exc:
            errors[key] = exc
    memory = errors.get("memory")
    if memory is not None and memory.problem in ("which_model_job", *WHICH_TRAINING):  # "7B" beside 推理: served
        with contextlib.suppress(ParseError):  # no kind of work, or one with no model rule: asked as it was
            parsed["memory"] = answer_in_context("memory", memory.text, parsed)
            del errors["memory"]
    if "memory" in parsed and served_by_name_alone(str(raw["memory"]), parsed["memory"]):  # a LoRA's qwen2.5-72b
        parsed["memory"] = answer_in_context("memory", str(raw["memory"]), parsed)
    if errors:
        raise AnswersError(errors)
    return parsed


_ASCII_RUNS = lazy(r"[A-Za-z0-9][A-Za-z0-9.\-_ ]*")  # a model's name inside Chinese words: 部署一个qwen2.5-72b的服务


def model_said(text: str, values: Mapping[str, Any]) -> str | None:
    """The model an answer names among other words ("部署一个qwen2.5-72b的对话服务", "做lora微调 qwen2-7b"), as
    typed, where the memory question reads it (with the kind of work in `values`); None when it names none."""
    runs: list[str] = _ASCII_RUNS.compiled.findall(text)
    for run in runs:
        for said in dict.fromkeys((run.strip(), *run.split())):  # the run, then each of its words
            with contextlib.suppress(ParseError):
                read = answer_in_context("memory", said, values)
                if getattr(read, "model_size_b", None) is not None:
                    return said
    return None


def with_model_offered(step: Step, workload_said: str, values: Mapping[str, Any]) -> Step:
    """`step` with the model the kind of work's answer named offered (chat's "Estimate from qwen2-7b", the
    terminal's Enter), where it is the memory question and one is named."""
    model = model_said(workload_said, values) if step.ask.key == "memory" else None
    return replace(step, model=model) if model else step


def offered_for(step: Step, typed: str) -> str:
    """What an answer to `step` is taken as: the model the kind of work named (`13B 全参微调`), where the memory
    question is answered with not knowing ("不知道", "not sure") and one is offered, as its button would; the
    answer as typed otherwise (it was refused, the estimate at hand unused)."""
    return step.model if step.model and typed.strip() and skips(typed) else typed


TRAINING = (Workload.PRETRAIN, Workload.FULL_FINETUNE, Workload.LORA, Workload.QLORA)  # each with a memory rule
WHICH_TRAINING = ("which_finetune", "which_training")  # "7B 微调", "7B 训练": the kind of training asked


def answer_in_context(key: str, text: str, values: Mapping[str, Any]) -> Any:
    """`key`'s answer read with what was answered before it: a bare model size on the memory question ("7B")
    takes the kind of work answered (`values`, as stored); asked which job it is when none was. A bundled model
    named alone ("qwen2.5-72b") after a kind of training is that training's model, not one served (it was
    estimated as a service, weights and KV cache, for a LoRA job)."""
    workload = values.get("workload")
    try:
        value = BY_KEY[key].parse(text)
    except ParseError as exc:
        if exc.problem in WHICH_TRAINING and workload in set(TRAINING) and "size" in exc.params:  # "7B 微调": LoRA
            return BY_KEY[key].parse(with_workload(str(exc.params["size"]), Workload(workload)))
        if exc.problem != "which_model_job" or workload not in set(Workload):
            raise
        try:
            return BY_KEY[key].parse(with_workload(text, Workload(workload)))
        except ParseError:  # a kind of work with no model rule (调参): asked as typed, trained or served
            raise exc from None
    if key == "memory" and workload in set(TRAINING) and served_by_name_alone(text, value):
        return BY_KEY[key].parse(with_workload(text, Workload(workload)))
    return value


# what one answer says besides its own value: the card count of a model-parallelism yes
DERIVED = {"model_parallel": ("model_parallel_cards",), "p99_ms": ("p99_bounded", "p99_lax"), "qps": ("qps_below",)}


def derived(key: str, text: str) -> dict[str, Any]:
    """The values an answer's text carries for other fields ({} when none)."""
    if key == "model_parallel":
        from rules.parsing import model_parallel_cards

        count = model_parallel_cards(text)
        return {"model_parallel_cards": count} if count is not None else {}
    if key == "p99_ms":
        from rules.parsing import p99_bounded, p99_lax

        return {"p99_bounded": True} if p99_bounded(text) else {"p99_lax": True} if p99_lax(text) else {}
    if key == "qps":
        from rules.parsing import qps_below

        return {"qps_below": True} if qps_below(text) else {}
    return {}


def build_profile(parsed: Mapping[str, Any]) -> TaskProfile:
    """A TaskProfile from parsed answers. Parsed answers are already valid, so this only fails on a bug."""
    try:
        return TaskProfile(**parsed)
    except (TypeError, ValueError) as exc:  # pragma: no cover - parsers guarantee valid values
        raise ValueError(f"inconsistent answers: {exc}") from exc


@cache
def _profiles() -> TypeAdapter[TaskProfile]:
    """pydantic at the edge: the profile's schema, built only where answers go to or come from storage."""
    from pydantic import TypeAdapter

    return TypeAdapter(TaskProfile)


def dump_answers(parsed: Mapping[str, Any]) -> dict[str, Any]:
    """Parsed answers as JSON-ready data (to keep them, parsed once, in a database)."""
    data: dict[str, Any] = _profiles().dump_python(build_profile(parsed), mode="json", include=set(parsed))
    return data


def load_answers(data: Mapping[str, Any]) -> dict[str, Any]:
    """The parsed answers dump_answers() kept: validated back into their types, not parsed again."""
    profile = _profiles().validate_python(dict(data))
    return {key: getattr(profile, key) for key in data}
