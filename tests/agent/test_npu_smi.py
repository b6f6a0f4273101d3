"""`npu-smi info` read as the agent reads it (bot/agent/npu_smi.py), from tables recorded in the formats npu-smi
prints (tests/data/npu_smi): a busy and two idle 910B3s with the HBM pair, not the DDR one; a power of NA; a
310P with only the DDR pair; the process table left alone; a line that is no row of the device table is one
error naming the tool and the line, never a sample of 0 %."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.agent.npu_smi import parse
from bot.agent.sampler import NoGPU
from rules.gpus import card_model

DATA = Path(__file__).parents[1] / "data" / "npu_smi"
NOW = datetime(2026, 12, 2, 9, tzinfo=UTC)


def test_three_910b3_read_ai_core_and_hbm() -> None:
    read = parse((DATA / "910b3_three_cards.txt").read_text(), NOW)
    assert [(r["gpu"], r["name"], r["utilization_pct"], r["memory_used_mib"], r["memory_total_mib"]) for r in read] == [
        (0, "Ascend 910B3", 87.0, 53984.0, 65536.0),
        (1, "Ascend 910B3", 0.0, 3314.0, 65536.0),
        (2, "Ascend 910B3", 0.0, 3314.0, 65536.0),
    ]
    assert [r["power_w"] for r in read] == [101.8, 92.0, None]
    assert card_model(read[0]["name"], read[0]["memory_total_mib"]) == "Ascend-910B3-64GB"


def test_an_idle_910b2_and_a_310p_with_only_ddr() -> None:
    [idle] = parse((DATA / "910b2_idle.txt").read_text(), NOW)
    assert (idle["name"], idle["utilization_pct"], idle["memory_used_mib"]) == ("Ascend 910B2", 0.0, 3126.0)
    assert card_model(idle["name"], idle["memory_total_mib"]) == "Ascend-910B2-64GB"
    [small] = parse((DATA / "310p_ddr_only.txt").read_text(), NOW)
    assert (small["gpu"], small["utilization_pct"], small["memory_used_mib"], small["memory_total_mib"]) == (
        8,
        12.0,
        1841.0,
        21527.0,
    )


@pytest.mark.parametrize(
    ("broken", "line"),
    [
        ("| 0                         | 0000:C1:00.0  | busy        0    / 0          53984/ 65536         |", 8),
        ("| 0     910B3               | OK            | 101.8       43                0    / 0             |", 8),
    ],
)
def test_a_row_it_cannot_read_is_one_error_naming_the_line(broken: str, line: int) -> None:
    rows = (DATA / "910b3_three_cards.txt").read_text().splitlines()
    rows[7] = broken  # the first card's second row
    with pytest.raises(NoGPU) as caught:
        parse("\n".join(rows), NOW)
    assert caught.value.code == "tool_line" and caught.value.params["line"] == line
    assert caught.value.params["tool"] == "npu-smi"


def test_a_table_with_no_card_is_said() -> None:
    with pytest.raises(NoGPU) as caught:
        parse("npu-smi 24.1.rc1\n", NOW)
    assert caught.value.code == "tool_empty"
