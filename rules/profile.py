"""The task profile: the five answers of seed 000's step 1, plus optional context.

Answers keep what the user said (hours, GB, runs a week) rather than a pre-computed verdict,
so the policy alone decides what counts as "long" or "tight".
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rules.gpus import DEFAULT_GPU, canonical_gpu


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


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


class Question(StrEnum):
    """The five questions, in the order they are asked."""

    DURATION = "duration"
    MEMORY = "memory"
    MODEL_PARALLEL = "model_parallel"
    FREQUENCY = "frequency"
    CAN_RESUME = "can_resume"


class DurationAnswer(Frozen):
    hours: float | None = Field(default=None, gt=0)
    bucket: DurationBucket | None = None
    above: bool = False  # "more than <hours>": strictly longer than the figure

    @model_validator(mode="after")
    def _one_of(self) -> DurationAnswer:
        if (self.hours is None) == (self.bucket is None):
            raise ValueError("give either hours or a bucket")
        return self


class MemoryAnswer(Frozen):
    """A plain yes/no, a percentage of the card, a peak in GB (optionally of a card size), or the model
    to estimate it from ("7B LoRA": its size in billions of parameters and how it is trained)."""

    tight: bool | None = None
    peak_gb: float | None = Field(default=None, gt=0)
    card_gb: float | None = Field(default=None, gt=0)
    fraction: float | None = Field(default=None, gt=0)
    model_size_b: float | None = Field(default=None, gt=0, le=10_000)
    method: Workload | None = None

    @model_validator(mode="after")
    def _something(self) -> MemoryAnswer:
        if (self.model_size_b is None) != (self.method is None):
            raise ValueError("a model estimate needs both the size and the method")
        if self.tight is None and self.peak_gb is None and self.fraction is None and self.model_size_b is None:
            raise ValueError("give yes/no, a percentage, a peak in GB or the model")
        return self


class FrequencyAnswer(Frozen):
    level: FrequencyLevel | None = None
    runs_per_week: float | None = Field(default=None, gt=0)

    @model_validator(mode="after")
    def _one_of(self) -> FrequencyAnswer:
        if self.level is None and self.runs_per_week is None:
            raise ValueError("give a level or runs per week")
        return self


class Schedule(Frozen):
    hours_per_day: float = Field(ge=0, le=24)
    days: float = Field(ge=0)


class TaskProfile(Frozen):
    # The five questions. Optional so that a conversation can be partly answered and inference
    # profiles can leave the training questions out; the engine says which are missing.
    duration: DurationAnswer | None = None
    memory: MemoryAnswer | None = None
    model_parallel: bool | None = None
    frequency: FrequencyAnswer | None = None
    can_resume: bool | None = None
    # Context.
    workload: Workload | None = None
    phase: Phase | None = None
    gpu: str = DEFAULT_GPU
    cards: int = Field(default=1, ge=1, le=1024)
    qps: float | None = Field(default=None, ge=0)
    p99_ms: float | None = Field(default=None, gt=0)
    checkpointing: bool | None = None
    model_size_b: float | None = Field(default=None, gt=0, le=10_000)
    schedule: Schedule | None = None
    yearly_gpu_hours: float | None = Field(default=None, ge=0)
    serving_hours: float | None = Field(default=None, gt=0, le=24)  # inference: hours a day the service runs

    @field_validator("gpu")
    @classmethod
    def _canonical(cls, value: str) -> str:
        return canonical_gpu(value)

    def missing(self) -> list[Question]:
        """The five questions still unanswered, in asking order."""
        return [q for q in Question if getattr(self, q.value) is None]
