"""`gpu-advise agent --enroll` against the real server, with the stand-in `nvidia-smi` and a local stand-in for
EC2's instance metadata service: the box registers itself once, keeps its token in a 0600 state file that a
restart reuses, and shows up in `gpu-advise list` with its GPU, price and cloud id."""

from __future__ import annotations

import json
import stat
from datetime import timedelta
from pathlib import Path

import pytest

from bot.state.enrollment import Enrollments, Grant
from tests.agent.test_agent import stand_in_smi
from tests.support.cli import run_cli
from tests.support.servers import serve
from tests.support.slack_harness import Harness, running_app

IMDS_TOKEN = "imds-session-token"


def enroll_token(h: Harness, uses: int = 5) -> str:
    grant = Grant("T1", "C1", "U1", "llm", uses, h.clock.now + timedelta(days=7))
    return Enrollments(h.deps.store).issue(grant, created_by="terminal", now=h.clock.now)


def agent(tmp: Path, url: str, env: dict[str, str], *extra: str):  # type: ignore[no-untyped-def]
    return run_cli(
        "agent",
        "--url",
        url,
        "--once",
        "--buffer",
        str(tmp / "buffer.jsonl"),
        "--state-file",
        str(tmp / "agent.json"),
        *extra,
        env=env | {"GPU_ADVISOR_LANG": "en"},
        tmp=tmp,
    )


def metadata_routes() -> dict:  # type: ignore[type-arg]
    def instance_id(request):  # type: ignore[no-untyped-def]
        ok = request.headers.get("X-aws-ec2-metadata-token") == IMDS_TOKEN
        return (200, {}, b"i-0abc1234def567890") if ok else (401, {}, b"")

    return {"/latest/api/token": (200, {}, IMDS_TOKEN.encode()), "/latest/meta-data/instance-id": instance_id}


@pytest.mark.e2e  # starts a process
def test_a_box_enrolls_once_and_a_restart_reuses_its_state_file(tmp_path: Path) -> None:
    with running_app(tmp_path) as h, serve(metadata_routes()) as imds:
        token = enroll_token(h)
        env = stand_in_smi(tmp_path) | {"AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.base_url}
        first = agent(tmp_path, h.base_url, env, "--enroll", token, "--name", "gpu-box-1")
        assert first.returncode == 0, first.stderr
        assert "enrolled as gpu-box-1" in first.stderr and token not in first.stderr + first.stdout
        state = tmp_path / "agent.json"
        assert stat.S_IMODE(state.stat().st_mode) == 0o600
        kept = json.loads(state.read_text())
        assert kept["instance"] == "gpu-box-1" and kept["token"] not in first.stderr
        assert [r.method for r in imds.requests] == ["PUT", "GET"]
        again = agent(tmp_path, h.base_url, env, "--enroll", token, "--name", "gpu-box-1")
        assert again.returncode == 0, again.stderr
        assert "enrolled" not in again.stderr and len(imds.requests) == 2  # the state file, not a new enrollment
        assert Enrollments(h.deps.store).grant(token, h.clock.now).uses_left == 4
        listed = run_cli("list", "--team", "T1", "--json", env={"GPU_ADVISOR_DB": str(tmp_path / "bot.db")})
        [box] = json.loads(listed.stdout)["instances"]
        assert (box["name"], box["gpu"], box["cards"], box["price"], box["unit"]) == (
            "gpu-box-1",
            "A100-80GB",
            2,
            800.0,
            "day",
        )
        assert (box["source"], box["provider_id"], box["project"]) == ("agent", "aws:i-0abc1234def567890", "llm")
        text = run_cli("list", "--team", "T1", env={"GPU_ADVISOR_DB": str(tmp_path / "bot.db")})
        assert "gpu-box-1\tA100-80GB × 2\t800 CNY/day" in text.stdout and "\tagent" in text.stdout


@pytest.mark.e2e  # starts a process
def test_the_metadata_service_is_never_asked_when_botocore_is_told_not_to(tmp_path: Path) -> None:
    with running_app(tmp_path) as h, serve(metadata_routes()) as imds:
        env = stand_in_smi(tmp_path) | {
            "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.base_url,
            "AWS_EC2_METADATA_DISABLED": "true",
        }
        done = agent(tmp_path, h.base_url, env, "--enroll", enroll_token(h), "--name", "box")
        assert done.returncode == 0, done.stderr
        assert imds.requests == []
        listed = run_cli("list", "--team", "T1", "--json", env={"GPU_ADVISOR_DB": str(tmp_path / "bot.db")})
        assert json.loads(listed.stdout)["instances"][0]["provider_id"] is None


@pytest.mark.e2e  # starts a process
def test_a_given_provider_id_wins_and_a_refused_token_exits_3(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        env = stand_in_smi(tmp_path) | {"AWS_EC2_METADATA_DISABLED": "true"}
        refused = agent(tmp_path, h.base_url, env, "--enroll", "not-issued")
        assert refused.returncode == 3 and "refused the enrollment (401)" in refused.stderr
        assert not (tmp_path / "agent.json").exists()
        done = agent(
            tmp_path,
            h.base_url,
            env,
            "--enroll",
            enroll_token(h),
            "--name",
            "box",
            "--provider-id",
            "aws:i-0fedcba9876543210",
            "--price",
            "14/h",
        )
        assert done.returncode == 0, done.stderr
        listed = run_cli("list", "--team", "T1", "--json", env={"GPU_ADVISOR_DB": str(tmp_path / "bot.db")})
        [box] = json.loads(listed.stdout)["instances"]
        assert (box["provider_id"], box["price"], box["unit"]) == ("aws:i-0fedcba9876543210", 14.0, "hour")


def test_without_a_token_or_an_enrollment_it_says_what_to_give(tmp_path: Path) -> None:
    done = agent(tmp_path, "http://127.0.0.1:9", stand_in_smi(tmp_path))
    assert done.returncode == 2 and "--enroll TOKEN" in done.stderr and "--token" in done.stderr
    (tmp_path / "agent.json").mkdir()
    folder = agent(tmp_path, "http://127.0.0.1:9", stand_in_smi(tmp_path), "--enroll", "x")
    assert folder.returncode == 2 and "cannot be written (it is a folder)" in folder.stderr


@pytest.mark.e2e  # starts a process
def test_a_taken_name_is_refused_with_what_to_do(tmp_path: Path) -> None:
    from bot.state.rentals import Rentals

    with running_app(tmp_path) as h:
        Rentals(h.deps.store).track_instance(
            "T1",
            "taken",
            {
                "gpu": "A100-80GB",
                "cards": 1,
                "share": None,
                "unit": "day",
                "price": 400.0,
                "currency": "CNY",
                "channel": "C1",
                "owner": "U1",
                "project": None,
                "started_at": h.clock.now,
            },
        )
        env = stand_in_smi(tmp_path) | {"AWS_EC2_METADATA_DISABLED": "true"}
        done = agent(tmp_path, h.base_url, env, "--enroll", enroll_token(h), "--name", "taken")
        assert done.returncode == 2
        assert (
            "refused the enrollment (409): another machine is enrolled as taken: choose another name with --name"
            in done.stderr
        )
        assert not (tmp_path / "agent.json").exists()
        zh = run_cli(
            "agent",
            "--url",
            h.base_url,
            "--once",
            "--buffer",
            str(tmp_path / "buffer.jsonl"),
            "--state-file",
            str(tmp_path / "agent.json"),
            "--enroll",
            enroll_token(h),
            "--name",
            "taken",
            env=env | {"GPU_ADVISOR_LANG": "zh"},
            tmp=tmp_path,
        )
        assert zh.returncode == 2 and "已有另一台机器以 taken 注册：请用 --name 换一个名称" in zh.stderr
