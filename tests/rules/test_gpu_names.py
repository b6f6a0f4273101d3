"""A card as people type it: its memory in Chinese numerals (`a100八十G`), or typed apart from its name (`A100 40G`,
the 40 GB card, where the name alone is the 80 GB one)."""

from __future__ import annotations

import pytest

from rules.errors import UnknownGPU
from rules.gpus import canonical_gpu, gpu_at


@pytest.mark.parametrize(
    ("typed", "card"),
    [("a100八十G", "A100-80GB"), ("A100 四十G", "A100-40GB"), ("A800八十GB", "A800-80GB"),
     ("RTX4090 二十四G", "RTX4090-24GB"), ("4090 24G", "RTX4090-24GB"), ("910B 64G", "Ascend-910B-64GB"),
     ("H100 九十四G", "H100-94GB")],
)  # fmt: skip
def test_a_cards_memory_as_typed(typed: str, card: str) -> None:
    assert canonical_gpu(typed) == card


def test_a_memory_no_such_card_has_is_no_card() -> None:
    with pytest.raises(UnknownGPU):
        canonical_gpu("H100 四十G")


@pytest.mark.parametrize(
    ("words", "at"),
    [(["A100", "40G", "4x14"], (0, 2)), (["租", "A100", "四十g"], (1, 3)), (["A100", "4x14"], (0, 1)),
     (["H100", "40G"], (0, 1)), (["8卡A100", "80G"], (0, 2)), (["海光", "4x14"], (0, 1)), (["每天", "4小时"], None)],
)  # fmt: skip
def test_where_a_gpu_is_said_among_words(words: list[str], at: tuple[int, int] | None) -> None:
    assert gpu_at(words) == at
