"""Training memory from the model: weights, gradients, optimizer state, activations and overhead.

The parts, per billion parameters (so GB = billions x bytes per parameter):
- Full fine-tune or pre-training with Adam in mixed precision keeps 16 bytes per parameter: 2 for the
  bf16/fp16 weights, 2 for their gradients, 12 for the optimizer state (fp32 master weights, momentum
  and variance). Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
  Models" (SC20), section 3.1, "16 Psi bytes"; domain.md's "about 16 bytes per parameter".
- LoRA freezes the base weights (2 bytes per parameter in bf16) and trains small low-rank adapters,
  well under 1% of the parameters (Hu et al., "LoRA: Low-Rank Adaptation of Large Language Models",
  ICLR 2022); the adapters carry the full 16 bytes per trainable parameter.
- QLoRA stores the frozen base in 4-bit NormalFloat with double quantisation, about 0.5 byte per
  parameter plus the quantisation constants (Dettmers et al., "QLoRA: Efficient Finetuning of Quantized
  LLMs", NeurIPS 2023, section 3); domain.md says 0.5-0.6 bytes per parameter.
- Activations depend on batch size, sequence length and checkpointing: a policy share of the model
  states. Overhead is the CUDA context, cuBLAS workspaces and allocator slack: a fixed figure.

Checked against the articles (seed 000, tests/rules/test_memory_model.py): a 7B LoRA needs about
20 GB; a 13B full fine-tune needs several 80 GB cards; a 72B fine-tune needs at least 80 GB per card.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.policy import MemoryEstimates
from rules.profile import Workload

FULL = (Workload.PRETRAIN, Workload.FULL_FINETUNE)
ADAPTERS = (Workload.LORA, Workload.QLORA)
WEIGHT_BYTES, GRADIENT_BYTES = 2.0, 2.0  # bf16 weights and gradients


@dataclass(frozen=True)
class Breakdown:
    """GB of each part, and the total a card (or cards) must hold."""

    weights_gb: float
    gradients_gb: float
    optimizer_gb: float
    activations_gb: float
    overhead_gb: float

    @property
    def total_gb(self) -> float:
        return round(
            self.weights_gb + self.gradients_gb + self.optimizer_gb + self.activations_gb + self.overhead_gb, 1
        )


def breakdown(model_size_b: float, workload: Workload | None, rules: MemoryEstimates) -> Breakdown | None:
    """The training memory of a `model_size_b` billion parameter model; None for work with no rule of
    thumb (inference, search, debugging, other)."""
    if workload in FULL:
        weights, gradients = model_size_b * WEIGHT_BYTES, model_size_b * GRADIENT_BYTES
        optimizer = model_size_b * max(rules.full_finetune_bytes_per_param - WEIGHT_BYTES - GRADIENT_BYTES, 0.0)
    elif workload in ADAPTERS:
        base = rules.lora_bytes_per_param if workload is Workload.LORA else rules.qlora_bytes_per_param
        trainable = model_size_b * rules.adapter_fraction
        weights = model_size_b * base + trainable * WEIGHT_BYTES
        gradients = trainable * GRADIENT_BYTES
        optimizer = trainable * max(rules.full_finetune_bytes_per_param - WEIGHT_BYTES - GRADIENT_BYTES, 0.0)
    else:
        return None
    activations = (weights + gradients + optimizer) * rules.activation_overhead
    return Breakdown(
        round(weights, 1), round(gradients, 1), round(optimizer, 1), round(activations, 1), rules.overhead_gb
    )
