from __future__ import annotations

import re
from pathlib import Path

from rules.messages import ADVICE, CHECKS, UI, Lang, show

ENGINE = (Path(__file__).parents[1] / "rules" / "engine.py").read_text("utf-8")


def test_every_message_exists_in_both_languages_with_the_same_placeholders() -> None:
    for table in (CHECKS, ADVICE, UI):
        for key, texts in table.items():
            assert set(texts) == {Lang.EN, Lang.ZH}, key
            fields = {lang: set(re.findall(r"{(\w+)", text)) for lang, text in texts.items()}
            assert fields[Lang.EN] == fields[Lang.ZH], key


def test_every_advice_id_the_engine_emits_has_a_message() -> None:
    emitted = set(re.findall(r'Topic\.\w+, "(\w+)"', ENGINE))
    emitted |= {"two_of_four_dedicated", "two_of_four_shared", "inference_dedicated", "inference_shared"}
    assert emitted, "the engine's advice ids were not found"
    assert emitted <= set(ADVICE)


def test_numbers_are_shown_without_trailing_zeros() -> None:
    assert show(10.0) == "10"
    assert show(87.5) == "87.5"
    assert show(5600.0) == "5,600"
    assert show(0.25) == "0.25"
    assert show(3) == "3"
