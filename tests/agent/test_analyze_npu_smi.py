"""Issue 32.1: `gpu-advise analyze` (and a capture in chat, through the same reader) takes Ascend's `npu-smi info`
as people capture it: printed once, or in a loop with `date -Is` before each printout. A row it cannot read, or
printouts without their times, is one error naming the line and how to capture it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.capture.read import CaptureError, read_text
from tests.support.cli import ROOT, run_cli

THREE = (ROOT / "tests" / "data" / "npu_smi" / "910b3_three_cards.txt").read_text(encoding="utf-8")


def looped(*utilisations: int) -> str:
    """`while true; do date -Is; npu-smi info; sleep 10; done`: NPU 0 at each utilisation, 10 s apart."""
    out = []
    for n, pct in enumerate(utilisations):
        out.append(f"2026-12-03T05:00:{n * 10:02d}+08:00")
        out.append(THREE.replace("| 87          0    / 0", f"| {pct:<11} 0    / 0"))
    return "\n".join(out)


def test_a_loop_of_npu_smi_gives_each_card_its_figures_and_the_flags(tmp_path: Path) -> None:
    capture = tmp_path / "npu.txt"
    capture.write_text(looped(87, 91, 95), encoding="utf-8")
    done = run_cli("analyze", str(capture), "--json", tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["samples"], out["duration_s"]) == (9, 20.0)  # three cards, three printouts 10 s apart
    assert out["gpus"]["0"]["util_p50"] == 91.0 and out["gpus"]["1"]["util_p50"] == 0.0
    assert out["memory_tight"] is True and out["suggested_flags"] == "--memory-peak 53/64"  # HBM, not DDR
    assert out["idle_gpus"] == [1, 2]


def test_one_printout_is_read_as_of_now() -> None:
    samples = read_text(THREE)
    assert [(s.gpu, s.utilization_pct, s.memory_used_mib, s.memory_total_mib) for s in samples] == [
        (0, 87.0, 53984.0, 65536.0),
        (1, 0.0, 3314.0, 65536.0),
        (2, 0.0, 3314.0, 65536.0),
    ]


def test_printouts_without_their_times_say_how_to_capture() -> None:
    with pytest.raises(CaptureError) as refused:
        read_text(THREE + THREE)
    assert refused.value.code == "npu_smi_no_time" and refused.value.params == {"count": 2}


def test_a_row_npu_smi_never_prints_names_its_line_in_the_whole_capture(tmp_path: Path) -> None:
    text = looped(87, 91)
    at = text.index("2026-12-03T05:00:10+08:00")  # the second printout: its card 2 row cut short
    broken = text[:at] + text[at:].replace("| 2     910B3               | OK            | NA", "| 2     910B3   | OK  ")
    second = broken.splitlines().index("2026-12-03T05:00:10+08:00")
    capture = tmp_path / "npu.txt"
    capture.write_text(broken, encoding="utf-8")
    with pytest.raises(CaptureError) as refused:
        read_text(broken)
    assert refused.value.code == "npu_smi_row" and refused.value.line > second
    assert "910B3" in str(refused.value.params["text"])
    zh = run_cli("analyze", str(capture), "--lang", "zh", tmp=tmp_path)
    assert (
        zh.returncode == 2 and "无法读取 npu-smi 的这一行" in zh.stderr and f"第 {refused.value.line} 行" in zh.stderr
    )
