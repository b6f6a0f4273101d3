"""Memory: the training estimate from model size (domain.md's bytes per parameter, plus activations),
and the memory a job must be given, from the user's answer and that estimate together."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rules.gpus import GPUModel
from rules.policy import MemoryEstimates, Policy
from rules.profile import MemoryAnswer, TaskProfile, Workload

if TYPE_CHECKING:  # the model tables are loaded by the answers that name a model (the terminal's start pays less)
    from rules.serving import Architecture, ServingBreakdown


def served(answer: MemoryAnswer | None, policy: Policy) -> tuple[Architecture, ServingBreakdown] | None:
    """A memory answer naming a served model ("qwen2.5-7b 8k x 16"): its architecture and memory."""
    if answer is None or answer.method is not Workload.INFERENCE or answer.model_size_b is None:
        return None
    from rules.serving import find_model, nearest_model, serving_breakdown

    model = find_model(answer.served_model or "") or nearest_model(answer.model_size_b)
    parts = serving_breakdown(
        model,
        answer.quant,
        answer.context,
        answer.concurrency,
        policy.serving,
        assumed_model=find_model(answer.served_model or "") is None
        or abs(model.params_b - answer.model_size_b) / answer.model_size_b > 0.02,
    )
    return model, parts


def estimate_training_gb(model_size_b: float, workload: Workload | None, rules: MemoryEstimates) -> float | None:
    """Estimated peak memory in GB for training a model of `model_size_b` billion parameters
    (rules/memory_model.py's breakdown). None when the workload has no rule of thumb."""
    from rules.memory_model import breakdown

    parts = breakdown(model_size_b, workload, rules)
    return None if parts is None else parts.total_gb


@dataclass(frozen=True)
class MemoryNeed:
    """What the job needs: `peak_gb` when a figure is known (answered or estimated; the larger of the
    two), `hold_gb` the memory an option must give (a bare "yes, above 80%" means more than 80% of
    the card), `estimate_gb` the model-size estimate, and whether it disagrees with the answer."""

    peak_gb: float | None
    hold_gb: float | None
    estimate_gb: float | None
    answered_tight: bool | None
    estimate_tight: bool | None
    bound_gb: float | None = None  # a bare "no": the peak is at most this (the tight line); no figure given

    @property
    def figure_known(self) -> bool:
        return self.peak_gb is not None

    @property
    def disagrees(self) -> bool:
        return None not in (self.answered_tight, self.estimate_tight) and self.answered_tight != self.estimate_tight


def answered_peak_gb(profile: TaskProfile, card: GPUModel, policy: Policy) -> tuple[float | None, float]:
    """(peak GB the answer gives, if any; the card size the answer refers to). An answer naming the
    model ("7B LoRA", "qwen2.5-7b 8k x 16") gives the estimate's total."""
    rules = policy.memory_estimates
    answer = profile.memory
    card_gb = (answer.card_gb if answer and answer.card_gb else None) or card.memory_gb
    if answer is None:
        return None, card_gb
    serving = served(answer, policy)
    if serving is not None:
        return serving[1].total_gb, card_gb
    if answer.model_size_b is not None:
        return estimate_training_gb(answer.model_size_b, answer.method, rules), card_gb
    if answer.peak_gb is not None:
        return answer.peak_gb, card_gb
    if answer.fraction is not None:
        return round(answer.fraction * card_gb, 2), card_gb
    return None, card_gb


def over_line(share: float, line: float, bound: str | None) -> bool:
    """Is a peak at `share` of the card past the tight line? "More than 64 GB" (bound "above") is past it at the line
    itself: more than 80% of an 80 GB card."""
    return share > line or (bound == "above" and share >= line)


def memory_need(profile: TaskProfile, card: GPUModel, policy: Policy) -> MemoryNeed:
    limit = policy.two_of_four.memory_tight_fraction
    answered, card_gb = answered_peak_gb(profile, card, policy)
    answered_tight: bool | None = None
    stated = profile.memory.bound if profile.memory is not None else None  # "more than 64 GB": past the figure
    if answered is not None:
        answered_tight = over_line(answered / card_gb, limit, stated)
    elif profile.memory is not None:
        answered_tight = profile.memory.tight
    estimate = None
    if profile.model_size_b and profile.workload is not None:
        estimate = estimate_training_gb(profile.model_size_b, profile.workload, policy.memory_estimates)
    estimate_tight = None if estimate is None else estimate / card.memory_gb > limit
    peak = max((v for v in (answered, estimate) if v is not None), default=None)
    hold = round(peak + 0.01, 2) if stated == "above" and peak is not None and peak == answered else peak
    if answered_tight and answered is None:  # "yes, above 80%" with no figure: more than that share of the card
        hold = max(peak or 0.0, round(card.memory_gb * limit, 2) + 0.01)
    bound = round(card.memory_gb * limit, 2) if answered_tight is False and answered is None else None
    return MemoryNeed(peak, hold, estimate, answered_tight, estimate_tight, bound)
