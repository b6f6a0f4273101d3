"""A team as the terminal takes it (`--team`): a Slack workspace id, or a registered chat's key behind its prefix; an
unregistered prefix or a malformed id is refused naming the forms (bot/chat/port.py is_team)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.chat.port import is_team, register_chat
from tests.support.cli import run_cli


@pytest.mark.parametrize("team", ["T0123ABC", "E01GRID", "feishu:2ed263bf32cf1651", "dingtalk:ding8f1e2d3c4b5a6978"])
def test_a_slack_workspace_or_a_registered_chats_key_is_a_team(team: str) -> None:
    assert is_team(team)


@pytest.mark.parametrize("team", ["teams:acme", "feishu:", "feishu:a b", "t123", "oc_group", "<!channel>"])
def test_anything_else_is_not(team: str) -> None:
    assert not is_team(team)


def test_a_chat_registered_later_names_its_teams_by_its_prefix() -> None:
    register_chat("memo", "memo:")
    assert is_team("memo:acme") and not is_team("memo:")


def test_the_terminal_refuses_an_unknown_prefix_naming_the_forms(tmp_path: Path) -> None:
    done = run_cli("list", "--team", "teams:acme", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert done.returncode == 2
    assert "--team 'teams:acme' is not a team" in done.stderr and "feishu:<tenant key>" in done.stderr
