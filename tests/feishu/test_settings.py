"""Feishu's settings refused before serve starts, naming what is wrong and what is accepted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.cli import run_cli

FEISHU = {"GPU_ADVISOR_FEISHU_APP_ID": "cli_a1b2c3d4e5f6", "GPU_ADVISOR_FEISHU_APP_SECRET": "s3cr3t-app-secret-value"}


@pytest.mark.parametrize(
    ("env", "named", "accepted"),
    [
        (
            {"GPU_ADVISOR_FEISHU_DOMAIN": "http://open.example.com"},
            "GPU_ADVISOR_FEISHU_DOMAIN",
            "http only on the loopback",
        ),
        ({"GPU_ADVISOR_FEISHU_DOMAIN": "https://open.example.com/path"}, "FEISHU_DOMAIN", "an origin"),
        ({"GPU_ADVISOR_FEISHU_MODE": "socket"}, "FEISHU_MODE", "ws|http"),
    ],
)
def test_a_bad_feishu_setting_is_refused_naming_it(
    tmp_path: Path, env: dict[str, str], named: str, accepted: str
) -> None:
    result = run_cli("serve", "--no-scheduler", env=FEISHU | env, tmp=tmp_path)
    assert result.returncode == 2
    assert named in result.stderr and accepted in result.stderr


def test_http_mode_without_an_encrypt_key_or_a_token_says_what_to_set(tmp_path: Path) -> None:
    switching = sys.getswitchinterval()
    result = run_cli("serve", "--no-scheduler", env=FEISHU | {"GPU_ADVISOR_FEISHU_MODE": "http"}, tmp=tmp_path)
    assert result.returncode != 0
    assert sys.getswitchinterval() == switching  # a start that failed leaves the process as it was
    assert (
        "GPU_ADVISOR_FEISHU_ENCRYPT_KEY" in result.stderr and "GPU_ADVISOR_FEISHU_VERIFICATION_TOKEN" in result.stderr
    )
    assert "s3cr3t-app-secret-value" not in result.stderr + result.stdout
