"""Group commit: writes that arrive while another is being committed are committed together, in one
transaction, by one of the threads that wait (the leader); each thread gets its own item's result.

The acknowledgements of a burst of Slack requests each need one row on disk before Slack hears back.
One transaction each means each waits for all the commits before its own; a batch takes about as long
as one, so the last of eight concurrent acknowledgements waits for one or two commits instead of
eight. A single request is committed at once, alone, as before."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class Late(RuntimeError):
    """The item was not taken into a batch within its budget (nothing of it was written)."""


@dataclass
class _Entry(Generic[Item, Result]):
    item: Item
    done: bool = False
    result: Result | None = None
    error: BaseException | None = None
    taken: bool = field(default=False)  # in a batch being written: its result will come


class GroupCommit(Generic[Item, Result]):
    def __init__(self, write: Callable[[Sequence[Item], float | None], list[Result]]) -> None:
        """`write(items, budget_s)` writes a batch in one transaction and returns each item's result, in order;
        an exception it raises is every item's."""
        self._write = write
        self._cond = threading.Condition(threading.Lock())
        self._waiting: list[_Entry[Item, Result]] = []
        self._leading = False

    def submit(self, item: Item, budget_s: float | None = None) -> Result:
        """Write `item` (alone or with others waiting) and return its result. Late when it was not taken
        into a batch within `budget_s`; the write's own exception when its batch failed."""
        entry: _Entry[Item, Result] = _Entry(item)
        deadline = None if budget_s is None else time.monotonic() + budget_s
        with self._cond:
            self._waiting.append(entry)
            while not entry.done and self._leading:  # another thread is writing a batch (maybe with this item)
                left = None if deadline is None or entry.taken else deadline - time.monotonic()
                if left is not None and left <= 0:
                    self._waiting.remove(entry)
                    raise Late(f"not written within {budget_s} s")
                self._cond.wait(left)
            if not entry.done:  # no batch is being written and this one is waiting: lead the next
                self._leading = True
                batch, self._waiting = self._waiting, []
                for each in batch:
                    each.taken = True
        if not entry.done:
            self._lead(batch, None if deadline is None else max(0.0, deadline - time.monotonic()))
        if entry.error is not None:
            raise entry.error
        return entry.result  # type: ignore[return-value]

    def _lead(self, batch: list[_Entry[Item, Result]], budget_s: float | None) -> None:
        try:
            results = self._write([each.item for each in batch], budget_s)
            for each, result in zip(batch, results, strict=True):
                each.result = result
        except BaseException as exc:  # every item of the batch fails alike, and hears why
            for each in batch:
                each.error = exc
        finally:
            with self._cond:
                for each in batch:
                    each.done = True
                self._leading = False
                self._cond.notify_all()
