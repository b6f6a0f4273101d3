"""A card as people type it: its memory in Chinese numerals (`a100八十G`), or typed apart from its name (`A100 40G`,
the 40 GB card, where the name alone is the 80 GB one)."""

from __future__ import annotations

import pytest

from rules.errors import UnknownGPU
from rules.gpus import canonical_gpu, gpu_at, gpu_words, gpus_in


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


@pytest.mark.parametrize(
    ("words", "made"),
    [(["8张H100跑一周"], ["8张H100", "跑一周"]), (["8", "H100s", "for", "a", "week"], ["8xH100", "for", "a", "week"]),
     (["a100八十G多少钱"], ["a100八十G", "多少钱"]), (["A100和H100哪个划算"], ["A100", "和", "H100", "哪个划算"]),
     (["H100*8跑3天"], ["H100*8", "跑3天"]), (["4090", "A100"], ["4090", "A100"]), (["L40S"], ["L40S"]),
     (["每天4小时14天"], ["每天4小时14天"]), (["训练机"], ["训练机"])],
)  # fmt: skip
def test_a_gpu_typed_into_other_words_is_a_word_of_its_own(words: list[str], made: list[str]) -> None:
    assert gpu_words(words) == made


def test_the_gpus_words_name_in_order_and_whole() -> None:
    assert gpus_in(["A100和H100哪个划算"]) == ["A100-80GB", "H100-80GB"]
    assert gpus_in(["A100", "40G", "4090", "A100", "40G"], whole=True) == ["A100-40GB", "RTX4090-24GB"]
    assert gpus_in(["海光", "A100"]) == ["A100-80GB"]  # a maker alone is left out
    with pytest.raises(UnknownGPU) as named:
        gpus_in(["A100", "哈哈"], whole=True)
    assert named.value.name == "哈哈"
    with pytest.raises(UnknownGPU):
        gpus_in(["海光"], whole=True)
