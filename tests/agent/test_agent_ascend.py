"""The agent on a Huawei Ascend box: no NVIDIA tool on PATH, a stand-in `npu-smi` printing a recorded idle 910B2
(tests/data/npu_smi): the box enrolls as an Ascend-910B2-64GB from what npu-smi names it, its heartbeat's sample
is the AI Core utilisation and the HBM in use, and, idle over the window, the digest lists it as idle."""

from __future__ import annotations

import json
import os
import stat
from datetime import timedelta
from pathlib import Path

import pytest

from bot.state.rentals import Rentals
from tests.actions.test_stop import digest, quiet
from tests.agent.test_enroll import agent, enroll_token
from tests.support.slack_harness import running_app

DATA = Path(__file__).parents[1] / "data" / "npu_smi"


def stand_in_npu_smi(folder: Path, table: str = "910b2_idle.txt") -> dict[str, str]:
    """A bin folder with only `npu-smi` (no nvidia-smi), as an Ascend box has."""
    folder.mkdir(exist_ok=True)
    script = folder / "npu-smi"
    text = (DATA / table).read_text()
    script.write_text(f"#!/bin/sh\n[ \"$1\" = info ] || exit 2\ncat <<'EOF'\n{text}EOF\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return {"PATH": f"{folder}{os.pathsep}/usr/bin:/bin"}


@pytest.mark.e2e  # starts a process (the stand-in npu-smi)
def test_an_idle_910b2_enrolls_by_its_name_and_is_idle_in_the_digest(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        env = stand_in_npu_smi(tmp_path / "bin")
        done = agent(tmp_path, h.base_url, env, "--enroll", enroll_token(h), "--name", "ascend-box")
        assert done.returncode == 0, done.stderr
        rentals = Rentals(h.deps.store)
        inst = rentals.instance("T1", "ascend-box")
        assert inst is not None and (inst.gpu, inst.cards) == ("Ascend-910B2-64GB", 1)
        [sample] = rentals.samples(inst.id, h.clock.now - timedelta(days=1))
        assert (sample.utilization_pct, sample.memory_used_mib, sample.memory_total_mib) == (0.0, 3126.0, 65536.0)
        forced = agent(tmp_path, h.base_url, env, "--source", "nvidia-smi")
        assert forced.returncode == 2 and "no NVIDIA driver" in forced.stderr  # forced: no other tool tried
        h.clock.advance(hours=3)
        quiet(h, inst)  # the hours between, as the agent would have sent them
        text = json.dumps(digest(h)["blocks"], ensure_ascii=False)
        assert "*ascend-box*" in text and "idle since" in text


@pytest.mark.e2e  # starts a process
def test_a_malformed_npu_smi_row_is_one_line_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    rows = (DATA / "910b2_idle.txt").read_text().splitlines()
    rows[7] = "| 0                         | 0000:C1:00.0  | ?           0    / 0          3126 / 65536         |"
    bad.write_text("\n".join(rows) + "\n")
    folder = tmp_path / "bin"
    folder.mkdir()
    script = folder / "npu-smi"
    script.write_text(f"#!/bin/sh\ncat {bad}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    done = agent(tmp_path, "http://127.0.0.1:9", {"PATH": f"{folder}{os.pathsep}/usr/bin:/bin"}, "--token", "t")
    assert done.returncode == 2
    assert "npu-smi line 8 is not a row of its device table" in done.stderr and "Traceback" not in done.stderr
