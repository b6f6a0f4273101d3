"""An answer to a profile's question sent outside its thread: Slack's `/gpu-advise 十来个小时` in the channel
while its profile waits there (Feishu's, typed below the thread: tests/feishu/test_profile.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.chat.conversation import current
from tests.chat.test_both_platforms import driving
from tests.support.pending import settled


def test_slash_commands_that_answer_the_open_profile_go_on_with_it(tmp_path: Path) -> None:
    """A duration alone started a second profile, `每天都跑，不能中断` a third, `A100` at the GPU question gave its
    price: each answers the question open in the channel's profile, which goes on in its thread."""
    with driving("slack", tmp_path) as chat:
        chat.start("advise 做lora")
        h = chat.h  # type: ignore[attr-defined]
        for n, (said, then) in enumerate(
            (
                ("十来个小时", "memory"),
                ("80G用了70G", "model_parallel"),
                ("no", "frequency"),
                ("每天都跑，不能中断", "phase"),  # the open question's answer first, the next one's after it
                ("跳过", "gpu"),
                ("A100", "schedule"),
            )
        ):
            before = len(h.posts(thread_ts=chat.root))  # type: ignore[attr-defined]
            assert h.send.command(said, response_url=h.fake.response_url(f"outside{n}"))[0] == 200
            settled(chat.deps)  # type: ignore[attr-defined]
            assert current(chat.convo()).ask.key == then, said  # type: ignore[union-attr]
            assert len(h.posts(thread_ts=chat.root)) > before, said  # type: ignore[attr-defined]  # asked in its thread
        assert h.fake.of("response_url") == []  # nothing refused
        assert [p["_ts"] for p in h.posts() if not p.get("thread_ts")] == [chat.root]  # no second profile started
        assert chat.convo().answers["can_resume"] == "不能中断"
        assert "Cached prices" in chat.command("A100多少钱")  # a question the table reads: its answer, as before
        said = chat.command("周末去爬山")  # answers nothing: the table's, as before
        assert "did not understand" in said, said
        assert current(chat.convo()).ask.key == "schedule"  # type: ignore[union-attr]


@pytest.mark.parametrize("platform", ["feishu", "dingtalk"])
def test_answers_to_questions_further_on_are_kept_and_the_open_one_asked_again(platform: str, tmp_path: Path) -> None:
    """`显存峰值大概七十多G吧`, `单卡就够`, `一周跑两三次`, `最好别中断` typed while the run length was asked were each
    refused with the run length's formats, to be typed again in their turn: each is kept for its question (not asked
    then), the open one asked again; in Feishu below the thread too (a direct chat's plain message)."""
    with driving(platform, tmp_path) as chat:
        chat.start("advise")
        chat.reply("LoRA")
        assert current(chat.convo()).ask.key == "duration"  # type: ignore[union-attr]
        chat.reply("显存峰值大概七十多G吧")
        if platform == "feishu":  # the note, in the thread
            note = json.dumps(chat.h.fake.of("messages.reply")[-1].card, ensure_ascii=False)  # type: ignore[attr-defined]
            assert "已记下“显存峰值大概七十多G吧”" in note and "单次训练时长大约多久" in note, note
            h = chat.h  # type: ignore[attr-defined]
            assert h.send.message("单卡就够", user="ou_starter").status_code == 200  # below the thread, not in it
            settled(chat.deps)  # type: ignore[attr-defined]
        else:
            chat.reply("单卡就够")
        for said in ("一周跑两三次", "最好别中断", "4090一天多少钱"):  # the last a question: not the GPU's answer
            chat.reply(said)
        answers = chat.convo().answers
        assert "gpu" not in answers, answers
        assert current(chat.convo()).ask.key == "duration"  # type: ignore[union-attr]
        assert {k: answers.get(k) for k in ("memory", "model_parallel", "frequency", "can_resume")} == {
            "memory": "显存峰值大概七十多G吧", "model_parallel": "单卡就够", "frequency": "一周跑两三次",
            "can_resume": "最好别中断",
        }  # fmt: skip
        chat.reply("大概要跑20个小时左右")
        assert current(chat.convo()).ask.key == "phase"  # type: ignore[union-attr]  # the five asked, none again
        chat.reply("周末去爬山")  # answers nothing: still refused, with the open question's formats
        assert current(chat.convo()).ask.key == "phase"  # type: ignore[union-attr]
