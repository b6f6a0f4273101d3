"""Waiting for the work of acknowledged requests to end (the inbox has nothing pending)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import TypeVar

from bot.deps import Deps

T = TypeVar("T")


def settled(deps: Deps, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while deps.inbox.pending(timedelta(days=1)):
        if time.monotonic() > deadline:
            raise AssertionError(f"work still pending after {timeout} s: {deps.inbox.pending(timedelta(days=1))}")
        time.sleep(0.01)


def until(found: Callable[[], T], timeout: float = 20.0) -> T:
    """What `found` returns once it is something, asked every 10 ms (a sleep, not a timed wait on a condition that
    nothing may notify: such a wait never times out under libfaketime)."""
    deadline = time.monotonic() + timeout
    while not (answer := found()):
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen in {timeout} s")
        time.sleep(0.01)
    return answer
