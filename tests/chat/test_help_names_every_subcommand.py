"""Each chat's `help` names every sub-command the one table runs (bot/app/table.py): DingTalk's and WeCom's left out
`power`, `billing` and `delete-storage`, so their people could not learn that a bill follows what they say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.app.table import SUBCOMMANDS
from bot.chat.ids import SubCommand
from bot.dingtalk.words import help_text as dingtalk_help
from bot.slack.invocation import usage_text
from bot.text import Lang, t
from bot.text.chinese_names import CHINESE_NAMES, chinese_names
from bot.wecom.words import help_text as wecom_help

HELPS = {
    "slack": lambda lang: usage_text(lang),
    "feishu": lambda lang: t("feishu.help", lang, tenant="feishu:x", chinese=chinese_names()),
    "dingtalk": lambda lang: dingtalk_help(lang, "dingtalk:x", "cidx"),
    "wecom": lambda lang: wecom_help(lang, "wecom:x", "x"),
}


@pytest.mark.parametrize("lang", list(Lang))
@pytest.mark.parametrize("chat", sorted(HELPS))
def test_every_subcommand_is_in_the_chats_help(chat: str, lang: Lang) -> None:
    said = HELPS[chat](lang)
    assert [word.value for word in SubCommand if f"`{word.value}" not in said] == []
    if lang is Lang.ZH:  # the Chinese names too, each running its sub-command (`报价 A100 4x14`, `列表`)
        assert [name for name in CHINESE_NAMES if f"`{name}`" not in said] == []
        assert set(CHINESE_NAMES.values()) <= {word.value for word in SubCommand}
        assert all(SUBCOMMANDS[name] is SUBCOMMANDS[word] for name, word in CHINESE_NAMES.items())


@pytest.mark.parametrize("lang", list(Lang))
def test_every_question_the_help_suggests_in_words_is_answered(lang: Lang, tmp_path: Path) -> None:
    """The help's "ask in words" examples, typed as each chat's help says them, are each answered: none is an
    unknown sub-command (a suggested command that does nothing is a defect)."""
    from tests.chat.test_both_platforms import driving

    examples = set()
    for said in HELPS.values():
        line = next(line for line in said(lang).splitlines() if "`谁的机器闲着`" in line or "`what's idle`" in line)
        examples |= set(re.findall(r"`([^`]+)`", line)) - {"/gpu-advise"}
    assert len(examples) == 8, examples
    with driving("feishu", tmp_path) as chat:
        chat.command("track box1 gpu=A100 price=14/h")
        chat.command("登记 训练机 A800 8卡 每小时60元")
        for example in sorted(examples):
            answer = chat.command(example)
            assert "unknown sub-command" not in answer and "未知的子命令" not in answer, (example, answer)
            assert "无法识别" not in answer and "not read" not in answer, (example, answer)
            assert "could not split" not in answer and "无法拆分" not in answer, (example, answer)  # what's: a quote


def test_the_slack_help_is_shown_whole_in_both_languages(tmp_path: Path) -> None:
    """In English the help is about 3,200 characters and a Slack section takes 3,000: its last lines (power,
    billing, balance, the Chinese names and the questions in words) were cut to "…". Long text is now parted
    between its lines into sections."""
    from tests.chat.test_both_platforms import driving

    with driving("slack", tmp_path) as chat:
        for typed, last in (("help", "`how much did we spend this month`"), ("help zh", "`本月花了多少钱`")):
            chat.command(typed)
            blocks = chat.h.fake.of("response_url")[-1]["blocks"]  # type: ignore[attr-defined]
            texts = [b["text"]["text"] for b in blocks if b.get("type") == "section"]
            assert any(text.endswith(last) for text in texts), texts[-1][-200:]
            assert all(len(text) <= 3000 and not text.endswith("…") for text in texts)
