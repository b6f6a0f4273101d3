"""One table of answer fields: the CLI flags, the inline keys and the modal fields all come from it."""

from __future__ import annotations

import pytest
import typer.main

from bot.chat import inline
from bot.chat.inline import KEYS
from bot.cli import app
from bot.fields.answers import BY_INLINE_KEY, FIELDS, FORM_FIELDS
from rules.questions import ASKS, Stage


def test_every_answer_has_a_field() -> None:
    assert [f.key for f in FIELDS] == [a.key for a in ASKS]


def test_advise_takes_exactly_the_tables_flags() -> None:
    command = typer.main.get_command(app).commands["advise"]  # type: ignore[attr-defined]
    options = {opt for param in command.params for opt in param.opts if opt.startswith("--")}
    assert {f.flag for f in FIELDS} <= options
    # --lang --policy --json --quote --currency --db --interactive --no-interactive
    assert len(options - {f.flag for f in FIELDS}) == 8
    assert [p.name for p in command.params if not p.opts[0].startswith("--")] == ["words"]  # answers as typed


def test_inline_keys_are_unique_and_name_their_field() -> None:
    names = [name for f in FIELDS for name in f.keys + f.keys_zh]
    assert len(names) == len(set(names))
    assert KEYS["mem"] == "memory" and KEYS["显存"] == "memory" and BY_INLINE_KEY["p99"].key == "p99_ms"


def test_the_modal_asks_what_a_conversation_asks() -> None:
    assert [f.key for f in FORM_FIELDS] == [a.key for a in ASKS if a.stage is not Stage.EXTRA]


def test_a_bare_word_after_an_answer_is_more_of_it_and_a_run_length_after_them_is_the_run_length() -> None:
    from bot.chat import inline

    def read(text: str) -> dict[str, str]:
        return inline.answers_of(inline.split(text))[0]

    assert read("10h mem=7B LoRA freq=每周 两次") == {"duration": "10h", "memory": "7B LoRA", "frequency": "每周 两次"}
    assert read("mem=70/80 10h") == {"memory": "70/80", "duration": "10h"}  # a run length, as before
    assert read("dur=about 10 hours mp=no") == {"duration": "about 10 hours", "model_parallel": "no"}
    with pytest.raises(inline.InlineError):  # the bare run length is one word: what follows it is no answer
        read("10h extra words")


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("what's idle", ["what's", "idle"]),  # refused as an unclosed quote
        ("what's idle, it's late", ["what's", "idle,", "it's", "late"]),  # read as one quoted span
        ('dur="about 10 hours"', ["dur=about 10 hours"]),
        ('note="it\'s fine"', ["note=it's fine"]),
        ("track box 'A100 80G'", ["track", "box", "A100 80G"]),
    ],
)
def test_an_apostrophe_inside_a_word_is_a_letter_and_quotes_still_group(typed: str, words: list[str]) -> None:
    assert inline.split(typed) == words


def test_an_unclosed_quote_is_still_refused() -> None:
    with pytest.raises(inline.InlineError):
        inline.split("track box 'A100 80G")


def test_the_longest_reading_tries_runs_of_a_few_words_not_every_run_of_a_long_message() -> None:
    """Every run of every length was read, longest first: a message of 700 words (a log pasted with a question, or
    4,000 characters of noise) was about 250,000 reads, minutes of the work thread before the answer. Runs are at most
    MOST_WORDS long: a value said in words is still found in a long message, and the reads grow with its length."""
    from bot.fields.word_runs import MOST_WORDS, longest_reading
    from rules.parsing import parse_rental_schedule

    reads: list[str] = []

    def read(said: str) -> object:
        reads.append(said)
        return parse_rental_schedule(said)

    noise = ["A100", "x", "的", "7"] * 40
    words = [*noise, "每天", "4", "小时", "14", "天", *noise]
    found = longest_reading(words, read)
    assert found is not None and words[found[0] : found[1]] == ["每天", "4", "小时", "14", "天"]
    assert len(reads) <= MOST_WORDS * len(words), len(reads)
    reads.clear()
    assert longest_reading(noise, read) is None and len(reads) <= MOST_WORDS * len(noise)
