"""`board` typed to the bot in a DingTalk group and in a WeCom group chat (issue 48: "and DingTalk/WeCom when they
exist") answers a link to that group's board, signed for its organisation and that group; `board all` the
organisation's. Slack's and Feishu's are in tests/board and tests/feishu."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from bot.web.board_links import Link, read_token
from tests.support.dingtalk_harness import running_dingtalk
from tests.support.fake_dingtalk import CORP
from tests.support.wecom_harness import running_wecom

PUBLIC = "https://gpu.example.com"
NOW = datetime(2026, 12, 4, 2, tzinfo=UTC)
LINK = re.compile(re.escape(PUBLIC) + r"/board/([A-Za-z0-9_.\-]+?)\.?(?:\s|\)|$|\")")


def _link(store: object, said: str) -> Link:
    tokens = set(LINK.findall(said))
    assert len(tokens) == 1, said
    return read_token(store, tokens.pop(), NOW)  # type: ignore[arg-type]


def test_board_in_a_dingtalk_group(tmp_path: Path) -> None:
    group = "cidGroupA1b2C3+d4/e5=="
    with running_dingtalk(tmp_path, lang="en", public_url=PUBLIC) as h:
        h.clock.now = NOW
        space = f"dtv1.card//IM_GROUP.{group}"
        for n, (typed, channel) in enumerate((("board", group), ("board all", None)), 1):
            h.fake.message(typed, "manager4521", group=group)
            said = h.fake.wait_for(lambda n=n: len(h.fake.in_space(space)) >= n and h.fake.in_space(space))[n - 1]
            link = _link(h.deps.store, said.params["markdown"])
            assert (link.team, link.channel) == (f"dingtalk:{CORP}", channel)


def test_board_in_a_wecom_group_chat(tmp_path: Path) -> None:
    group = "wrkSFfCgAAtMQKg4xqDatM5C9IDHFpTw"
    with running_wecom(tmp_path, lang="en", public_url=PUBLIC) as h:
        h.clock.now = NOW
        for n, (typed, channel) in enumerate((("board", group), ("board all", None)), 1):
            h.fake.message(typed, "ana.li", group=group)
            said = h.fake.wait_for(lambda n=n: len(h.fake.to(group)) >= n and h.fake.to(group))[n - 1]
            link = _link(h.deps.store, said.text)
            assert link.channel == channel and link.team.startswith("wecom:")
