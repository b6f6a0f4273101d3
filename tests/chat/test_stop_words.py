"""A stop asked for in words after a box's name, called off, and `停机` as the sub-command's Chinese name: the bot
could not be asked to stop a box, so `训练机 明天早上9点关` was a word not read and `明天早上9点提醒我关训练机` set
the digest's time (refused: "明天关训练机" is not a day)."""

from __future__ import annotations

import re
from pathlib import Path

from bot.state.actions import Actions
from bot.state.rentals import Rentals
from tests.chat.test_both_platforms import driving
from tests.chat.test_item_words import TEAM
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI


def _waiting(chat: object) -> list[str]:
    """When each stop asked for and waiting is due, on Shanghai's clock."""
    deps = chat.deps  # type: ignore[attr-defined]
    named = {i.id: i.name for i in Rentals(deps.store).instances(TEAM, active_only=True)}
    return [f"{named[i]} {w.deadline:%m-%d %H:%M}" for i, w in Actions(deps.store).asked_for(list(named)).items()]


def test_a_stop_said_after_the_name_is_kept_replaced_and_called_off(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元")
        said = chat.command("训练机 明天早上9点关")
        assert "机器人无法替你停掉 **训练机**" in said and "2026-12-01 09:00 Asia/Shanghai" in said, said
        assert "`stop 训练机 cancel`" in said and "`训练机 不用关了`" in said
        assert _waiting(chat) == ["训练机 12-01 01:00"]  # kept in UTC
        assert "取代了原定" in chat.command("训练机 跑到晚上10点就关")
        assert _waiting(chat) == ["训练机 11-30 14:00"]
        assert "已安排在 2026-11-30 22:00 Asia/Shanghai 停机" in chat.command("训练机")  # its power says it
        assert "· 定时 2026-11-30 22:00 Asia/Shanghai 停机 · 本月" in chat.command("list")  # and its line of the list
        assert "已取消 **训练机** 原定" in chat.command("训练机 不用关了")
        assert _waiting(chat) == [] and "没有安排" in chat.command("训练机 先别关")
        chat.command("停机 训练机 2小时后")  # the sub-command's Chinese name
        assert _waiting(chat) == ["训练机 11-30 03:10"]
        assert "已安排的停机" in chat.command("停机") and "训练机" in chat.command("停机")
        assert "已取消" in chat.command("stop 训练机 cancel")
        chat.command("明天早上9点提醒我关训练机")  # the time first: a reminder, not the digest's time
        assert _waiting(chat) == ["训练机 12-01 01:00"]
        assert "机器人无法替你停掉 **训练机**" in chat.command("训练机 跑完就关")  # once idle: none it can stop
        assert "机器人无法替你停掉" in chat.command("训练机 今晚跑完就关")
        assert _waiting(chat) == ["训练机 12-01 01:00"]  # refused: what waited stays
        for asked in ("训练机 什么时候停", "训练机 还有多久停"):  # 还有 joined no second name: when, not "no 多久停"
            said = chat.command(asked)
            assert "**训练机**：2026-12-01 09:00 Asia/Shanghai" in said and "没有叫" not in said, (asked, said)
        assert "已取消" in chat.command("把训练机的停机取消") and _waiting(chat) == []
        assert "**训练机** 没有安排停机" in chat.command("训练机 什么时候停")


def test_a_past_report_of_a_box_stays_a_power_report(tmp_path: Path) -> None:
    with driving("feishu", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元 起租=昨天9点")
        for said in ("训练机 9点关机", "训练机 昨晚11点关的"):  # what happened, not a stop asked
            assert "关机" in chat.command(said) and _waiting(chat) == [], said
        assert "不是将来的时间" in chat.command("stop 训练机 at=昨天9点")
        assert _waiting(chat) == []


def _suggested(said: str) -> list[str]:
    """The commands an answer suggests, between backticks."""
    return [c for c in re.findall(r"`([^`]+)`", said) if "…" not in c and "NAME" not in c]


def test_each_command_a_stop_answer_suggests_does_what_it_says(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元")
        answers = [
            chat.command("关掉训练机"),  # asked back: `停机 训练机`, `停机 训练机 明天9点`, `训练机 关机了`, …
            chat.command("stop 训练机"),  # cannot now: `训练机 关机了`, `stop 训练机 at=18:00`
            chat.command("stop 训练机 at=明天9点 remind"),  # `stop 训练机 at=12-01 09:00`, `stop 训练机 cancel`, …
        ]
        suggested = sorted({c for said in answers for c in _suggested(said)} - {"act stop [grace=4h]", "释放 训练机"})
        expected = {"停机 训练机", "停机 训练机 明天9点", "训练机 关机了", "stop 训练机 at=18:00"}
        assert expected | {"stop 训练机 at=12-01 09:00", "stop 训练机 cancel", "训练机 不用关了"} <= set(suggested)
        for command in suggested:
            said = chat.command(command)
            assert not any(w in said for w in ("没读懂", "无法识别", "未知的子命令", "请用 `stop")), (command, said)
