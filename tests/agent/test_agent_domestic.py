"""The agent on a box with only a domestic card's tool (Hygon's hy-smi, Cambricon's cnmon, Moore Threads'
mthreads-gmi, Kunlunxin's xpu-smi): found without --source, asked the command its reader documents (a stand-in
that refuses any other), enrolled as the catalogue's model from the name the tool prints, its cards' samples
kept as read; `--source` forces the tool, and a box without it says so."""

from __future__ import annotations

import os
import stat
from datetime import timedelta
from pathlib import Path

import pytest

from bot.agent import hy_smi
from bot.state.rentals import Rentals
from tests.agent.test_enroll import agent, enroll_token
from tests.support.cli import run_cli
from tests.support.slack_harness import running_app

DATA = Path(__file__).parents[1] / "data"
BOXES = {
    "hy-smi": (" ".join(hy_smi.ARGS), "hy_smi/k100_two_cards.json", "K100-AI-64GB", (92.0, 46580.0, 65520.0)),
    "cnmon": ("info -u -m -p", "cnmon/mlu370_two_cards.txt", "MLU370-X8-48GB", (74.0, 20118.0, 24576.0)),
    "mthreads-gmi": ("-q --json", "mthreads_gmi/s4000.json", "MTT-S4000-48GB", (86.0, 30721.0, 49152.0)),
    "xpu-smi": ("-m", "xpu_smi/p800_two_cards.txt", "P800-96GB", (63.0, 71680.0, 98304.0)),
}


def stand_in(folder: Path, tool: str) -> dict[str, str]:
    """A bin folder with only `tool`, which prints its recorded output for the documented arguments only."""
    args, data, _, _ = BOXES[tool]
    folder.mkdir(exist_ok=True)
    script = folder / tool
    script.write_text(
        f'#!/bin/sh\n[ "$*" = "{args}" ] || {{ echo "unexpected: $*" >&2; exit 2; }}\ncat {DATA / data}\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return {"PATH": f"{folder}{os.pathsep}/usr/bin:/bin"}


@pytest.mark.e2e  # starts processes (the agent, the stand-in tool)
@pytest.mark.parametrize("tool", sorted(BOXES))
def test_a_box_with_only_its_vendors_tool_enrolls_as_its_card(tmp_path: Path, tool: str) -> None:
    _, _, model, first = BOXES[tool]
    with running_app(tmp_path) as h:
        env = stand_in(tmp_path / "bin", tool)
        done = agent(tmp_path, h.base_url, env, "--enroll", enroll_token(h), "--name", "box")
        assert done.returncode == 0, done.stderr
        rentals = Rentals(h.deps.store)
        inst = rentals.instance("T1", "box")
        assert inst is not None and (inst.gpu, inst.cards) == (model, 2)
        samples = rentals.samples(inst.id, h.clock.now - timedelta(days=1))
        assert sorted((s.utilization_pct, s.memory_used_mib, s.memory_total_mib) for s in samples)[-1] == first
    forced = agent(tmp_path, "http://127.0.0.1:9", env, "--token", "t", "--source", "npu-smi")
    assert forced.returncode == 2 and "npu-smi is not on this box" in forced.stderr


@pytest.mark.e2e  # starts processes
def test_a_tool_that_fails_is_said_with_its_own_words(tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "cnmon"
    script.write_text("#!/bin/sh\necho 'cndev: no device found' >&2\nexit 3\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    done = agent(tmp_path, "http://127.0.0.1:9", {"PATH": f"{folder}{os.pathsep}/usr/bin:/bin"}, "--token", "t")
    assert done.returncode == 2
    assert "cnmon exited 3: cndev: no device found" in done.stderr and "Traceback" not in done.stderr
    assert "NVIDIA" not in done.stderr  # issue 53.11: not told to run where NVIDIA's cards and driver are
    probe = run_cli("probe", "--duration", "1s", env={"PATH": f"{folder}{os.pathsep}/usr/bin:/bin"}, tmp=tmp_path)
    assert probe.returncode == 2 and "cnmon exited 3" in probe.stderr and "NVIDIA" not in probe.stderr, probe.stderr


@pytest.mark.e2e  # starts processes
@pytest.mark.parametrize(
    ("printed", "said"),
    [
        (b"\xff\xfe\x80 not text", "neither UTF-8 nor GBK"),  # a stray byte: one line naming the tool
        (b'{"card0": {"DCU use (%)": "9', "hy-smi line"),  # JSON cut short: the line where it ends
    ],
)
def test_a_tool_printing_what_cannot_be_read_is_one_line_never_a_traceback(
    tmp_path: Path, printed: bytes, said: str
) -> None:
    """Issue 53.10: a GBK-localised tool or a stray byte stopped the agent with a UnicodeDecodeError traceback; a
    malformed hy-smi JSON with an IndexError."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "raw").write_bytes(printed)
    script = folder / "hy-smi"
    script.write_text(f"#!/bin/sh\ncat {folder / 'raw'}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    done = agent(tmp_path, "http://127.0.0.1:9", {"PATH": f"{folder}{os.pathsep}/usr/bin:/bin"}, "--token", "t")
    assert done.returncode == 2 and said in done.stderr and "hy-smi" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "NVIDIA" not in done.stderr  # a domestic card's tool failed, not NVIDIA's driver (issue 53.11)


@pytest.mark.e2e  # starts processes
def test_a_reading_naming_more_cards_than_a_box_holds_is_one_line_and_nothing_buffered(tmp_path: Path) -> None:
    """Issue 53.11: 40 MB of xpu-smi rows became hundreds of thousands of samples, a heartbeat serve refused and a
    buffer of junk. A reading names at most 64 cards; more is one line, and nothing is kept."""
    folder = tmp_path / "bin"
    folder.mkdir()
    row = '{i} {i} 0000:03:00.0 0 45 - - - 186 400 - - - - - - - 71680 98304 63 0 "P800 OAM" 1 0 0 - - - - - KX{i} -'
    (folder / "rows.txt").write_text("\n".join(row.format(i=i) for i in range(5000)) + "\n")
    script = folder / "xpu-smi"
    script.write_text(f'#!/bin/sh\n[ "$*" = "-m" ] || exit 2\ncat {folder / "rows.txt"}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    buffer = tmp_path / "b.jsonl"
    env = {"PATH": f"{folder}{os.pathsep}/usr/bin:/bin"}
    done = agent(tmp_path, "http://127.0.0.1:9", env, "--token", "t", "--buffer", str(buffer))
    assert done.returncode == 2 and "5,000 cards" in done.stderr and "64" in done.stderr
    assert "Traceback" not in done.stderr and (not buffer.exists() or buffer.read_text() == "")
