"""The one table of answer fields, derived from rules/questions.py: how each front end names an answer.

Each field has its CLI flag (`--memory-peak`), its inline keys for `/gpu-advise` (English first, the
first one shown in messages, then Chinese) and whether the profile modal shows it. The CLI's
`advise` options, the inline parser, the modal and the error messages all read this table.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.questions import ASKS, Ask, Stage


@dataclass(frozen=True)
class Field:
    ask: Ask
    flag: str  # the `gpu-advise advise` option
    keys: tuple[str, ...]  # inline keys in English; keys[0] is the one messages name
    keys_zh: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return self.ask.key

    @property
    def in_form(self) -> bool:
        """The modal asks everything a conversation asks; the extra fields are flags and inline keys only."""
        return self.ask.stage is not Stage.EXTRA

    @property
    def option_name(self) -> str:
        """The Python parameter name typer derives the flag from."""
        return self.flag.removeprefix("--").replace("-", "_")


_NAMES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "duration": ("--duration", ("dur", "duration"), ("时长",)),
    "memory": ("--memory-peak", ("mem", "memory"), ("显存",)),
    "model_parallel": ("--model-parallel", ("mp", "model_parallel"), ("并行",)),
    "frequency": ("--frequency", ("freq", "frequency"), ("频率",)),
    "can_resume": ("--can-resume", ("resume", "can_resume"), ("恢复",)),
    "workload": ("--workload", ("workload", "type"), ("类型",)),
    "phase": ("--phase", ("phase",), ("阶段",)),
    "gpu": ("--gpu", ("gpu",), ("卡型",)),
    "schedule": ("--schedule", ("hours", "schedule"), ("计划",)),
    "qps": ("--qps", ("qps",), ()),
    "p99_ms": ("--p99-ms", ("p99",), ()),
    "serving_hours": ("--serving-hours", ("serving", "serve"), ("在线时长",)),
    "checkpointing": ("--checkpointing", ("ckpt", "checkpointing"), ("检查点",)),
    "model_size_b": ("--model-size", ("size", "model_size"), ("模型",)),
    "cards": ("--cards", ("cards",), ("卡数",)),
    "sharing": ("--sharing", ("sharing",), ("共享",)),
    "yearly_gpu_hours": ("--yearly-gpu-hours", ("yearly", "yearly_gpu_hours"), ("年用量",)),
}

FIELDS: tuple[Field, ...] = tuple(Field(ask, *_NAMES[ask.key]) for ask in ASKS)
BY_KEY: dict[str, Field] = {f.key: f for f in FIELDS}
BY_INLINE_KEY: dict[str, Field] = {name: f for f in FIELDS for name in f.keys + f.keys_zh}
FORM_FIELDS: tuple[Field, ...] = tuple(f for f in FIELDS if f.in_form)


def flag(key: str) -> str:
    return BY_KEY[key].flag


def inline_key(key: str) -> str:
    return BY_KEY[key].keys[0]
