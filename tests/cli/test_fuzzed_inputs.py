"""What the CLI fuzz of the newer commands found (issue 34.7c), each now one clear line: an endpoint that is not a
URL (exit 2, naming the setting), a grace of 400 nines (exit 2, naming the range), a chart that cannot be written
to /proc, a folder or a full disk (exit 1, naming the file), never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_cli


@pytest.mark.parametrize(
    "setting",
    [
        "GPU_ADVISOR_AWS_ENDPOINT_URL",
        "GPU_ADVISOR_ALIYUN_ENDPOINT",
        "GPU_ADVISOR_TENCENT_ENDPOINT",
        "GPU_ADVISOR_VOLCENGINE_ENDPOINT",
        "GPU_ADVISOR_HUAWEI_ENDPOINT",
    ],
)
def test_an_endpoint_that_is_not_a_url_is_a_bad_setting(tmp_path: Path, setting: str) -> None:
    env = {setting: "not a url", "GPU_ADVISOR_AWS_REGIONS": "us-east-1", "GPU_ADVISOR_DISCOVER_TEAM": "T1"}
    done = run_cli("discover", env=env, tmp=tmp_path)
    assert done.returncode == 2 and "'not a url' is not an endpoint" in done.stderr
    assert setting in done.stderr  # the variable, as it was set


@pytest.mark.parametrize("value", ["cn-north-4", "cn-north-4=", "=0a1b", "cn-north-4=0a1b,cn-east-3"])
def test_a_huawei_project_list_that_is_not_region_equals_id_is_a_bad_setting(tmp_path: Path, value: str) -> None:
    env = {"GPU_ADVISOR_HUAWEI_PROJECT_IDS": value, "GPU_ADVISOR_HUAWEI_REGIONS": "cn-north-4"}
    done = run_cli("discover", env=env, tmp=tmp_path)
    assert done.returncode == 2 and "GPU_ADVISOR_HUAWEI_PROJECT_IDS" in done.stderr
    assert "region=project_id" in done.stderr, done.stderr


def test_a_grace_of_400_nines_is_out_of_range(tmp_path: Path) -> None:
    done = run_cli(
        "act", "C1", "stop", "--grace", "9" * 400 + "h", "--team", "T1", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path
    )
    assert done.returncode == 2 and "from 1m to 7d" in done.stderr


@pytest.mark.parametrize("target", ["/proc/chart.png", "FOLDER", "/dev/full"])
def test_a_chart_that_cannot_be_written_is_one_line(tmp_path: Path, target: str) -> None:
    path = str(tmp_path) if target == "FOLDER" else target
    done = run_cli("report", "--team", "T1", "--chart", path, env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert done.returncode == 1, done.stderr
    assert (
        done.stderr.strip().splitlines() == [done.stderr.strip()]
        and f"--chart {path}: cannot be written" in done.stderr
    )
