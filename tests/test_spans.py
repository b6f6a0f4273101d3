"""A grace or an expiry as people type it (bot/fields/spans.py): the short forms, and as said aloud (两小时,
半小时, 一个半小时, 两个星期, each refused before), read by the duration answer's grammar; what says no one
length is refused as not a length, never as out of range."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.fields.spans import SpanError, parse_span

LOW, HIGH = timedelta(minutes=5), timedelta(days=30)


@pytest.mark.parametrize(
    ("said", "span"),
    [("4h", timedelta(hours=4)), ("90 min", timedelta(minutes=90)), ("7天", timedelta(days=7)),
     ("两小时", timedelta(hours=2)), ("半小时", timedelta(minutes=30)), ("一个半小时", timedelta(minutes=90)),
     ("十分钟", timedelta(minutes=10)), ("三天", timedelta(days=3)), ("两个星期", timedelta(weeks=2)),
     ("半天", timedelta(hours=12))],
)  # fmt: skip
def test_a_span_as_typed_or_said(said: str, span: timedelta) -> None:
    assert parse_span(said, LOW, HIGH) == span


@pytest.mark.parametrize(
    ("said", "code"),
    [("abc", "bad"), ("8小时以上", "bad"), ("一百年", "bad"), ("两分钟", "range"), ("400" + "9" * 400 + "h", "range")],
)
def test_what_is_no_one_length_or_out_of_range_says_which(said: str, code: str) -> None:
    with pytest.raises(SpanError) as caught:
        parse_span(said, LOW, HIGH)
    assert caught.value.code == code
