"""A channel given in the terminal is a channel of the tenant's chat (issue 53.3): `<!channel>`, a user id, a
formula or a mention is refused naming the flag and what a channel looks like; a Feishu chat is kept without its
feishu: prefix, so its digest is sent to the chat itself. An owner is a person of the tenant's chat, as chat's
`owner=` takes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.state import Store
from bot.state.actions import Actions
from bot.state.rentals import Rentals
from tests.support.cli import run_cli

EN = {"GPU_ADVISOR_LANG": "en"}
TRACK = ("track", "instance", "box-1", "--gpu", "A100", "--price", "14/h", "--owner", "U1")


@pytest.mark.parametrize("bad", ["<!channel>", "U0123ABCD", "=1+1", "<@U0123ABCD>", "oc_abc"])
def test_a_slack_tenants_channel_that_is_no_channel_is_refused(tmp_path: Path, bad: str) -> None:
    made = run_cli(*TRACK, "--channel", bad, "--team", "T1", env=EN, tmp=tmp_path)
    assert made.returncode == 2 and "--channel" in made.stderr and "C… or G…" in made.stderr
    acted = run_cli("act", bad, "notify", "--team", "T1", env=EN, tmp=tmp_path)
    assert acted.returncode == 2 and "CHANNEL" in acted.stderr
    store = Store(f"sqlite:///{tmp_path / 'advisor.state.db'}")
    assert Rentals(store).instances("T1") == [] and Actions(store).history("T1") == []


def test_a_feishu_chat_is_kept_without_its_prefix(tmp_path: Path) -> None:
    team, chat = "feishu:2ed263bf32cf1651", "oc_" + "5ad1" * 8
    made = run_cli(*TRACK[:-1], "ou_7d8a", "--channel", f"feishu:{chat}", "--team", team, env=EN, tmp=tmp_path)
    assert made.returncode == 0, made.stderr
    inst = Rentals(Store(f"sqlite:///{tmp_path / 'advisor.state.db'}")).instance(team, "box-1")
    assert inst is not None and inst.channel == chat
    refused = run_cli(
        *TRACK[:2], "box-2", *TRACK[3:-1], "ou_7d8a", "--channel", "C0123", "--team", team, env=EN, tmp=tmp_path
    )
    assert refused.returncode == 2 and "oc_…" in refused.stderr  # a Slack channel is no Feishu chat
    assert run_cli("act", f"#{chat}", "notify", "--team", team, env=EN, tmp=tmp_path).returncode == 0


@pytest.mark.parametrize(
    ("team", "channel", "bad", "said"),
    [
        ("T1", "C1", "alice", "--owner 'alice' is not a Slack member ID: give one like U0123ABCD"),
        (
            "feishu:2ed263bf32cf1651",
            "oc_5ad1",
            "U1",
            "--owner 'U1' is not a person of Feishu: give their id, like ou_…",
        ),
        ("dingtalk:corp1", "cid5ad1", "li@example.com", "is not a person of DingTalk: give their id, like <userId>"),
        ("wecom:bot1", "wrchat1", "张三", "--owner '张三' is not a person of WeCom: give their id, like <userid>"),
    ],
)
def test_an_owner_who_is_no_person_of_the_tenants_chat_is_refused(
    tmp_path: Path, team: str, channel: str, bad: str, said: str
) -> None:
    """The terminal kept any text as the owner (a name, an email, a Slack id on a Feishu tenant): the digest could
    never mention them nor tell them of their idle box. It now reads `--owner` as chat's `owner=` does."""
    made = run_cli(*TRACK[:-1], bad, "--channel", channel, "--team", team, env=EN, tmp=tmp_path)
    assert made.returncode == 2 and said in made.stderr, made.stderr
    storage = ("track", "storage", "ckpt", "--size-gb", "50", "--price-gb-month", "0.1", "--owner", bad)
    stored = run_cli(*storage, "--channel", channel, "--team", team, env=EN, tmp=tmp_path)
    assert stored.returncode == 2 and said in stored.stderr
    token = run_cli("enroll-token", "--channel", channel, "--owner", bad, "--team", team, env=EN, tmp=tmp_path)
    assert token.returncode == 2 and said in token.stderr
    store = Store(f"sqlite:///{tmp_path / 'advisor.state.db'}")
    assert Rentals(store).instances(team) == [] and Rentals(store).storage(team) == []
    zh = run_cli(*TRACK[:-1], bad, "--channel", channel, "--team", team, env={"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path)
    assert zh.returncode == 2 and ("不是 Slack 成员 ID" in zh.stderr or "的成员：请给出其 ID" in zh.stderr)
