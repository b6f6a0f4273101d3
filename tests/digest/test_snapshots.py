"""The digest's blocks in both languages, against snapshots kept in the repository.

A deliberate change of wording or layout: run with GPU_ADVISOR_UPDATE_SNAPSHOTS=1, review the diff
of tests/digest/snapshots/, and commit it with the change.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.slack.ui.digest import render
from bot.text import Lang
from rules.digest import compose
from rules.policy import Idle
from rules.samples import Sample

SNAPSHOTS = Path(__file__).parent / "snapshots"
NOW = datetime(2026, 11, 30, 1, 30, tzinfo=UTC)


@dataclass(frozen=True)
class Box:
    id: int
    name: str
    owner: str
    price: float
    unit: str
    project: str | None
    currency: str = "CNY"
    started_at: datetime = NOW - timedelta(days=2)
    released_at: datetime | None = None


@dataclass(frozen=True)
class Disk:
    name: str
    owner: str
    size_gb: float
    price_gb_month: float
    instance_id: int | None
    created_at: datetime
    project: str | None = "llm"
    currency: str = "CNY"
    deleted_at: datetime | None = None


def quiet(minutes: int, mem: float = 500) -> list[Sample]:
    return [Sample(NOW - timedelta(minutes=m), 0, 0, mem, 81920) for m in range(minutes, -1, -5)]


def digest_of_the_articles_kind() -> object:
    """An idle A100 billed by the day, a notebook holding memory, a box with no agent, a released box's
    checkpoints and an old data set: one of each thing the digest says."""
    boxes = [
        Box(1, "pretrain-a100", "U1", 400, "day", "llm"),
        Box(2, "notebook-4090", "U2", 2.5, "hour", "search"),
        Box(3, "dark-h800", "U3", 11500, "month", None),
        Box(4, "lora-done", "U1", 14, "hour", "llm", released_at=NOW - timedelta(hours=6)),
    ]
    disks = [
        Disk("lora-ckpt", "U1", 340, 0.35, 4, NOW - timedelta(days=2)),
        Disk("dataset-v1", "U2", 2000, 0.12, None, NOW - timedelta(days=20), project="search"),
    ]
    return compose(
        boxes, disks, {1: quiet(180), 2: quiet(90, mem=30000)}, now=NOW, rules=Idle(), budgets={("llm", "CNY"): 20000}
    )


@pytest.mark.parametrize("lang", [Lang.EN, Lang.ZH])
def test_the_digest_blocks_match_the_snapshot(lang: Lang) -> None:
    text, blocks = render(digest_of_the_articles_kind(), lang, ZoneInfo("Asia/Shanghai"))  # type: ignore[arg-type]
    got = json.dumps({"text": text, "blocks": blocks}, ensure_ascii=False, indent=1) + "\n"
    path = SNAPSHOTS / f"digest_{lang.value}.json"
    if os.environ.get("GPU_ADVISOR_UPDATE_SNAPSHOTS") == "1":
        path.write_text(got, "utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with GPU_ADVISOR_UPDATE_SNAPSHOTS=1 and review it"
    assert got == path.read_text("utf-8")
