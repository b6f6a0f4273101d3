"""The longest run of words a reader reads: what people type around a value (`quote A100 每天4小时 14天 共享卡`,
`登记 训练机 A800 每小时 60元`) is found as the longest run that reads, and what is left is refused naming itself."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from rules.errors import ParseError

# the most words a value is said in (`每天 4 个 小时 跑 两 周`, `4h a day for 14 days`): runs are tried longest first,
# and every run of every length was tried, so a long message (a log pasted with a question: 400 words) took 34 s of
# the work thread, cubic in its length; bounded, it is linear
MOST_WORDS = 12


def longest_reading(words: list[str], read: Callable[[str], Any]) -> tuple[int, int] | None:
    """The longest run of `words` (of at most MOST_WORDS) that `read` reads (raising ParseError where it cannot), as
    (start, end): what is left is refused naming itself (`quote A100 4x14 共享卡` named 4x14, which was read)."""
    for size in range(min(len(words), MOST_WORDS), 0, -1):
        for start in range(len(words) - size + 1):
            with contextlib.suppress(ParseError):
                read(" ".join(words[start : start + size]))
                return start, start + size
    return None
