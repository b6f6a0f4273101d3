"""An optional question skipped in words: not decided, not known, or left to the advice ("whatever's cheapest" on
the GPU question was refused as an unknown GPU, then asked again)."""

from __future__ import annotations

import pytest

from rules.questions import skips


@pytest.mark.parametrize(
    "said",
    ["skip", "跳过", "还没定", "随便", "no preference", "whatever's cheapest", "you pick", "up to you", "无所谓",
     "你定", "最便宜的", "not sure, honestly"],
)  # fmt: skip
def test_skipped_in_words(said: str) -> None:
    assert skips(said)


@pytest.mark.parametrize("said", ["A100", "cheap but fast", "10h", "探索"])
def test_an_answer_is_no_skip(said: str) -> None:
    assert not skips(said)
