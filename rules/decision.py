"""What the engine returns: a choice and the structured reasons behind it.

Reasons carry a rule id and parameters, never prose: the bot's text catalogue (bot/text/) renders them in zh or en,
so the terminal and Slack say the same thing.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from rules.profile import Question

Param = str | float | int | bool | None


class Choice(StrEnum):
    DEDICATED = "dedicated"
    SHARED = "shared"


class Basis(StrEnum):
    TWO_OF_FOUR = "two_of_four"
    INFERENCE = "inference"


class HitRule(StrEnum):
    LONG_RUN = "long_run"
    MEMORY_TIGHT = "memory_tight"
    MODEL_PARALLEL = "model_parallel"
    NO_INTERRUPTION = "no_interruption"


class Topic(StrEnum):
    DECISION = "decision"
    SCENARIO = "scenario"
    PHASE = "phase"
    BILLING = "billing"
    ISOLATION = "isolation"
    COMMUNICATION = "communication"
    MEMORY = "memory"
    COST = "cost"


class Reason(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    params: dict[str, Param] = Field(default_factory=dict)


class Check(Reason):
    """One of the four rules: `fired` says whether it counted as a dedicated hit."""

    rule: HitRule
    fired: bool


class Advice(Reason):
    topic: Topic


class Decision(BaseModel):
    model_config = ConfigDict(frozen=True)

    choice: Choice
    basis: Basis
    checks: list[Check]
    hits_needed: int
    missing: list[Question]
    advice: list[Advice]
    gpu: str
    memory_peak_gb: float | None = None
    mig_profile: str | None = None
    share_fraction: float = Field(gt=0, le=1)  # the slice of one card a shared option would take
    spot_suitable: bool = False

    @property
    def hits(self) -> list[Check]:
        return [c for c in self.checks if c.fired]

    @property
    def verdict(self) -> list[Advice]:
        """Why this choice: the rule that decided it (two of four, or the inference rule)."""
        return [a for a in self.advice if a.topic is Topic.DECISION]

    @property
    def guidance(self) -> list[Advice]:
        """Everything else it advises (scenario, phase, billing, isolation, ...), in order."""
        return [a for a in self.advice if a.topic is not Topic.DECISION]
