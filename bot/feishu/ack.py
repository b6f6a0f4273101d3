"""A card press answered as soon as its toast is known, not when its work ends.

Feishu waits for a press's answer (its toast) up to 3 s, and the presser waits with it. What the toast says is
decided early: a refusal or a form's errors before anything is sent, success once the work starts to send (a card
patched, a message posted). So the work tells its answer here (`tell`), the Open API client says when a write is
about to go (`writing`), and the gateway answers the press at the first of them; the Open API round trips go on
after the acknowledgement, as Slack's lazy listeners do. Per thread: a press's work runs on one of the gateway's.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from bot.feishu.toast import Toast

_working = threading.local()


class PressAnswer:
    """One press's toast: known once told, or once the work writes (success), or when the work ends."""

    def __init__(self) -> None:
        self._known = threading.Event()
        self.toast: Toast | None = None

    def tell(self, toast: Toast | None) -> None:
        """The press's toast (None: Feishu's plain success), if none was told before."""
        if not self._known.is_set():
            self.toast = toast
            self._known.set()

    def wait(self, timeout: float) -> Toast | None:
        """The toast once known, else None after `timeout` seconds (the work goes on)."""
        self._known.wait(timeout)
        return self.toast

    @contextmanager
    def working(self) -> Iterator[None]:
        """The press's work runs in this block, on this thread: what it tells and writes answers the press."""
        _working.answer = self
        try:
            yield
        finally:
            _working.answer = None
            self.tell(None)  # ended (or failed) without telling: the plain answer


def tell(toast: Toast) -> None:
    """The press being worked on this thread is answered with `toast` (nothing when no press is)."""
    answer = getattr(_working, "answer", None)
    if answer is not None:
        answer.tell(toast)


def writing() -> None:
    """The work is about to send: a press not refused by now is answered as done."""
    answer = getattr(_working, "answer", None)
    if answer is not None:
        answer.tell(None)
