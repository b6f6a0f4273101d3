"""The questions as asked in the terminal and in Slack: text, usual answers, and their parser.

Each usual answer's value is a string its own parser accepts, so a button press and a typed
reply go through the same code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rules import parsing
from rules.messages import Lang


@dataclass(frozen=True)
class Option:
    value: str
    en: str
    zh: str

    def label(self, lang: Lang) -> str:
        return self.zh if lang is Lang.ZH else self.en


@dataclass(frozen=True)
class Ask:
    key: str  # the TaskProfile field it fills
    en: str
    zh: str
    parse: Callable[[str], Any]
    options: tuple[Option, ...] = ()
    required: bool = True

    def text(self, lang: Lang) -> str:
        return self.zh if lang is Lang.ZH else self.en

    def accepted(self) -> list[str]:
        return parsing.accepted_for(self.key)


def _yes_no(key: str) -> Callable[[str], bool]:
    return lambda text: parsing.parse_yes_no(text, key)


_YES_NO = (Option("yes", "Yes", "是"), Option("no", "No", "否"))

FIVE: tuple[Ask, ...] = (
    Ask("duration", "How long does a single training run take?", "单次训练时长大约多久？",
        parsing.parse_duration,
        (Option("<1h", "Under 1 h", "1 小时以内"), Option("1-8h", "1–8 h", "1–8 小时"),
         Option(">8h", "Over 8 h", "8 小时以上"))),
    Ask("memory", "Does the memory peak exceed 80% of one card?", "显存峰值是否超过单卡显存的 80%？",
        parsing.parse_memory, _YES_NO),
    Ask("model_parallel", "Does it need 2+ cards for model (or pipeline) parallelism?",
        "是否需要 2 张以上卡做模型（或流水线）并行？", _yes_no("model_parallel"), _YES_NO),
    Ask("frequency", "How often does it run?", "训练频率如何？", parsing.parse_frequency,
        (Option("daily", "Daily", "每天"), Option("low", "A few times a week or less", "每周几次或更少"))),
    Ask("can_resume", "If it is interrupted, can it resume quickly (from a checkpoint)?",
        "中断后能否快速恢复（从检查点续跑）？", _yes_no("can_resume"),
        (Option("yes", "Yes, it resumes", "能"), Option("no", "No, it starts over", "不能"))),
)

FOLLOW_UPS: tuple[Ask, ...] = (
    Ask("workload", "What kind of workload is it?", "任务类型是什么？", parsing.parse_workload,
        (Option("pretrain", "Pre-training", "预训练"), Option("full-finetune", "Full fine-tune", "全参微调"),
         Option("lora", "LoRA", "LoRA"), Option("qlora", "QLoRA", "QLoRA"),
         Option("hpo", "Hyper-parameter search", "超参搜索"), Option("inference", "Inference", "推理"),
         Option("debug", "Debugging", "调试")), required=False),
    Ask("phase", "Which phase is the project in?", "项目处于哪个阶段？", parsing.parse_phase,
        (Option("exploration", "Exploration", "早期探索期"), Option("stable", "Stable", "中期稳定期"),
         Option("deployment", "Deployment", "后期部署期")), required=False),
    Ask("gpu", "Which GPU model?", "使用哪种 GPU？", parsing.parse_gpu,
        (Option("A100-80GB", "A100 80GB", "A100 80GB"), Option("H100-80GB", "H100 80GB", "H100 80GB"),
         Option("RTX4090-24GB", "RTX 4090", "RTX 4090")), required=False),
    Ask("schedule", "Hours a day × days, for the cost quote (e.g. 4x14)?",
        "每天几小时 × 几天，用于报价（如 4x14）？", parsing.parse_schedule, required=False),
)

INFERENCE: tuple[Ask, ...] = (
    Ask("qps", "Peak QPS?", "峰值 QPS？", parsing.parse_qps, required=False),
    Ask("p99_ms", "P99 latency target (ms)?", "P99 延迟目标（毫秒）？", parsing.parse_p99, required=False),
)

BY_KEY: dict[str, Ask] = {a.key: a for a in FIVE + FOLLOW_UPS + INFERENCE}
