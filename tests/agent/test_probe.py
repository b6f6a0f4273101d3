"""`gpu-advise probe` with a stand-in nvidia-smi on PATH: the CSV, the duration forms, no GPU."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.cli.probe import parse_seconds
from tests.agent.test_agent import stand_in_smi
from tests.support.cli import ROOT, run_cli


@pytest.mark.e2e  # starts a process
def test_probe_writes_every_gpu_every_interval(tmp_path: Path) -> None:
    out = tmp_path / "capture.csv"
    done = run_cli(
        "probe",
        "--interval",
        "0.3",
        "--duration",
        "1s",
        "--output",
        str(out),
        env=stand_in_smi(tmp_path) | {"GPU_ADVISOR_LANG": "en"},
        tmp=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert len(rows) >= 4 and len(rows) % 2 == 0  # two GPUs a sample, at least two samples in a second
    assert rows[0]["gpu"] == "0" and rows[1]["memory_used_mib"] == "30000.0" and rows[1]["power_w"] == ""
    assert f"{len(rows)} samples in {out}" in done.stdout


@pytest.mark.parametrize(("text", "seconds"), [("30s", 30), ("20m", 1200), ("1h", 3600), ("1.5h", 5400), ("90", 90)])
def test_duration_forms(text: str, seconds: float) -> None:
    assert parse_seconds(text) == seconds


def test_bad_duration_and_no_gpu_exit_2_with_the_reason(tmp_path: Path) -> None:
    bad = run_cli(
        "probe", "--duration", "forever", env=stand_in_smi(tmp_path) | {"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path
    )
    assert bad.returncode == 2 and "30s, 20m or 1h" in bad.stderr
    empty = tmp_path / "bin"
    empty.mkdir()
    none = run_cli(
        "probe",
        "--duration",
        "5s",
        env={"PATH": f"{empty}{os.pathsep}/usr/bin:/bin", "GPU_ADVISOR_LANG": "en"},
        tmp=tmp_path,
    )
    assert none.returncode == 2 and "no GPU could be read" in none.stderr
    assert "The probe runs on" in none.stderr and "agent" not in none.stderr  # issue 19.12: it said "the agent"
    # it named only NVIDIA's tools, though an Ascend or Hygon box is read with its own
    assert "no card tool on PATH (nvidia-smi, npu-smi, hy-smi, cnmon, mthreads-gmi, xpu-smi)" in none.stderr
    chinese = run_cli(
        "probe",
        "--duration",
        "5s",
        env={"PATH": f"{empty}{os.pathsep}/usr/bin:/bin", "GPU_ADVISOR_LANG": "zh"},
        tmp=tmp_path,
    )
    said = " ".join(chinese.stderr.split())
    assert chinese.returncode == 2 and "没有 NVIDIA 驱动" in said and "probe 需要在装有加速卡" in said
    assert "no NVIDIA driver" not in said and "PATH 中也没有读卡工具（nvidia-smi, npu-smi, hy-smi" in said
    assert list(tmp_path.glob("gpu-probe-*.csv")) == []  # nothing written when there is nothing to sample


@pytest.mark.e2e  # starts a process
def test_ctrl_c_keeps_what_was_sampled(tmp_path: Path) -> None:
    out = tmp_path / "capture.csv"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPU_ADVISOR_", "SLACK_"))}
    env |= stand_in_smi(tmp_path) | {"GPU_ADVISOR_LANG": "en"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "probe", "--interval", "0.2", "--duration", "1h", "--output", str(out)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 5):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    stdout, _ = proc.communicate(timeout=30)
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert proc.returncode == 0 and len(rows) >= 4
    assert f"{len(rows)} samples in {out}" in stdout


@pytest.mark.e2e  # starts a process
@pytest.mark.parametrize("where", ["/proc/x.csv", "{tmp}", "{tmp}/no/such/folder/x.csv", "{tmp}/" + "a" * 300])
def test_probe_output_that_cannot_be_written_is_one_line(tmp_path: Path, where: str) -> None:
    """Issue 20.14: /proc, a folder, a missing folder or a 300-character name ended in a traceback."""
    done = run_cli(
        "probe",
        "--duration",
        "5s",
        "--output",
        where.format(tmp=tmp_path),
        env=stand_in_smi(tmp_path) | {"GPU_ADVISOR_LANG": "en"},
        tmp=tmp_path,
    )
    assert done.returncode == 2 and "cannot write the capture to" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.e2e  # starts a process (the stand-in npu-smi)
def test_probe_on_an_ascend_box_records_the_cards_model(tmp_path: Path) -> None:
    """Issue 53.13: with only npu-smi, the capture kept no word of the card; its name is the last column now."""
    from tests.agent.test_agent_ascend import stand_in_npu_smi

    out = tmp_path / "npu.csv"
    env = stand_in_npu_smi(tmp_path / "bin") | {"GPU_ADVISOR_LANG": "en"}
    done = run_cli("probe", "--interval", "0.3", "--duration", "1s", "--output", str(out), env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.read_text().splitlines()))
    assert rows and {row["name"] for row in rows} == {"Ascend 910B2"}
    read = run_cli("analyze", str(out), "--json", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert read.returncode == 0, read.stderr  # the capture with its name column reads as before


def test_prices_list_shows_a_family_named_without_its_variant(tmp_path: Path) -> None:
    """Issue 53.13: `prices list --gpu 'Ascend 910B'` showed 0 rows, while `quote --gpu 'Ascend 910B'` priced from
    the bundled 910B2 row: both read the family's variants."""
    listed = run_cli("prices", "list", "--gpu", "Ascend 910B", "--json", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert rows and {row["gpu"] for row in rows} <= {"Ascend-910B2-64GB", "Ascend-910B3-64GB"}
    assert all(row["as_of"] for row in rows)  # dated, as every cached row
