"""Training memory rules of thumb (domain.md): bytes per parameter, plus activations."""

from __future__ import annotations

from rules.policy import MemoryEstimates
from rules.profile import Workload


def estimate_training_gb(model_size_b: float, workload: Workload | None, rules: MemoryEstimates) -> float | None:
    """Estimated peak memory in GB for training a model of `model_size_b` billion parameters.

    None when the workload has no rule of thumb (inference, search, debugging, unknown).
    """
    per_param = {
        Workload.PRETRAIN: rules.full_finetune_bytes_per_param,
        Workload.FULL_FINETUNE: rules.full_finetune_bytes_per_param,
        Workload.LORA: rules.lora_bytes_per_param,
        Workload.QLORA: rules.qlora_bytes_per_param,
    }.get(workload) if workload else None
    if per_param is None:
        return None
    return round(model_size_b * per_param * (1 + rules.activation_overhead), 1)
