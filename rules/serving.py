"""Serving memory from the model: the weights, the KV cache for the context and the concurrent requests,
and overhead. Pure: the architecture table below, the answer and the policy's `serving` section in.

KV cache bytes per token = 2 (keys and values) x layers x KV heads x head dimension x bytes per value
(the attention cache every decoder layer keeps for every token of every request in flight; grouped-query
attention keeps fewer KV heads than query heads). Qwen2.5-7B at bf16: 2 x 28 x 4 x 128 x 2 = 57,344 bytes,
56 KiB per token, 0.164 GiB for a 3,072-token request. Weights are the parameters times the bytes per
weight of the quantisation (bf16 2, fp8/int8 1, int4 0.5). Figures in GB (10^9 bytes) like the rest of
the advice; "3k" tokens means 3,072.

The architectures are the publishers' own figures, from each model's config.json on its model card
(num_hidden_layers, num_key_value_heads, hidden_size / num_attention_heads; GLM-4 calls its KV heads
multi_query_group_num) and the parameter count the card states.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from rules.policy import Serving


@dataclass(frozen=True)
class Architecture:
    name: str  # as the publisher spells it
    params_b: float  # billions of parameters
    layers: int
    kv_heads: int
    head_dim: int
    source: str

    def kv_bytes_per_token(self, bytes_per_value: float) -> float:
        return 2 * self.layers * self.kv_heads * self.head_dim * bytes_per_value


MODELS: tuple[Architecture, ...] = (
    Architecture("Llama-3.1-8B", 8.03, 32, 8, 128, "meta-llama/Llama-3.1-8B config.json (4096 / 32 heads)"),
    Architecture("Llama-3.1-70B", 70.6, 80, 8, 128, "meta-llama/Llama-3.1-70B config.json (8192 / 64 heads)"),
    Architecture("Qwen2.5-7B", 7.61, 28, 4, 128, "Qwen/Qwen2.5-7B config.json (3584 / 28 heads)"),
    Architecture("Qwen2.5-14B", 14.7, 48, 8, 128, "Qwen/Qwen2.5-14B config.json (5120 / 40 heads)"),
    Architecture("Qwen2.5-32B", 32.5, 64, 8, 128, "Qwen/Qwen2.5-32B config.json (5120 / 40 heads)"),
    Architecture("Qwen2.5-72B", 72.7, 80, 8, 128, "Qwen/Qwen2.5-72B config.json (8192 / 64 heads)"),
    Architecture("Mistral-7B", 7.25, 32, 8, 128, "mistralai/Mistral-7B-v0.3 config.json (4096 / 32 heads)"),
    Architecture(
        "DeepSeek-R1-Distill-Qwen-7B",
        7.62,
        28,
        4,
        128,
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B config.json (Qwen2.5-Math-7B base)",
    ),
    Architecture(
        "DeepSeek-R1-Distill-Qwen-32B",
        32.8,
        64,
        8,
        128,
        "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B config.json (Qwen2.5-32B base)",
    ),
    Architecture("GLM-4-9B", 9.4, 40, 2, 128, "THUDM/glm-4-9b-chat config.json (multi_query_group_num 2)"),
)


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


BY_KEY = {_key(m.name): m for m in MODELS} | {_key("Mistral-7B-v0.3"): MODELS[6], _key("glm-4-9b-chat"): MODELS[9]}


# a model said by its family and size, as people say it ("llama 70B", "qwen 72b", "llama3-8b")
_FAMILY_SIZE = re.compile(r"(?P<family>[a-z]+)[a-z0-9.\-_ ]*?[\s\-_]?(?P<size>\d+(?:\.\d+)?)\s*b")


def find_model(name: str) -> Architecture | None:
    """A bundled architecture by its name, in any case and spacing ("qwen2.5-7b", "Llama 3.1 70B"), or by its family
    and size where one bundled model alone has both ("llama 70B": Llama-3.1-70B; it was an unknown model). The answer
    names the architecture it used, so the reading is said."""
    found = BY_KEY.get(_key(name))
    said = _FAMILY_SIZE.fullmatch(name.strip().lower()) if found is None else None
    if said is None:
        return found
    family, size = said["family"], said["size"]
    named = [
        m
        for m in MODELS  # a distill is another family's architecture under this one's name: never guessed
        if m.name.lower().startswith(family)
        and m.name.lower().endswith(f"-{size}b")
        and "distill" not in m.name.lower()
    ]
    return named[0] if len(named) == 1 else None


def nearest_model(params_b: float) -> Architecture:
    """The bundled architecture closest in size, for an answer that gives only the size ("7B serve")."""
    return min(MODELS, key=lambda m: (abs(math.log(m.params_b / params_b)), m.name))


@dataclass(frozen=True)
class ServingBreakdown:
    """GB of each part of a served model's memory, and what it was computed from."""

    model: str
    assumed_model: bool  # the answer gave a size only: the nearest bundled architecture stands for it
    quant: str
    context: int  # tokens a request may hold
    concurrency: int  # requests in flight at once
    kv_kib_per_token: float
    kv_bytes: float  # bytes per cached value
    weights_gb: float
    kv_cache_gb: float
    overhead_gb: float

    @property
    def total_gb(self) -> float:
        return round(self.weights_gb + self.kv_cache_gb + self.overhead_gb, 1)


def weight_bytes(quant: str, rules: Serving) -> float:
    return rules.weight_bytes.get(quant, rules.weight_bytes[rules.default_quant])


def serving_breakdown(
    model: Architecture,
    quant: str | None,
    context: int | None,
    concurrency: int | None,
    rules: Serving,
    *,
    assumed_model: bool = False,
) -> ServingBreakdown:
    quant = quant or rules.default_quant
    context = context or rules.default_context
    concurrency = concurrency or rules.default_concurrency
    per_token = model.kv_bytes_per_token(rules.kv_bytes_per_value)
    return ServingBreakdown(
        model.name,
        assumed_model,
        quant,
        context,
        concurrency,
        round(per_token / 1024, 1),
        rules.kv_bytes_per_value,
        round(model.params_b * weight_bytes(quant, rules), 1),
        round(per_token * context * concurrency / 1e9, 1),
        rules.overhead_gb,
    )


def max_concurrency(parts: ServingBreakdown, model: Architecture, memory_gb: float, rules: Serving) -> int:
    """How many requests of `parts.context` tokens `memory_gb` holds beside the weights and overhead."""
    per_request = model.kv_bytes_per_token(rules.kv_bytes_per_value) * parts.context / 1e9
    room = memory_gb - parts.weights_gb - parts.overhead_gb
    return max(0, math.floor(room / per_request + 1e-9)) if per_request > 0 else 0
