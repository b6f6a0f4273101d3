"""The board from Feishu (issue 48): `board` typed to the bot in a group answers a link to that group's board, and
`board all` the tenant's; the digest card carries its group's link; each opens the board it names."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import httpx

from bot.state.rentals import Rentals
from bot.tls import shared_context
from tests.feishu.test_digest import GROUP, MONDAY_0910_SHANGHAI, OWNER, idle_box, remind
from tests.feishu.test_subcommands import say, shown, team
from tests.support.feishu_harness import FeishuHarness, running_feishu

PUBLIC = "https://gpu.example.com"


def opened(h: FeishuHarness, said: str) -> dict:  # type: ignore[type-arg]
    [path] = set(re.findall(re.escape(PUBLIC) + r"(/board/[A-Za-z0-9_.\-]+)", said))  # each language's text
    base = h.url.rsplit("/feishu/", 1)[0]
    answer = httpx.get(base + path.removesuffix(".") + ".json", timeout=10, verify=shared_context())
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_board_in_a_group_answers_its_link_and_board_all_the_tenants(tmp_path: Path) -> None:
    with running_feishu(tmp_path, lang="en", public_url=PUBLIC) as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        idle_box(h, "train-1")
        fields = {"gpu": "A100-80GB", "cards": 1, "unit": "hour", "price": 9.0, "currency": "CNY", "owner": OWNER,
                  "channel": "oc_other", "started_at": h.clock.now - timedelta(hours=2)}  # fmt: skip
        Rentals(h.deps.store).track_instance(team(h), "elsewhere", fields)
        mine = opened(h, shown(say(h, "board")))
        assert mine["channel"] == GROUP and mine["team"] == team(h)
        assert [r["item"] for r in mine["idle_now"]] == ["train-1"]
        everything = opened(h, shown(say(h, "board all")))
        assert everything["channel"] is None
        assert {r["owner"] for r in everything["week"]["by_owner"]} == {OWNER}
        assert "is not a board" in shown(say(h, "board nonsense"))
        said = shown(say(h, "看板"))  # typed in Chinese: the word, and the answer, in Chinese and Feishu's words
        assert "本群的看板" in said and opened(h, said)["channel"] == GROUP
        assert "整个企业的看板" in shown(say(h, "看板 全部"))


def test_the_digest_card_carries_its_groups_board(tmp_path: Path) -> None:
    with running_feishu(tmp_path, lang="en", public_url=PUBLIC) as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        remind(h)
        idle_box(h, "train-1")
        h.clock.now += timedelta(minutes=21)
        [sent] = h.run_due()
        assert sent.status == "sent"
        card = json.dumps(h.fake.of("messages.create")[-1].card, ensure_ascii=False)
        board = opened(h, card)
        assert board["channel"] == GROUP and [r["item"] for r in board["idle_now"]] == ["train-1"]


def test_board_in_the_direct_chat_with_the_bot_is_the_tenants(tmp_path: Path) -> None:
    """A direct chat holds none of the team's items: `board` there links the whole tenant's board."""
    with running_feishu(tmp_path, lang="en", public_url=PUBLIC) as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        idle_box(h, "train-1")
        before = len(h.fake.sent())
        h.send.message("board", chat="oc_dm1", chat_type="p2p", user=OWNER)
        h.fake.wait_for(lambda: len(h.fake.sent()) > before)
        said = shown(h.fake.sent()[before])
        assert "The board of this tenant" in said, said
        board = opened(h, said)
        assert board["channel"] is None and [r["item"] for r in board["idle_now"]] == ["train-1"]
