"""`/gpu-advise 10h mem=70/80 mp=no freq=daily resume=no ...`: every answer in the command text."""

from __future__ import annotations

import shlex
import unicodedata

KEYS = {
    "duration": "duration", "dur": "duration", "时长": "duration",
    "mem": "memory", "memory": "memory", "显存": "memory",
    "mp": "model_parallel", "model_parallel": "model_parallel", "并行": "model_parallel",
    "freq": "frequency", "frequency": "frequency", "频率": "frequency",
    "resume": "can_resume", "can_resume": "can_resume", "恢复": "can_resume",
    "workload": "workload", "type": "workload", "类型": "workload",
    "phase": "phase", "阶段": "phase",
    "gpu": "gpu", "卡型": "gpu",
    "hours": "schedule", "schedule": "schedule", "计划": "schedule",
    "qps": "qps", "p99": "p99_ms",
    "ckpt": "checkpointing", "checkpointing": "checkpointing", "检查点": "checkpointing",
    "size": "model_size_b", "model_size": "model_size_b", "模型": "model_size_b",
    "cards": "cards", "卡数": "cards",
}
QUOTE_KEYS = {"gpu": "gpu", "hours": "schedule", "schedule": "schedule", "share": "share", "cards": "cards",
              "region": "region", "currency": "currency", "卡型": "gpu", "计划": "schedule", "卡数": "cards"}


class InlineError(ValueError):
    """The command text could not be split into answers; the message says what was wrong."""


def split(text: str) -> list[str]:
    norm = unicodedata.normalize("NFKC", text).replace("“", '"').replace("”", '"')
    try:
        return shlex.split(norm)
    except ValueError as exc:
        raise InlineError(f"could not split the text ({exc}); close every quote") from None


def parse_pairs(tokens: list[str], keys: dict[str, str], *, positional: str | None = None) -> dict[str, str]:
    """`key=value` tokens (and one bare token for `positional`) into {field: text}."""
    out: dict[str, str] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep:
            if positional and positional not in out:
                out[positional] = token
                continue
            raise InlineError(f"unexpected {token!r}: write key=value (keys: {', '.join(sorted(set(keys)))})")
        field = keys.get(key.strip().lower())
        if field is None:
            raise InlineError(f"unknown key {key!r}; keys: {', '.join(sorted(set(keys)))}")
        if field in out:
            raise InlineError(f"{key!r} given twice")
        out[field] = value.strip()
    return out
