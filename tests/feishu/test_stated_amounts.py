"""Answers stated with a bound or an approximation, all at once in Feishu (issue 51): read as they mean, and one that
straddles the rule's line is refused naming it, with nothing started."""

from __future__ import annotations

from pathlib import Path

from tests.feishu.test_profile import _texts
from tests.support.feishu_harness import running_feishu
from tests.support.pending import settled


def test_stated_answers_at_once_give_the_recommendation_they_mean(tmp_path: Path) -> None:
    with running_feishu(tmp_path) as h:
        h.send.message("8个多小时 mem=七十多G mp=不需要模型并行 freq=每天 resume=没法恢复")
        settled(h.deps)
        [recommended] = h.fake.of("messages.reply")
        title = recommended.card["header"]["title"]["i18n_content"]
        assert "独占" in title["zh_cn"] and title["en_us"].startswith("Recommendation: Dedicated"), title
        shown = _texts(recommended.card)
        assert "70–80" in shown  # the interval, not a figure it was turned into
        h.send.message("3h mem=六十多G mp=no freq=daily resume=yes")
        settled(h.deps)
        said = _texts(h.fake.sent()[-1].card)
        assert "64 GB" in said and "A100-80GB" in said, said
