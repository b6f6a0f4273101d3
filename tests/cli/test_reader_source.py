"""`--source` of the agent and the probe takes only the readers there are, and says which (issue 32)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_cli


@pytest.mark.parametrize(
    "command", [("agent", "--url", "http://127.0.0.1:9", "--once"), ("probe", "--duration", "30s")]
)
def test_an_unknown_reader_is_refused_naming_the_ones_there_are(tmp_path: Path, command: tuple[str, ...]) -> None:
    done = run_cli(*command, "--source", "hy-smi-ish", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert "'hy-smi-ish': one of nvml, nvidia-smi, npu-smi" in said.replace("│", "").replace("  ", " ")
