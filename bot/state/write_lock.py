"""The process's one write lock on the state database, with the acknowledgements first. A write that
must finish within Slack's three seconds (it has a budget) goes before any background write waiting
(heartbeats, the digest, clean-ups), which otherwise could keep taking the lock back and leave a
command answered "busy". Background writers keep their transactions short (bounded batches), so an
acknowledgement waits at most one of them."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class WriteLock:
    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._held = False
        self._urgent = 0  # acknowledgements waiting

    def acquire(self, *, urgent: bool, timeout: float | None = None) -> bool:
        """True once held; False after `timeout` seconds. Urgent callers go before the others waiting."""
        with self._cond:
            if urgent:
                self._urgent += 1
            try:
                free = self._cond.wait_for(lambda: not self._held and (urgent or not self._urgent), timeout)
                if free:
                    self._held = True
                return free
            finally:
                if urgent:
                    self._urgent -= 1
                    if not self._urgent:
                        self._cond.notify_all()  # background writers held back may go now

    def release(self) -> None:
        with self._cond:
            self._held = False
            self._cond.notify_all()


class AckGate:
    """Acknowledgements first for the interpreter, too. While a Slack request is being acknowledged, the
    work that follows earlier requests waits at its next step into the database (up to `max_wait_s`), so
    the acknowledgement shares the interpreter with fewer threads: the work runs on threads of the same
    process, and each thread running Python code delays the others."""

    def __init__(self, max_wait_s: float = 0.02) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._in_flight = 0
        self._local = threading.local()
        self.max_wait_s = max_wait_s

    @contextmanager
    def acknowledging(self) -> Iterator[None]:
        with self._cond:
            self._in_flight += 1
        self._local.acking = True
        try:
            yield
        finally:
            self._local.acking = False
            with self._cond:
                self._in_flight -= 1
                if not self._in_flight:
                    self._cond.notify_all()

    def holding(self, held: bool) -> None:
        """This thread holds (or let go of) the write lock: it never waits then (the acknowledgement may be
        waiting for that very lock)."""
        self._local.depth = getattr(self._local, "depth", 0) + (1 if held else -1)

    def yield_to_acks(self) -> None:
        if getattr(self._local, "acking", False) or getattr(self._local, "depth", 0) > 0 or not self._in_flight:
            return
        with self._cond:
            self._cond.wait_for(lambda: not self._in_flight, self.max_wait_s)


ACKS = AckGate()  # the process's: acknowledgements are the process's, whichever store or client does the work
