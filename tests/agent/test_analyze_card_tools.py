"""`gpu-advise analyze` (and a chat capture, which reads the same way) on the domestic tools' output as the
agent asks for it: once (as of now), or looped with `date -Is` before each printout; untimed repeats and a line
the reader cannot use are refused naming the line, in the user's language."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.capture.card_tools_log import read_tool_log, which_tool
from bot.capture.errors import CaptureError
from bot.capture.read import read_text
from bot.text import t
from tests.support.cli import run_cli

DATA = Path(__file__).parents[1] / "data"
CAPTURES = {
    "hy-smi": "hy_smi/k100_two_cards.json",
    "cnmon": "cnmon/mlu370_two_cards.txt",
    "mthreads-gmi": "mthreads_gmi/s4000.json",
    "xpu-smi": "xpu_smi/p800_two_cards.txt",
}


FORMS = [(tool, path) for tool, path in sorted(CAPTURES.items())] + [("mthreads-gmi", "mthreads_gmi/s4000_q.txt")]


def looped(tool: str, times: list[str], path: str | None = None) -> str:
    once = (DATA / (path or CAPTURES[tool])).read_text()
    return "".join(f"{at}\n{once}" for at in times)


@pytest.mark.parametrize(("tool", "path"), FORMS)
def test_a_looped_capture_is_read_at_the_times_before_each_printout(tool: str, path: str) -> None:
    times = ["2026-12-03T09:00:00+08:00", "2026-12-03T09:00:10+08:00", "2026-12-03T09:00:20+08:00"]
    text = looped(tool, times, path)
    assert which_tool(text) == tool
    samples = read_text(text)
    assert len(samples) == 6 and {s.gpu for s in samples} == {0, 1}
    assert sorted({s.at for s in samples}) == [
        datetime(2026, 12, 3, 1, 0, second, tzinfo=UTC) for second in (0, 10, 20)
    ]
    busy = [s for s in samples if s.gpu == 0]
    assert all(s.utilization_pct > 50 for s in busy) and all(s.memory_total_mib > 20000 for s in busy)


def test_nvidia_smi_query_text_is_not_taken_for_moore_threads() -> None:
    nvidia = (DATA / "mthreads_gmi" / "s4000_q.txt").read_text().replace("MTT", "NVIDIA").replace("MTBios", "VBIOS")
    assert which_tool(nvidia) is None  # the same sections, but no Moore Threads card in them


def test_one_printout_is_read_as_of_now() -> None:
    now = datetime(2026, 12, 3, 9, tzinfo=UTC)
    samples = read_tool_log("cnmon", (DATA / CAPTURES["cnmon"]).read_text().splitlines(), now)
    assert [(s.at, s.gpu, s.utilization_pct) for s in samples] == [(now, 0, 74.0), (now, 1, 0.0)]


def test_untimed_repeats_and_bad_lines_are_refused_naming_the_line() -> None:
    twice = (DATA / CAPTURES["xpu-smi"]).read_text() * 2
    with pytest.raises(CaptureError) as untimed:
        read_text(twice)
    assert untimed.value.code == "tool_no_time"
    said = t(f"error.capture.{untimed.value.code}", "en", **untimed.value.params)  # type: ignore[arg-type]
    assert "do date -Is; xpu-smi -m; sleep 10" in said
    text = looped("cnmon", ["2026-12-03T09:00:00+08:00", "2026-12-03T09:00:10+08:00"])
    bad = text.splitlines()
    bad[30] = "        !!"  # inside the second printout
    with pytest.raises(CaptureError) as row:
        read_text("\n".join(bad))
    assert (row.value.line, row.value.code, row.value.params["tool"]) == (31, "tool_row", "cnmon")
    said_zh = t("error.capture.tool_row", "zh", **row.value.params)  # type: ignore[arg-type]
    assert "无法读取 cnmon 输出中的“!!”" in said_zh


def test_analyze_judges_a_looped_dcu_capture(tmp_path: Path) -> None:
    capture = tmp_path / "dcu.txt"
    capture.write_text(looped("hy-smi", [f"2026-12-03T09:{minute:02d}:00+08:00" for minute in range(0, 30, 5)]))
    done = run_cli("analyze", str(capture), "--json", tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["samples"], result["memory_peak_mib"], result["memory_total_mib"]) == (12, 46580.0, 65520.0)
    assert result["idle_gpus"] == [1]  # the second K100 stayed at 0 % in every printout
