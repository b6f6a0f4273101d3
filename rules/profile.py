"""The task profile: the five answers of seed 000's step 1, plus optional context.

Answers keep what the user said (hours, GB, runs a week) rather than a pre-computed verdict,
so the policy alone decides what counts as "long" or "tight".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Literal

from annotated_types import Ge, Gt, Le

from rules.gpus import DEFAULT_GPU, canonical_gpu

# Plain frozen dataclasses: built from answers the parsers already checked. The Annotated bounds are the
# schema pydantic checks where answers come back from storage (rules/answers.py load_answers).
Positive = Annotated[float, Gt(0)]


class DurationBucket(StrEnum):
    SHORT = "short"  # < 1 h
    MEDIUM = "medium"  # 1-8 h
    LONG = "long"  # > 8 h


class FrequencyLevel(StrEnum):
    HIGH = "high"
    LOW = "low"


class Workload(StrEnum):
    PRETRAIN = "pretrain"
    FULL_FINETUNE = "full-finetune"
    LORA = "lora"
    QLORA = "qlora"
    HPO = "hpo"
    INFERENCE = "inference"
    DEBUG = "debug"
    OTHER = "other"


class Phase(StrEnum):
    EXPLORATION = "exploration"
    STABLE = "stable"
    DEPLOYMENT = "deployment"


class Sharing(StrEnum):
    """How a platform shares a card (issue 32): MIG and Ascend's vNPU templates isolate memory and compute in
    hardware; Tencent's qGPU and HAMi on Kubernetes set memory and compute limits in software; time-slicing
    sets none."""

    MIG = "mig"
    VNPU = "vnpu"
    QGPU = "qgpu"
    HAMI = "hami"
    TIME_SLICING = "time-slicing"


class Question(StrEnum):
    """The five questions, in the order they are asked."""

    DURATION = "duration"
    MEMORY = "memory"
    MODEL_PARALLEL = "model_parallel"
    FREQUENCY = "frequency"
    CAN_RESUME = "can_resume"


@dataclass(frozen=True, kw_only=True)
class DurationAnswer:
    hours: Positive | None = None
    bucket: DurationBucket | None = None
    above: bool = False  # "more than <hours>": strictly longer than the figure

    def __post_init__(self) -> None:
        if (self.hours is None) == (self.bucket is None):
            raise ValueError("give either hours or a bucket")


@dataclass(frozen=True, kw_only=True)
class MemoryAnswer:
    """A plain yes/no, a percentage of the card, a peak in GB (optionally of a card size), or the model
    to estimate it from ("7B LoRA": its size in billions of parameters and how it is trained)."""

    tight: bool | None = None
    peak_gb: Positive | None = None
    card_gb: Positive | None = None
    fraction: Positive | None = None
    model_size_b: Annotated[float, Gt(0), Le(10_000)] | None = None
    method: Workload | None = None
    # a served model (method inference): which architecture, its quantisation, context and concurrency
    served_model: str | None = None
    quant: str | None = None
    context: Annotated[int, Ge(1)] | None = None
    concurrency: Annotated[int, Ge(1)] | None = None
    # how a peak or share was stated (rules/quantity.py): "above" more than peak_gb (or fraction), with no upper end;
    # "below" less than it; low_gb the low end of an interval whose high end is peak_gb ("七十多G": 70-80)
    bound: Literal["above", "below"] | None = None
    low_gb: Positive | None = None

    def __post_init__(self) -> None:
        if (self.model_size_b is None) != (self.method is None):
            raise ValueError("a model estimate needs both the size and the method")
        if self.tight is None and self.peak_gb is None and self.fraction is None and self.model_size_b is None:
            raise ValueError("give yes/no, a percentage, a peak in GB or the model")


@dataclass(frozen=True, kw_only=True)
class FrequencyAnswer:
    level: FrequencyLevel | None = None
    runs_per_week: Positive | None = None

    def __post_init__(self) -> None:
        if self.level is None and self.runs_per_week is None:
            raise ValueError("give a level or runs per week")


@dataclass(frozen=True, kw_only=True)
class Schedule:
    hours_per_day: Annotated[float, Ge(0), Le(24)]
    days: Annotated[float, Ge(0)]


@dataclass(frozen=True, kw_only=True)
class TaskProfile:
    # The five questions. Optional so that a conversation can be partly answered and inference
    # profiles can leave the training questions out; the engine says which are missing.
    duration: DurationAnswer | None = None
    memory: MemoryAnswer | None = None
    model_parallel: bool | None = None
    model_parallel_cards: Annotated[int, Ge(2), Le(1024)] | None = None  # the count a yes named ("yes, 4 cards")
    frequency: FrequencyAnswer | None = None
    can_resume: bool | None = None
    # Context.
    workload: Workload | None = None
    phase: Phase | None = None
    sharing: Sharing | None = None  # the kind of sharing the team's platform offers (None: the card's best)
    gpu: str = DEFAULT_GPU
    cards: Annotated[int, Ge(1), Le(1024)] = 1
    qps: Annotated[float, Ge(0)] | None = None
    p99_ms: Positive | None = None
    qps_below: bool = False  # the peak was said as a bound ("不到100", "under 100"): below qps, not at it
    p99_bounded: bool = False  # the target was said as a bound ("<50ms", "50ms以内"): below p99_ms, not at it
    p99_lax: bool = False  # no target was said ("不敏感", "没要求"): p99_ms is a second or more, said as such
    checkpointing: bool | None = None
    model_size_b: Annotated[float, Gt(0), Le(10_000)] | None = None
    schedule: Schedule | None = None
    yearly_gpu_hours: Annotated[float, Ge(0)] | None = None
    serving_hours: Annotated[float, Gt(0), Le(24)] | None = None  # inference: hours a day the service runs

    def __post_init__(self) -> None:
        object.__setattr__(self, "gpu", canonical_gpu(self.gpu))
        for name, kind in (("workload", Workload), ("phase", Phase)):  # "lora" given as text reads as the enum
            value = getattr(self, name)
            if value is not None and not isinstance(value, kind):
                object.__setattr__(self, name, kind(value))

    def missing(self) -> list[Question]:
        """The five questions still unanswered, in asking order."""
        return [q for q in Question if getattr(self, q.value) is None]

    def p99_said(self) -> float | str | None:
        """The P99 target as the advice says it: "<50" for a bound, "≥1000" where none was said (不敏感)."""
        if self.p99_ms is not None and self.p99_bounded:
            return f"<{self.p99_ms:g}"
        if self.p99_ms is not None and self.p99_lax:
            return f"≥{self.p99_ms:g}"
        return self.p99_ms
