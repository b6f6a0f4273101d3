"""`gpu-advise analyze` on a probe capture and on nvidia-smi's own CSV; bad files name the line."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.capture.read import CaptureError, read, read_text
from tests.support.cli import ROOT, run_cli

SMI = ROOT / "tests" / "data" / "captures" / "nvidia-smi-query.csv"
DMON = ROOT / "tests" / "data" / "captures" / "nvidia-smi-dmon.txt"


def test_nvidia_smi_csv_with_units_gives_the_answers(tmp_path: Path) -> None:
    done = run_cli("analyze", str(SMI), "--json", tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["continuity"], out["memory_tight"], out["suggested_flags"]) == ("high", True, "--memory-peak 74/80")
    assert (out["util_p50"], out["util_share_at_or_above_80"], out["samples"], out["duration_s"]) == (
        97.0,
        0.8,
        5,
        20.0,
    )
    assert out["gpus"]["0"]["longest_gap_s"] == 5.0
    assert set(out["gpus"]["0"]) == set(out) - {"suggested_flags", "gpus", "run_duration_s", "idle_gpus"}  # per GPU


def test_the_chinese_figures_have_no_english_word(tmp_path: Path) -> None:
    """Issue 33.3: `analyze --lang zh` said "连续性：high"."""
    import re

    done = run_cli("analyze", str(SMI), "--lang", "zh", tmp=tmp_path)
    assert done.returncode == 0 and "连续性：高" in done.stdout
    words = set(re.findall(r"[A-Za-z]{2,}", done.stdout)) - {"GPU", "MiB", "gpu", "advise", "memory", "peak"}
    assert words == set(), words  # what is left is the command and flag users type, and units


def test_a_probe_capture_of_a_quiet_notebook_is_low_and_not_tight(tmp_path: Path) -> None:
    capture = tmp_path / "probe.csv"
    rows = ["timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib,power_w"]
    rows += [
        f"2026-11-30T01:{m:02d}:00+00:00,{g},{40 if m % 3 else 90},20000,81920,60" for m in range(20) for g in (0, 1)
    ]
    capture.write_text("\n".join(rows) + "\n")
    out = json.loads(run_cli("analyze", str(capture), "--json", tmp=tmp_path).stdout)
    assert (out["continuity"], out["memory_tight"], out["suggested_flags"]) == ("low", False, "--memory-peak 20/80")
    assert set(out["gpus"]) == {"0", "1"} and out["samples"] == 40


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "line 1: empty file"),
        ('"', "line 1: empty file"),
        ("a,b,c\n1,2,3\n", "line 1: unknown columns"),
        ("timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib\n", "no samples"),
        ("timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib\n2026-11-30T01:00:00Z,0,lots,1,2\n", "line 2"),
        ("timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib\n2026-11-30T01:00:00Z,0\n", "line 2"),
    ],
)
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


HEADS = [
    "timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib\n",
    "timestamp, index, utilization.gpu [%], memory.used [MiB], memory.total [MiB]\n",
    "#Date Time gpu sm mem fb\n#YYYYMMDD HH:MM:SS Idx % % MB\n",
    "#Time gpu sm fb\n",
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(HEADS), st.text(alphabet=" ,-:%#0123456789.TZ/\nMiBe+", max_size=200))
def test_every_format_raises_only_its_own_error_on_rows_that_look_nearly_right(head: str, rows: str) -> None:
    with contextlib.suppress(CaptureError):
        for r in read_text(head + rows, card_mib=81920):
            assert r.memory_total_mib >= 0 and r.at.tzinfo is not None


def test_nvidia_smi_dmon_output_with_the_card_size(tmp_path: Path) -> None:
    done = run_cli("analyze", str(DMON), "--card-gb", "80", "--json", tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["gpus"]["0"]["continuity"], out["gpus"]["0"]["memory_peak_mib"]) == ("high", 75810.0)
    assert (out["gpus"]["1"]["continuity"], out["gpus"]["1"]["memory_tight"]) == ("low", False)
    assert (out["samples"], out["duration_s"], out["suggested_flags"]) == (12, 25.0, "--memory-peak 74/80")


def test_dmon_with_times_only_runs_past_midnight(tmp_path: Path) -> None:
    text = "#Time        gpu     sm     fb\n#HH:MM:SS    Idx      %     MB\n"
    text += "".join(f" {t}  0  90  {m}\n" for t, m in (("23:59:50", 1000), ("23:59:55", 2000), ("00:00:00", 3000)))
    readings = read_text(text, card_mib=40960)
    assert [(r.at - readings[0].at).total_seconds() for r in readings] == [0, 5, 10]


@pytest.mark.parametrize(
    ("text", "card", "said"),
    [
        ("#Date Time gpu sm fb\n 20261130 01:00:00 0 90 1000\n", None, ["line 1", "--card-gb 80"]),
        ("# gpu sm fb\n# Idx % MB\n 0 90 1000\n", 80, ["line 1", "-o DT"]),
        ("#Date Time gpu pwr\n 20261130 01:00:00 0 90\n", 80, ["line 1", "sm, fb", "-s um"]),
        (
            "#Date Time gpu sm fb\n 20261130 01:00:00 0 90 1000\n 20261130 01:00:05 0 - 1000\n",
            80,
            ["line 3", "20261130 01:00:05 0 - 1000", "'-'"],
        ),
    ],
)
def test_dmon_output_that_cannot_be_used_says_how_to_run_dmon(
    tmp_path: Path, text: str, card: int | None, said: list[str]
) -> None:
    bad = tmp_path / "dmon.txt"
    bad.write_text(text)
    flags = ["--card-gb", str(card)] if card else []
    done = run_cli("analyze", str(bad), *flags, tmp=tmp_path, env={"GPU_ADVISOR_LANG": "en"})
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert all(s in done.stderr for s in said), done.stderr


def test_errors_in_chinese_name_the_line_too(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib\n2026-11-30T01:00:00Z,0,很多,1,2\n")
    done = run_cli("analyze", str(bad), "--lang", "zh", tmp=tmp_path)
    assert done.returncode == 2 and "第 2 行" in done.stderr and "无法读取" in done.stderr, done.stderr


def test_the_chart_is_a_png_with_something_drawn(tmp_path: Path) -> None:
    chart = tmp_path / "u.png"
    done = run_cli("analyze", str(SMI), "--chart", str(chart), tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    data = chart.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000  # two panels, lines, legends
    nowhere = run_cli(
        "analyze",
        str(SMI),
        "--chart",
        str(tmp_path / "no" / "such" / "dir.png"),
        tmp=tmp_path,
        env={"GPU_ADVISOR_LANG": "en"},
    )
    assert nowhere.returncode == 2 and "dir.png" in nowhere.stderr


def test_a_capture_of_the_whole_run_also_answers_question_1(tmp_path: Path) -> None:
    from tests.slack.test_captures import whole_run

    capture = tmp_path / "run.csv"
    capture.write_bytes(whole_run(150))
    out = json.loads(run_cli("analyze", str(capture), "--json", tmp=tmp_path).stdout)
    assert (out["suggested_flags"], out["run_duration_s"]) == ("--duration 2.5h --memory-peak 40/80", 150 * 60.0)
    capture.write_bytes(whole_run(30))
    assert "--duration 30min" in run_cli("analyze", str(capture), tmp=tmp_path).stdout


def test_the_suggested_memory_answer_keeps_the_measured_verdict() -> None:
    from datetime import UTC, datetime

    from rules.capture import figures, implied_answers, whole_run_s
    from rules.policy import load_policy
    from rules.samples import Sample

    rules = load_policy().capture
    at = datetime(2026, 11, 30, tzinfo=UTC)
    for peak_mib in (65_600.0, 65_500.0, 65_560.0, 40_000.0):  # 64.06, 63.96, 64.02 GB of 80
        readings = [Sample(at, 0, 90, peak_mib, 81920)]
        overall = figures(readings, rules, 0.8)
        answer = implied_answers(overall, whole_run_s(readings, rules), 0.8)["memory"]
        peak, card = (float(x) for x in answer.split("/"))
        assert (peak / card > 0.8) == overall.memory_tight, (peak_mib, answer)


def test_an_idle_card_beside_a_busy_one_is_named_not_hidden(tmp_path: Path) -> None:
    """Issue 19.13: 'GPU all ... longest idle gap 1 s' while GPU 1 idled the whole 19 s."""
    capture = tmp_path / "two.csv"
    rows = ["timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib,power_w"]
    rows += [
        f"2026-11-30T01:00:{s:02d}+00:00,{g},{95 if g == 0 else 0},{30000 if g == 0 else 500},81920,60"
        for s in range(20)
        for g in (0, 1)
    ]
    capture.write_text("\n".join(rows) + "\n")
    out = json.loads(run_cli("analyze", str(capture), "--json", tmp=tmp_path).stdout)
    assert out["idle_gpus"] == [1] and out["longest_gap_s"] == 19 and out["gpus"]["1"]["longest_gap_s"] == 19
    said = run_cli("analyze", str(capture), "--lang", "en", tmp=tmp_path).stdout
    assert "GPU 1 idle the whole capture: a card paid for and unused (1 of 2 cards worked" in said
    assert "GPU all:" in said and "longest idle gap 19 s" in said.split("GPU all:")[1].splitlines()[0]
    zh = run_cli("analyze", str(capture), "--lang", "zh", tmp=tmp_path).stdout
    assert "GPU 全部：" in zh and "GPU 1 在整个采样期间都空闲" in zh


def test_the_chart_shows_an_idle_card_above_the_axis_and_keeps_the_legend_off_the_data() -> None:
    """Issue 19.14: an idle GPU's line lay under the x-axis and the legend sat on the data. Nothing is cut off at
    the figure's edges (its margins are fixed)."""
    from datetime import UTC, datetime, timedelta

    from bot.capture.chart import chart
    from rules.samples import Sample

    t0 = datetime(2026, 11, 30, tzinfo=UTC)
    readings = [
        Sample(t0 + timedelta(seconds=s), g, 95 if g == 0 else 0, 30000 if g == 0 else 0, 143771)  # an H200's 140 GiB
        for s in range(20)
        for g in (0, 1)
    ]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = chart(readings, busy_pct=80, tight_fraction=0.8, title="two cards")
    canvas = FigureCanvasAgg(fig)  # the canvas savefig draws on
    canvas.draw()
    renderer = canvas.get_renderer()
    for ax in fig.axes:
        assert ax.get_ylim()[0] < 0  # a line at 0 is drawn above the x-axis, not on it
        legend = ax.get_legend()
        assert legend is not None
        assert legend.get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1  # beside the plot
        # the fixed margins hold everything drawn: the legend, the ticks' and axes' labels, the title
        inside = fig.bbox
        drawn = ax.get_tightbbox(renderer)
        assert drawn is not None
        assert drawn.x0 >= inside.x0 and drawn.x1 <= inside.x1 and drawn.y0 >= inside.y0 and drawn.y1 <= inside.y1


@pytest.mark.parametrize("reading", ["1e309", "inf", "nan", "-5"])
def test_impossible_figures_are_refused_with_their_line_not_printed_as_infinity(tmp_path: Path, reading: str) -> None:
    """Issue 20.15: 1e309 memory or nan utilisation was read (and printed as Infinity)."""
    capture = tmp_path / "bad.csv"
    capture.write_text(
        "timestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib\n"
        "2026-11-30T01:00:00Z,0,90,1000,81920\n"
        f"2026-11-30T01:00:05Z,0,{reading},1000,81920\n"
    )
    done = run_cli("analyze", str(capture), "--lang", "en", tmp=tmp_path)
    assert done.returncode == 2 and "line 3" in done.stderr and "Infinity" not in done.stdout + done.stderr


def test_a_device_or_a_huge_file_is_refused_at_the_size_limit_and_a_bom_is_read(tmp_path: Path) -> None:
    """Issue 20.14/20.15: analyze /dev/zero read forever; a UTF-8 BOM broke the header."""
    done = run_cli("analyze", "/dev/zero", "--lang", "en", tmp=tmp_path)
    assert done.returncode == 2 and "larger than 10 MiB" in done.stderr
    capture = tmp_path / "bom.csv"
    capture.write_bytes(
        b"\xef\xbb\xbftimestamp,gpu,utilization_pct,memory_used_mib,memory_total_mib\n"
        b"2026-11-30T01:00:00Z,0,90,1000,81920\n2026-11-30T01:00:05Z,0,90,1000,81920\n"
    )
    assert run_cli("analyze", str(capture), "--json", tmp=tmp_path).returncode == 0
