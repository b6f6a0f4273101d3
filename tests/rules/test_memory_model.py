"""Memory from the model ("7B LoRA"): the breakdown agrees with the articles, and the advice built on it
says the same as the header."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.text import Lang, t
from rules.answers import build_profile, parse_answers
from rules.decision import Choice
from rules.engine import evaluate
from rules.fit import shared_option
from rules.gpus import gpu_model
from rules.memory_model import breakdown
from rules.parsing import parse_memory
from rules.policy import Policy, load_policy
from rules.profile import Workload

BASE = {"duration": "3h", "model_parallel": "no", "frequency": "daily", "can_resume": "yes"}
RULES = load_policy().memory_estimates


def decide(policy: Policy, **answers: str) -> Any:
    return evaluate(build_profile(parse_answers(BASE | answers)), policy)


def total(size: float, method: Workload) -> float:
    parts = breakdown(size, method, RULES)
    assert parts is not None
    return parts.total_gb


def test_a_7b_lora_needs_about_20_gb_and_a_20_gb_slice_holds_it() -> None:
    assert 17 <= total(7, Workload.LORA) <= 20  # seed 000: "7B模型的LoRA微调，20GB显存就够用"
    option = shared_option(gpu_model("A100"), total(7, Workload.LORA), 0.5)
    assert option is not None and (option.mig_profile, option.memory_gb) == ("1g.20gb", 20)


def test_a_13b_full_fine_tune_needs_several_80_gb_cards(policy: Policy) -> None:
    assert total(13, Workload.FULL_FINETUNE) > 2 * 80  # seed 000: "需要多张80GB显存卡并行"
    decision = decide(policy, memory="13B 全参微调")
    assert decision.choice is Choice.DEDICATED and decision.cards >= 3


@pytest.mark.parametrize("method", [Workload.QLORA, Workload.LORA, Workload.FULL_FINETUNE])
def test_a_72b_fine_tune_needs_at_least_80_gb_per_card(policy: Policy, method: Workload) -> None:
    assert total(72, method) > 48 * 0.8  # no 40 or 48 GB card holds it comfortably (seed 000: "单卡至少需要80GB")
    on_l40s = decide(policy, memory=f"72B {method.value}", gpu="L40S")
    assert on_l40s.choice is Choice.DEDICATED and on_l40s.cards >= 2


def test_full_fine_tuning_is_16_bytes_per_parameter_before_activations() -> None:
    parts = breakdown(10, Workload.FULL_FINETUNE, RULES)
    assert parts is not None
    assert (parts.weights_gb, parts.gradients_gb, parts.optimizer_gb) == (20, 20, 120)
    assert parts.activations_gb == pytest.approx(160 * RULES.activation_overhead)
    assert breakdown(10, Workload.INFERENCE, RULES) is None


@settings(max_examples=100, deadline=None)
@given(
    st.floats(min_value=0.1, max_value=1000),
    st.sampled_from([Workload.PRETRAIN, Workload.FULL_FINETUNE, Workload.LORA, Workload.QLORA]),
)
def test_the_parts_add_up_and_cheaper_methods_need_less(size: float, method: Workload) -> None:
    parts = breakdown(size, method, RULES)
    assert parts is not None
    added = parts.weights_gb + parts.gradients_gb + parts.optimizer_gb + parts.activations_gb + parts.overhead_gb
    assert parts.total_gb == pytest.approx(added, abs=0.11)
    assert total(size, Workload.QLORA) <= total(size, Workload.LORA) <= total(size, Workload.FULL_FINETUNE)


@pytest.mark.parametrize(
    ("text", "size", "method"),
    [
        ("7B LoRA", 7, Workload.LORA),
        ("13B 全参微调", 13, Workload.FULL_FINETUNE),
        ("72B QLoRA", 72, Workload.QLORA),
        ("qwen2.5-72b qlora", 72, Workload.QLORA),
        ("LoRA 7B", 7, Workload.LORA),
        ("70亿 lora", 7, Workload.LORA),
        ("7b模型的lora", 7, Workload.LORA),
        ("Llama-13B full fine-tune", 13, Workload.FULL_FINETUNE),
    ],
)
def test_the_memory_question_takes_the_model(text: str, size: float, method: Workload) -> None:
    answer = parse_memory(text)
    assert (answer.model_size_b, answer.method, answer.peak_gb) == (pytest.approx(size), method, None)


def test_a_model_that_is_served_is_estimated_as_served_not_from_training_rules() -> None:
    answer = parse_memory("7B inference")  # was refused; now the served model at the policy's defaults
    assert answer.method is Workload.INFERENCE and answer.served_model is not None
    assert (answer.context, answer.concurrency) == (None, None)


def test_the_advice_shows_the_breakdown_and_the_same_option_as_the_header(policy: Policy) -> None:
    decision = decide(policy, memory="7B LoRA")
    ids = [a.id for a in decision.advice]
    assert ids[ids.index("memory_from_model") + 1] == "memory_from_model_slice"
    holds = next(a for a in decision.advice if a.id == "memory_from_model_slice")
    assert (holds.params["profile"], decision.mig_profile) == ("1g.20gb", "1g.20gb")
    said = t(
        "advice.memory_from_model", Lang.ZH, **next(a for a in decision.advice if a.id == "memory_from_model").params
    )
    assert "权重 14.1" in said and "优化器状态" in said and "激活" in said
    cards = decide(policy, memory="13B full fine-tune")
    holds = next(a for a in cards.advice if a.id == "memory_from_model_cards")
    assert holds.params["cards"] == cards.cards
