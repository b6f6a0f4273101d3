"""A job described in one message, its answers a clause each (rules/clauses.py): each clause read by the questions'
own parsers, the first question in the profile's order taking it, a model named beside a kind of training its
memory's estimate; a bare yes or no names no question, and English "and" splits nothing."""

from __future__ import annotations

import pytest

from rules.answers import answer_in_context
from rules.clauses import CORE, answers_in, asks


@pytest.mark.parametrize(
    ("said", "found"),
    [
        (
            "我想微调一个qwen2.5 7b，用lora，大概跑3个小时",
            {"workload": "用lora", "duration": "大概跑3个小时", "memory": "qwen2.5 7b"},
        ),
        (
            "我要全参微调一个13B模型，每次大概跑两天，8张卡做模型并行，不能中断",
            {
                "workload": "我要全参微调一个13B模型",
                "duration": "每次大概跑两天",
                "model_parallel": "8张卡做模型并行",
                "can_resume": "不能中断",
                "memory": "13B",
            },
        ),
        (
            "训练一个7B模型，显存不到64G，每天跑，可以断点续训",
            {"memory": "显存不到64G", "frequency": "每天跑", "can_resume": "可以断点续训"},
        ),
        (
            "部署一个70B的模型做推理, QPS 200, P99 要小于50ms",
            {"workload": "部署一个70B的模型做推理", "memory": "70B", "qps": "QPS 200", "p99_ms": "P99 要小于50ms"},
        ),
        (
            "we want to fine-tune a 7B model with LoRA, about 10 hours, runs daily",
            {
                "workload": "we want to fine-tune a 7B model with LoRA",
                "duration": "about 10 hours",
                "frequency": "runs daily",
                "memory": "7B",
            },
        ),
        ("需要，8卡", {"model_parallel": "8卡"}),  # `需要` alone: memory's yes? model parallelism's? neither
        ("three and a half hours", {"duration": "three and a half hours"}),  # not "three" cards and "a half hours"
        (
            "帮我选卡：7B LoRA，3小时，能中断",
            {"workload": "7B LoRA", "duration": "3小时", "can_resume": "能中断", "memory": "7B LoRA"},
        ),
        ("这周谁花钱最多", {}),
        ("需要", {}),
    ],
)
def test_each_clause_answers_the_question_that_reads_it(said: str, found: dict[str, str]) -> None:
    read = answers_in(said)
    assert {key: text for key, text in read.items() if key in CORE} == found, read


def test_a_model_beside_a_kind_of_training_is_that_trainings_estimate() -> None:
    read = answers_in("我想微调一个qwen2.5 7b，用lora，大概跑3个小时")
    memory = answer_in_context("memory", read["memory"], {"workload": "lora"})
    assert (memory.model_size_b, memory.method, memory.served_model) == (7.0, "lora", None)


def test_questions_answered_already_are_left_to_their_answers() -> None:
    assert answers_in("每天跑，能中断", skip=frozenset({"frequency"})) == {
        "can_resume": "能中断",
        "checkpointing": "能中断",
    }


@pytest.mark.parametrize(
    ("text", "asking"),
    [
        ("4090一天多少钱", True),
        ("能中断吗", True),
        ("7B LoRA 需要什么卡", True),
        ("how much is an A100", True),
        ("要不要多卡？", True),
        ("显存峰值大概七十多G吧", False),  # 多 of 七十多 is a figure's, not 多少
        ("十几个小时", False),  # 几 of 十几 too
        ("最好别中断", False),
        ("about 10 hours", False),
    ],
)
def test_a_question_is_told_from_an_answer(text: str, asking: bool) -> None:
    assert asks(text) is asking
