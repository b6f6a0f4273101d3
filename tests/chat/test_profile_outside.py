"""An answer to a profile's question sent outside its thread: Slack's `/gpu-advise 十来个小时` in the channel
while its profile waits there (Feishu's, typed below the thread: tests/feishu/test_profile.py)."""

from __future__ import annotations

from pathlib import Path

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
