"""The process's one write lock on the state database, with the acknowledgements first. A write that
must finish within Slack's three seconds (it has a budget) goes before any background write waiting
(heartbeats, the digest, clean-ups), which otherwise could keep taking the lock back and leave a
command answered "busy". Background writers keep their transactions short (bounded batches), so an
acknowledgement waits at most one of them."""

from __future__ import annotations

import threading


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
