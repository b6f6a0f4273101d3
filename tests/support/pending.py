"""Waiting for the work of acknowledged requests to end (the inbox has nothing pending)."""

from __future__ import annotations

import time
from datetime import timedelta

from bot.deps import Deps


def settled(deps: Deps, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while deps.inbox.pending(timedelta(days=1)):
        if time.monotonic() > deadline:
            raise AssertionError(f"work still pending after {timeout} s: {deps.inbox.pending(timedelta(days=1))}")
        time.sleep(0.01)
