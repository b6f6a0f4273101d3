"""What an answer read among other words is said back as: the kind of work and the phase were read from
"大模型推理服务" and "上线了" with nothing said, so a misreading went unseen until the advice."""

from __future__ import annotations

import pytest

from bot.text import Lang
from bot.text.readings import echo
from rules.questions import BY_KEY


@pytest.mark.parametrize(
    ("key", "said", "zh", "en"),
    [
        ("workload", "大模型推理服务", "推理（来自“大模型推理服务”）", "Inference (from “大模型推理服务”)"),
        ("workload", "离线推理", "其他任务（按通用规则）（来自“离线推理”）",
         "Other work (the general rules) (from “离线推理”)"),
        ("phase", "上线了", "后期部署期（来自“上线了”）", "Deployment (from “上线了”)"),
        ("serving_hours", "business hours", "每天 9 小时（来自“business hours”）", "9 h a day (from “business hours”)"),
        # a model's name beside the kind of work: its "2-7" is no range (it said "the upper end of")
        ("workload", "做lora微调 qwen2-7b", "LoRA（来自“做lora微调 qwen2-7b”）", "LoRA (from “做lora微调 qwen2-7b”)"),
        ("serving_hours", "8-10", "每天 10 小时（取“8-10”的上限）", "10 h a day (the upper end of “8-10”)"),
        ("serving_hours", "9-18", "每天 9 小时（来自“9-18”）", "9 h a day (from “9-18”)"),  # clocks: no upper end
        ("serving_hours", "9 to 5", "每天 8 小时（来自“9 to 5”）", "8 h a day (from “9 to 5”)"),
        ("serving_hours", "工作日白天", "工作日每天 12 小时，折合一周平均每天 8.6 小时（来自“工作日白天”）",
         "12 h on weekdays, 8.6 h a day over the week (from “工作日白天”)"),
        ("p99_ms", "不敏感", "延迟没有严格要求（按 1,000 毫秒及以上计）（来自“不敏感”）",
         "no strict P99 target (read as 1,000 ms or more) (from “不敏感”)"),
    ],
)  # fmt: skip
def test_an_answer_read_among_other_words_is_said_back(key: str, said: str, zh: str, en: str) -> None:
    value = BY_KEY[key].parse(said)
    assert echo(key, said, value, Lang.ZH) == zh
    assert echo(key, said, value, Lang.EN) == en


@pytest.mark.parametrize(("key", "said"), [("workload", "lora"), ("phase", "exploration"), ("workload", "inference")])
def test_an_answer_in_its_own_form_is_not_said_back(key: str, said: str) -> None:
    assert echo(key, said, BY_KEY[key].parse(said), Lang.EN) is None
