"""When a tracked box began, corrected: `billing 训练机 started=昨天9:00` (also `开始=`, `起租=`), the terminal's
`gpu-advise billing 训练机 --started …`. A box tracked after it was rented billed only from when it was tracked, and
a power report before that was refused ("before it started") telling people to track it again with `started=`,
which a tracked name refuses; its start now moves, and every figure follows it."""

from __future__ import annotations

from contextlib import suppress
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.app.invocation import Invocation
from bot.fields.metering import STARTED_KEYS
from bot.fields.rentals import FieldError


def started_words(inv: Invocation, words: list[str]) -> tuple[list[str], tuple[datetime, ZoneInfo | None] | None]:
    """`billing NAME …`'s words without `started=…` (with the words after it that make its time: `started=昨天
    9:00`), and that time on the person's clock; None where it is not given. FieldError where it is no past time."""
    at = next((i for i, w in enumerate(words) if "=" in w and w.partition("=")[0].lower() in STARTED_KEYS), None)
    if at is None:
        return words, None
    first, after, now = words[at].partition("=")[2], words[at + 1 :], inv.deps.now()
    keyed = next((i for i, w in enumerate(after) if "=" in w), len(after))  # the next key=value ends its time
    for taken in range(keyed, 0, -1):  # the longest run after it that still reads as one time: `昨天 9:00`
        with suppress(FieldError):
            moment = inv.past(" ".join([first, *after[:taken]]).strip(), now, "started")
            return [*words[:at], *after[taken:]], moment
    return [*words[:at], *after], inv.past(first, now, "started")  # alone, or FieldError saying what it takes


def began(inv: Invocation, name: str, said: str) -> None:
    """`训练机 昨天9点开始跑的`: when it began, said after its name. Before its tracked start, the start moves there
    (`billing NAME started=…`: it was tracked later); from then on, it was on from then (`power NAME on at=…`)."""
    from bot.app import metering
    from bot.state.rentals import Rentals

    found = Rentals(inv.deps.store).instance(inv.team, name)
    try:
        at, _zone = inv.past(said, inv.deps.now(), "at")
    except FieldError:
        at = None  # not a time: `power` says what it takes
    if found is not None and at is not None and at < found.started_at:
        metering.billing(inv, [name, f"started={said}"])
        return
    metering.power(inv, [name, "on", f"at={said}"])
