"""`gpu-advise advise --sharing qgpu`: the shared option and its quote are the platform's kind of share, named and
priced as one (issue 32's done-means: a 17 GB peak is quoted as a 17 GB qGPU share with the isolation warning);
a kind the advisor does not know is refused naming what it takes, in the user's language."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_cli

ANSWERS = [
    "advise",
    "--duration",
    "3h",
    "--memory-peak",
    "17GB",
    "--model-parallel",
    "no",
    "--frequency",
    "daily",
    "--can-resume",
    "yes",
]


def test_a_17_gb_peak_is_quoted_as_a_17_gb_qgpu_share(tmp_path: Path) -> None:
    done = run_cli(*ANSWERS, "--sharing", "qgpu", "--schedule", "4x14", "--quote", "--json", tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["shared_option"]["kind"], out["shared_option"]["sharing"]) == ("qgpu", "qgpu")
    assert (out["shared_option"]["memory_gb"], out["shared_option"]["compute_pct"]) == (17.0, 25.0)
    assert "qGPU" in out["choice_text"] and "no hardware isolation" in out["choice_text"]
    shared = out["quote"]["shared"]
    assert (shared["memory_gb"], shared["share"], shared["sharing"]) == (17.0, 0.25, "qgpu")
    text = run_cli(*ANSWERS, "--sharing", "qgpu", "--schedule", "4x14", "--quote", tmp=tmp_path).stdout
    assert "qGPU share (25%" in text and "no hardware isolation" in text.replace("\n", " ").replace("│", " ")


def test_an_unknown_kind_is_refused_in_chinese_with_what_is_taken(tmp_path: Path) -> None:
    done = run_cli(*ANSWERS, "--sharing", "magic", "--lang", "zh", tmp=tmp_path)
    assert done.returncode == 2
    assert "--sharing" in done.stderr and "qgpu" in done.stderr and "时间片" in done.stderr


def test_a_17_gb_peak_on_a_910b2_is_a_vnpu_template_quoted_as_its_share(tmp_path: Path) -> None:
    asked = [*ANSWERS, "--gpu", "910B2", "--sharing", "vnpu", "--schedule", "4x14", "--quote", "--json"]
    done = run_cli(*asked, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    option = out["shared_option"]
    assert (option["kind"], option["template"], option["ai_cores"], option["memory_gb"]) == (
        "vnpu",
        "vir12_3c_32g",
        12,
        32,
    )
    assert option["compute_pct"] == 50.0 and "vNPU vir12_3c_32g" in out["choice_text"]
    assert (out["quote"]["shared"]["memory_gb"], out["quote"]["shared"]["share"]) == (32, 0.5)
    zh = run_cli(*asked[:-1], "--lang", "zh", tmp=tmp_path).stdout
    # the table's columns wrap their cells: the options' column read down, without the wraps
    options = "".join(line.split("│")[1].strip() for line in zh.splitlines() if line.startswith("│"))
    assert "vNPU 份额（50% 的 AICore，由驱动隔离） · 32 GB" in options and "硬件隔离" in zh
