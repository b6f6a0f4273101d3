"""`idle` (`闲置`, `谁的机器闲着`): the channel's digest on demand, in every chat, with buttons that work; it warns
nobody and promises no stop time no warning stands behind, and the day's digest is still sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.state.actions import Actions
from tests.actions.test_stop import GRACE, digest, enrolled, quiet
from tests.chat.test_both_platforms import GROUP, PLATFORMS, STARTER, driving
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI
from tests.feishu.test_digest import GROUP as FEISHU_GROUP
from tests.support.idle_item import idle_item
from tests.support.slack_harness import running_app

CHANNELS = {"slack": "C1", "feishu": FEISHU_GROUP, "dingtalk": GROUP, "wecom": GROUP}


@PLATFORMS
def test_idle_shows_the_channels_idle_item_and_its_released_button_releases_it(platform: str, tmp_path: Path) -> None:
    with driving(platform, tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI
        nothing = chat.in_group("闲置")  # nothing tracked in this group yet: said where to ask
        assert ("没有登记的资源" in nothing or "Nothing is tracked" in nothing) and "list" in nothing, nothing
        team, owner = chat.team, chat.ids[STARTER]  # type: ignore[attr-defined]
        idle_item(chat.deps.store, chat.h.clock.now, team, CHANNELS[platform], owner)
        said = chat.in_group("谁的机器闲着")  # asked as people ask it
        assert "train-1" in said and "rental_released" in said, said
        assert Actions(chat.deps.store).open_for([1]) == {}  # nobody warned
        chat.press_released(STARTER)
        assert chat.released()
        left = chat.in_group("闲置")  # released: nothing left here
        assert "没有登记的资源" in left or "Nothing is tracked" in left


@pytest.mark.parametrize("words", ["的机器有哪些", "boxes"])
def test_idle_takes_its_question_words_and_refuses_others(words: str, tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI
        chat.in_group("闲置")
        idle_item(chat.deps.store, chat.h.clock.now, chat.team, GROUP, "someone")  # type: ignore[attr-defined]
        said = chat.in_group(f"闲置{words}" if words[0] == "的" else f"idle {words}")
        assert "train-1" in said and "rental_released" in said, said
        refused = chat.in_group("闲置 train-1")
        assert "不带参数" in refused and "train-1" in refused and "remind at 09:30" in refused


def test_nothing_idle_says_the_rule_and_where_everything_is(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, _ = enrolled(h)
        quiet(h, inst, util=60)  # busy
        code, _ = h.send.command("idle", response_url=h.fake.response_url("n"))
        assert code == 200
        said = h.fake.wait_for(lambda: [r for r in h.fake.of("response_url") if r.get("_path") == "/response/n"])
        text = json.dumps(said[0], ensure_ascii=False)
        assert "Nothing to look at in <#C1> now" in text and "under 5% over the last 60 min" in text


def test_in_a_stop_channel_idle_warns_nobody_and_the_days_digest_still_does(tmp_path: Path) -> None:
    """`idle` before the digest: the box is listed without a stop time (no warning stands behind one, and it gives
    none); the digest then warns as it would have; `idle` after it says the warning's stop time."""
    with running_app(tmp_path) as h:
        inst, _ = enrolled(h)
        Actions(h.deps.store).set_policy("T1", "C1", "stop", GRACE, by="UADMIN", now=h.clock.now)
        quiet(h, inst)
        assert h.send.command("idle", response_url=h.fake.response_url("a"))[0] == 200
        first = h.wait_posts(1, channel="C1")[-1]
        assert "box-1" in h.texts(first) and "will be stopped" not in h.texts(first)
        assert Actions(h.deps.store).open_for([inst.id]) == {}
        posted = digest(h)  # the day's digest: not taken by `idle`
        assert "will be stopped at" in h.texts(posted) and Actions(h.deps.store).open_for([inst.id])
        h.clock.advance(minutes=5)
        assert h.send.command("idle", response_url=h.fake.response_url("b"))[0] == 200
        again = h.wait_posts(3, channel="C1")[-1]
        assert "will be stopped at" in h.texts(again)


def test_a_channel_the_bot_is_not_in_is_said_with_what_to_do(tmp_path: Path) -> None:
    """Slack refuses a post where the bot is not a member: "Slack refused a request (`not_in_channel`)" became the
    invitation to make, said to the person alone (idle and release post in the channel)."""
    with running_app(tmp_path) as h:
        idle_item(h.deps.store, h.clock.now, "T1", "C1", "U1")
        h.fake.refuse_channels["C1"] = "not_in_channel"
        assert h.send.command("idle", response_url=h.fake.response_url("n"))[0] == 200
        [said] = h.fake.wait_for(lambda: [r for r in h.fake.of("response_url") if r.get("_path") == "/response/n"])
        text = json.dumps(said, ensure_ascii=False)
        assert "invite me there (`/invite @GPU Advisor`)" in text and "not_in_channel" in text, text
        assert h.fake.of("chat.postEphemeral") == []  # no error id: nothing went wrong


@PLATFORMS
def test_idle_mine_lists_the_askers_own_idle_items_of_every_chat(platform: str, tmp_path: Path) -> None:
    """`idle mine` (`闲置 我的`) gives the asker's idle items wherever each was tracked, and not someone else's;
    in a direct chat `idle` is that (it said "nothing is tracked in this group" to a person with idle boxes)."""
    with driving(platform, tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI
        chat.in_group("闲置")
        team, owner = chat.team, chat.ids[STARTER]  # type: ignore[attr-defined]
        idle_item(chat.deps.store, chat.h.clock.now, team, CHANNELS[platform], owner)
        idle_item(chat.deps.store, chat.h.clock.now, team, "elsewhere", owner, name="train-2")
        idle_item(chat.deps.store, chat.h.clock.now, team, CHANNELS[platform], "someone", name="theirs")
        said = chat.in_group("闲置 我的")
        assert "train-1" in said and "train-2" in said and "theirs" not in said, said
        assert ("2 项" in said or "(2)" in said) and "release" in said and "rental_released" not in said
        if platform == "feishu":  # typed in the person's direct chat with the bot
            direct = chat.command("闲置")
            assert "train-1" in direct and "train-2" in direct and "theirs" not in direct, direct


def test_idle_in_a_direct_chat_with_nothing_idle_or_nothing_owned_says_which(tmp_path: Path) -> None:
    with driving("feishu", tmp_path) as chat:
        assert "还没有登记在你名下的资源" in chat.command("idle")
        chat.command("登记 训练机 A800 8卡 每小时60元")  # just tracked: not idle yet
        assert "你负责的 1 项资源目前都没有闲置" in chat.command("idle")


def test_idle_all_lists_the_teams_idle_items_of_every_chat(tmp_path: Path) -> None:
    """`idle all` (`闲置 全部`): everyone's idle items wherever each was tracked, without buttons."""
    with driving("feishu", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI
        assert "团队还没有登记任何资源" in chat.in_group("闲置 全部")
        team, owner = chat.team, chat.ids[STARTER]  # type: ignore[attr-defined]
        idle_item(chat.deps.store, chat.h.clock.now, team, FEISHU_GROUP, owner)
        idle_item(chat.deps.store, chat.h.clock.now, team, "elsewhere", "someone", name="theirs")
        said = chat.in_group("闲置 全部")
        assert "全团队现在需要处理的（2 项" in said and "train-1" in said and "theirs" in said, said
        assert "rental_released" not in said
