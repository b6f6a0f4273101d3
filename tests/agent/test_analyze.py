"""`gpu-advise analyze` on a probe capture and on nvidia-smi's own CSV; bad files name the line."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.capture_read import CaptureError, read
from tests.cli_helpers import ROOT, run_cli

SMI = ROOT / "tests" / "data" / "captures" / "nvidia-smi-query.csv"


def test_nvidia_smi_csv_with_units_gives_the_answers(tmp_path: Path) -> None:
    done = run_cli("analyze", str(SMI), "--json", tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["continuity"], out["memory_tight"], out["suggested_flags"]) == ("high", True, "--memory-peak 74/80")
    assert (out["util_p50"], out["util_share_at_or_above_80"], out["samples"], out["duration_s"]) == (
        97.0, 0.8, 5, 20.0)
    assert out["gpus"]["0"]["longest_gap_s"] == 5.0
    assert set(out["gpus"]["0"]) == set(out) - {"suggested_flags", "gpus"}  # the same figures per GPU


def test_a_probe_capture_of_a_quiet_notebook_is_low_and_not_tight(tmp_path: Path) -> None:
    capture = tmp_path / "probe.csv"
    rows = ["timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib,power_w"]
    rows += [f"2026-11-30T01:{m:02d}:00+00:00,{g},{40 if m % 3 else 90},20000,81920,60" for m in range(20)
             for g in (0, 1)]
    capture.write_text("\n".join(rows) + "\n")
    out = json.loads(run_cli("analyze", str(capture), "--json", tmp=tmp_path).stdout)
    assert (out["continuity"], out["memory_tight"], out["suggested_flags"]) == ("low", False, "--memory-peak 20/80")
    assert set(out["gpus"]) == {"0", "1"} and out["samples"] == 40


@pytest.mark.parametrize(("text", "said"), [
    ("", "line 1: empty file"),
    ("a,b,c\n1,2,3\n", "line 1: unknown columns"),
    ("timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib\n", "no samples"),
    ("timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib\n2026-11-30T01:00:00Z,0,lots,1,2\n", "line 2"),
    ("timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib\n2026-11-30T01:00:00Z,0\n", "line 2"),
])
def test_bad_captures_name_the_line(tmp_path: Path, text: str, said: str) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    done = run_cli("analyze", str(bad), tmp=tmp_path, env={"GPU_ADVISOR_LANG": "en"})
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_the_reader_raises_only_its_own_error(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "c.csv"
    path.write_text(text, "utf-8")
    with contextlib.suppress(CaptureError):
        read(path)


def test_the_chart_is_a_png_with_something_drawn(tmp_path: Path) -> None:
    chart = tmp_path / "u.png"
    done = run_cli("analyze", str(SMI), "--chart", str(chart), tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    data = chart.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000  # two panels, lines, legends
    nowhere = run_cli("analyze", str(SMI), "--chart", str(tmp_path / "no" / "such" / "dir.png"), tmp=tmp_path,
                      env={"GPU_ADVISOR_LANG": "en"})
    assert nowhere.returncode == 2 and "dir.png" in nowhere.stderr
