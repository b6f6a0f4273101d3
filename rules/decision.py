"""What the engine returns: a choice and the structured reasons behind it.

Reasons carry a rule id and parameters, never prose: the bot's text catalogue (bot/text/) renders them in zh or en,
so the terminal and Slack say the same thing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from rules.fit import SharedOption
from rules.profile import Question

Param = str | float | int | bool | None


class Choice(StrEnum):
    DEDICATED = "dedicated"
    SHARED = "shared"


class Basis(StrEnum):
    TWO_OF_FOUR = "two_of_four"
    INFERENCE = "inference"
    MEMORY = "memory"  # the peak is above one card: no shared option holds it


class HitRule(StrEnum):
    LONG_RUN = "long_run"
    MEMORY_TIGHT = "memory_tight"
    MODEL_PARALLEL = "model_parallel"
    NO_INTERRUPTION = "no_interruption"


class Topic(StrEnum):
    DECISION = "decision"
    WARNING = "warning"  # answers that disagree with each other; shown beside the decision
    SCENARIO = "scenario"
    PHASE = "phase"
    BILLING = "billing"
    ISOLATION = "isolation"
    COMMUNICATION = "communication"
    MEMORY = "memory"
    COST = "cost"


@dataclass(frozen=True, kw_only=True)
class Reason:
    id: str
    params: dict[str, Param] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Check(Reason):
    """One of the four rules: `fired` says whether it counted as a dedicated hit."""

    rule: HitRule
    fired: bool


@dataclass(frozen=True, kw_only=True)
class Advice(Reason):
    topic: Topic


@dataclass(frozen=True, kw_only=True)
class Decision:
    choice: Choice
    basis: Basis
    checks: list[Check]
    hits_needed: int
    missing: list[Question]
    advice: list[Advice]
    gpu: str
    memory_peak_gb: float | None = None
    mig_profile: str | None = None
    share_fraction: float  # the slice of one card a shared option would take (0, 1]
    spot_suitable: bool = False
    spot_reason: str | None = None  # why not: latency_critical, cannot_resume, resume_unknown
    yearly_gpu_hours: float | None = None  # as answered, or from run length x runs a week
    shared: SharedOption | None = None  # the smallest shared option that holds the peak; None: none does
    cards: int = 1  # cards the job needs (more than asked when the peak needs them)
    # a served model's memory answer: the most requests of its context the smallest option holds
    max_concurrent_requests: int | None = None

    @property
    def hits(self) -> list[Check]:
        return [c for c in self.checks if c.fired]

    @property
    def verdict(self) -> list[Advice]:
        """Why this choice: the rule that decided it (two of four, or the inference rule)."""
        return [a for a in self.advice if a.topic is Topic.DECISION]

    @property
    def warnings(self) -> list[Advice]:
        """Answers that disagree with each other or with the estimate, shown beside the decision."""
        return [a for a in self.advice if a.topic is Topic.WARNING]

    @property
    def guidance(self) -> list[Advice]:
        """Everything else it advises (scenario, phase, billing, isolation, ...), in order."""
        return [a for a in self.advice if a.topic not in (Topic.DECISION, Topic.WARNING)]
