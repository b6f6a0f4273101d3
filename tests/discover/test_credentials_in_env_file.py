"""Issue 34.20: cloud keys kept in `.env` beside the other settings reach the SDKs' own credential chains (boto3
read only the process environment, so discovery set up from `.env` alone had no credentials)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.discover.registry import clouds
from bot.settings import Settings


@pytest.fixture
def in_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("AWS_", "TENCENTCLOUD_", "ALIBABA_CLOUD_", "GPU_ADVISOR_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))  # no ~/.aws of the machine running the test
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    return tmp_path


def test_aws_keys_in_the_env_file_reach_boto3(in_folder: Path) -> None:
    (in_folder / ".env").write_text(
        "GPU_ADVISOR_AWS_REGIONS=us-east-1\nAWS_ACCESS_KEY_ID=AKIAFROMDOTENV\nAWS_SECRET_ACCESS_KEY=secret-from-dotenv\n"
        "TENCENTCLOUD_SECRET_ID=AKIDFROMDOTENV\n"
    )
    aws = clouds(Settings())["aws"]()
    credentials = aws.session.get_credentials()  # type: ignore[attr-defined]
    assert (credentials.access_key, credentials.secret_key) == ("AKIAFROMDOTENV", "secret-from-dotenv")
    assert os.environ["TENCENTCLOUD_SECRET_ID"] == "AKIDFROMDOTENV"
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "TENCENTCLOUD_SECRET_ID"):
        os.environ.pop(name)  # what clouds() exported goes with the test (monkeypatch would put it back)


def test_the_process_environment_wins_over_the_env_file(in_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (in_folder / ".env").write_text("GPU_ADVISOR_AWS_REGIONS=us-east-1\nAWS_ACCESS_KEY_ID=AKIAFROMDOTENV\n")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFROMSHELL")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "shell-secret")
    aws = clouds(Settings())["aws"]()
    assert aws.session.get_credentials().access_key == "AKIAFROMSHELL"  # type: ignore[attr-defined]
