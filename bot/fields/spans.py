"""Lengths of time as people type them for an expiry or a grace: 30m, 4h, 7d, 2w, 1.5h, 90 min, 4小时, 7天, and as
they say them: 两小时, 半小时, 一个半小时, 两个星期."""

from __future__ import annotations

import re
from datetime import timedelta

SPAN = re.compile(
    r"(\d+(?:\.\d+)?)\s*(m|min|mins|minutes?|分钟?|h|hr|hrs|hours?|小时|d|days?|天|w|weeks?|周)", re.IGNORECASE
)
UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1), "w": timedelta(weeks=1)}
ZH = {"分": "m", "小": "h", "天": "d", "周": "w"}


class SpanError(ValueError):
    """`code` (error.span.<code> in the catalogue: bad, range) and its params."""

    def __init__(self, code: str, **params: str) -> None:
        super().__init__(f"{code}: {params}")
        self.code, self.params = code, params


def parse_span(text: str, low: timedelta, high: timedelta) -> timedelta:
    """The length `text` says, between `low` and `high`; SpanError otherwise."""
    found = SPAN.fullmatch(text.strip())
    if found is None:
        span = _said_aloud(text)  # within the duration answer's year: never overflows
    else:
        unit = found[2].lower()
        try:
            span = float(found[1]) * UNITS[ZH.get(unit[0], unit[0])]
        except (OverflowError, ValueError):  # 400 nines: beyond any span
            raise SpanError("range", text=text[:40], low=_said(low), high=_said(high)) from None
    if not low <= span <= high:
        raise SpanError("range", text=text[:40], low=_said(low), high=_said(high))
    return span


def _said_aloud(text: str) -> timedelta:
    """A length said as people say it (两小时, 半小时, 一个半小时, 三天, 两个星期), read by the duration answer's
    grammar (rules/parsing.py); SpanError where it says no one length ("几个小时", "8小时以上")."""
    from rules.errors import ParseError
    from rules.parsing import parse_duration

    try:
        said = parse_duration(text)
    except ParseError:
        raise SpanError("bad", text=text[:40]) from None
    if said.hours is None or said.above or said.bucket is not None:
        raise SpanError("bad", text=text[:40])
    return timedelta(seconds=round(said.hours * 3600))  # 十分钟: 0.166667 h read, ten minutes meant


def _said(span: timedelta) -> str:
    seconds = span.total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"
