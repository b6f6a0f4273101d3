"""Serving memory: weights + KV cache for the context and concurrency + overhead, from the bundled
architectures; question 2 of a service takes the model, its quantisation, context × requests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.advice import advise
from bot.text import Lang
from bot.text.reasons import render
from rules.answers import build_profile, parse_answers
from rules.decision import Choice
from rules.engine import evaluate
from rules.errors import ParseError
from rules.parsing import parse_memory
from rules.policy import Policy
from rules.profile import Workload
from rules.serving import MODELS, find_model, serving_breakdown
from tests.support.cli import run_cli

SERVICE = {"workload": "inference", "qps": "20", "p99_ms": "300"}


def test_qwen_7b_keeps_56_kib_a_token_and_a_3k_request_is_0164_gib(policy: Policy) -> None:
    """The issue's check: 28 layers x 4 KV heads x 128 x 2 (keys and values) x 2 bytes."""
    model = find_model("Qwen2.5-7B")
    assert model is not None and model.kv_bytes_per_token(2) == 56 * 1024
    answer = parse_memory("Qwen2.5-7B 3k x 1")
    assert answer.context == 3072 and answer.concurrency == 1
    assert round(model.kv_bytes_per_token(2) * answer.context / 2**30, 3) == 0.164
    parts = serving_breakdown(model, None, 3072, 1, policy.serving)
    assert parts.kv_cache_gb == round(56 * 1024 * 3072 / 1e9, 1)  # GB are 10^9 bytes, as in the rest


@pytest.mark.parametrize(
    ("text", "model", "quant", "context", "concurrency"),
    [
        ("7B serve", "Mistral-7B", None, None, None),
        ("qwen2.5-7b 8k x 16", "Qwen2.5-7B", None, 8192, 16),
        ("Llama-3.1-70B int4 4k×32", "Llama-3.1-70B", "int4", 4096, 32),
        ("QWEN2.5-72B awq 32k*4", "Qwen2.5-72B", "int4", 32768, 4),
        ("glm-4-9b", "GLM-4-9B", None, None, None),
        ("DeepSeek-R1-Distill-Qwen-32B fp8 16k x 8 serve", "DeepSeek-R1-Distill-Qwen-32B", "fp8", 16384, 8),
        ("70B 推理", "Llama-3.1-70B", None, None, None),
    ],
)
def test_question_2_of_a_service_takes_the_served_model(
    text: str, model: str, quant: str | None, context: int | None, concurrency: int | None
) -> None:
    answer = parse_memory(text)
    assert (answer.served_model, answer.quant, answer.context, answer.concurrency) == (
        model,
        quant,
        context,
        concurrency,
    )


def test_an_unknown_served_model_is_refused_with_the_models_known() -> None:
    with pytest.raises(ParseError) as caught:
        parse_memory("foo-13b 8k x 4")
    assert caught.value.problem == "unknown_model"


def test_every_bundled_architecture_has_its_source_and_a_publishers_name() -> None:
    assert len(MODELS) >= 10 and all(m.source and "config.json" in m.source for m in MODELS)
    assert {m.name for m in MODELS} >= {
        "Llama-3.1-8B",
        "Llama-3.1-70B",
        "Qwen2.5-7B",
        "Qwen2.5-14B",
        "Qwen2.5-32B",
        "Qwen2.5-72B",
        "Mistral-7B",
        "DeepSeek-R1-Distill-Qwen-7B",
        "DeepSeek-R1-Distill-Qwen-32B",
        "GLM-4-9B",
    }


def test_the_advice_shows_the_breakdown_the_smallest_option_and_the_requests_it_holds(policy: Policy) -> None:
    decision = evaluate(build_profile(parse_answers(SERVICE | {"memory": "qwen2.5-7b 8k x 16"})), policy)
    ids = [a.id for a in decision.advice]
    assert ids[ids.index("memory_serving") : ids.index("memory_serving") + 3] == [
        "memory_serving",
        "memory_from_model_slice",
        "memory_serving_concurrency",
    ]
    parts = next(a for a in decision.advice if a.id == "memory_serving").params
    assert parts["total_gb"] == decision.memory_peak_gb == 24.2  # 15.2 weights + 7.5 KV + 1.5
    assert decision.shared is not None and decision.shared.memory_gb == 40  # 3g.40gb holds 24.2 GB
    # (40 - 15.2 - 1.5) GB over 8,192 tokens x 56 KiB a request
    assert decision.max_concurrent_requests == int((40 - 15.2 - 1.5) / (57344 * 8192 / 1e9)) == 49
    for lang in Lang:
        said = " ".join(render(a, lang) for a in decision.advice if a.id.startswith("memory_"))
        assert "24.2" in said and "49" in said and "{" not in said


def test_a_70b_at_bf16_needs_cards_and_says_how_many_requests_they_hold(policy: Policy) -> None:
    decision = evaluate(build_profile(parse_answers(SERVICE | {"memory": "Llama-3.1-70B 8k x 8"})), policy)
    assert decision.shared is None and decision.cards >= 2
    assert decision.max_concurrent_requests is not None and decision.max_concurrent_requests >= 8


def test_the_terminal_takes_a_served_model_and_prints_the_fields(tmp_path: Path) -> None:
    result = run_cli(
        "advise",
        "--workload",
        "inference",
        "--qps",
        "20",
        "--p99-ms",
        "300",
        "--memory-peak",
        "Qwen2.5-7B 8k x 16",
        "--json",
        "--lang",
        "en",
        tmp=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["memory_peak_gb"], data["shared_option"]["memory_gb"], data["max_concurrent_requests"]) == (
        24.2,
        40,
        49,
    )


def test_advise_carries_the_figure_to_json(policy: Policy) -> None:
    data = advise(parse_answers(SERVICE | {"memory": "Qwen2.5-7B 8k x 16"}), policy).to_json(Lang.ZH)
    assert data["max_concurrent_requests"] == 49 and "KV 缓存" in json.dumps(data, ensure_ascii=False)


def test_a_dedicated_service_is_given_its_cards_capacity_not_the_slices(policy: Policy) -> None:
    """Issue 33.1.2: dedicated A100 80 GB recommended, but the 3g.40gb slice's 41 requests reported."""
    decision = evaluate(
        build_profile(
            parse_answers({"workload": "inference", "qps": "500", "p99_ms": "30", "memory": "Llama-3.1-8B 4k x 32"})
        ),
        policy,
    )
    assert decision.choice is Choice.DEDICATED and decision.shared is not None  # a slice would hold the model
    slice_holds = next(a for a in decision.advice if a.id == "memory_from_model_slice")
    assert slice_holds.params["profile"] == "3g.40gb"  # named as the smallest that holds it
    said = next(a for a in decision.advice if a.id == "memory_serving_concurrency_dedicated")
    assert said.params["requests"] == decision.max_concurrent_requests > 41  # the whole 80 GB card's
    assert (said.params["cards"], said.params["gpu"]) == (1, "A100-80GB")


def test_a_dedicated_service_on_a_card_no_slice_of_which_holds_it_names_no_slice(policy: Policy) -> None:
    """On a 24 GB card the smallest that holds a 7B served in bf16 is the whole card: the capacity line said "the
    slice above would hold the model" where the line above named a whole card."""
    answers = {"workload": "inference", "qps": "500", "p99_ms": "30", "memory": "7B 推理", "gpu": "4090D"}
    decision = evaluate(build_profile(parse_answers(answers)), policy)
    assert decision.choice is Choice.DEDICATED
    ids = [a.id for a in decision.advice]
    assert "memory_from_model_card" in ids and "memory_serving_concurrency_dedicated" not in ids
    assert "memory_serving_concurrency" in ids


def test_a_bundled_models_name_after_a_kind_of_training_is_that_trainings_model() -> None:
    """ "qwen2.5-72b" on the memory question of a LoRA job was estimated as that model served (weights and KV cache):
    after a kind of training, a model named alone is the trained one; a serving word or context × requests keeps it
    served, and with no kind of work (or one with no model rule) it stays served."""
    from rules.answers import answer_in_context

    lora = parse_answers({"workload": "lora", "memory": "qwen2.5-72b"})["memory"]
    assert (lora.method, lora.served_model, lora.model_size_b) == (Workload.LORA, None, 72.0)
    chat = answer_in_context("memory", "Qwen2.5-7B", {"workload": "full-finetune"})  # as a conversation keeps it
    assert (chat.method, chat.model_size_b) == (Workload.FULL_FINETUNE, 7.0)
    for said, values in (("qwen2.5-72b serve", {"workload": "lora"}), ("qwen2.5-7b 8k x 16", {"workload": "lora"}),
                         ("qwen2.5-72b", {"workload": "hpo"}), ("qwen2.5-72b", {})):  # fmt: skip
        assert answer_in_context("memory", said, values).method is Workload.INFERENCE, said


@pytest.mark.parametrize(
    ("said", "model"),
    [("llama 70B", "Llama-3.1-70B"), ("llama-70b", "Llama-3.1-70B"), ("llama3 8b", "Llama-3.1-8B"),
     ("qwen 72b", "Qwen2.5-72B"), ("Qwen-14B", "Qwen2.5-14B"), ("glm 9b", "GLM-4-9B"),
     ("llama 7b", None),  # no bundled Llama of that size: not guessed from another
     ("deepseek 7b", None),  # the bundled DeepSeeks are Qwen distills: another architecture, never guessed
     ("foo 7b", None)],
)  # fmt: skip
def test_a_model_said_by_its_family_and_size_is_the_one_bundled_model_of_both(said: str, model: str | None) -> None:
    """`how much memory does llama 70B need for inference` was an unknown model: only `Llama-3.1-70B` was read."""
    found = find_model(said)
    assert (found.name if found else None) == model
