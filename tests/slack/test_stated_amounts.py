"""Answers stated with a bound, an approximation or a part of the card (issue 51), typed in a Slack thread: each
is read as the interval it means, said back with how the rule reads it, and the recommendation follows."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.slack.test_answers_as_typed import _converse
from tests.support.slack_harness import running_app

STATED = {
    "zh": (
        ["预训练", "8个多小时", "峰值七十多G，卡是80G的", "不需要模型并行，只是数据并行", "每天", "断了就得重来",
         "稳定期", "跳过", "每天10小时，持续两周"],
        ["超过 8 小时（来自“8个多小时”）", "80 GB 的卡用 70–80 GB：显存紧张",
         "否（来自“不需要模型并行，只是数据并行”）", "否（来自“断了就得重来”）"],
        "独占",
    ),
    "en": (
        ["full-finetune", "a bit over 8 hours", "seventy-something gigs on an 80G card", "no", "daily", "can't resume",
         "stable", "skip", "10h a day for 14 days"],
        ["more than 8 h (from “a bit over 8 hours”)", "70–80 GB of 80 GB: memory tight",
         "no (from “can't resume”)"],
        "Dedicated",
    ),
}  # fmt: skip


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_bounds_and_approximations_typed_in_a_thread_decide_as_they_mean(lang: str, tmp_path: Path) -> None:
    replies, echoes, decision = STATED[lang]
    with running_app(tmp_path) as h:
        h.fake.locales["U8"] = "zh-CN" if lang == "zh" else "en-US"
        answered, result = _converse(h, "U8", replies)
    for echo in echoes:
        assert echo in answered, echo
    assert decision in result
