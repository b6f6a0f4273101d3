"""The write lock on the state database, with the acknowledgements first. A write that must finish
within Slack's three seconds (it has a budget) goes before any background write waiting (heartbeats,
the digest, clean-ups), which otherwise could keep taking the lock back and leave a command answered
"busy". Background writers keep their transactions short (bounded batches), so an acknowledgement
waits at most one of them.

On SQLite the lock is also a file lock beside the database (`state.db-writer`), taken after this
process's lock: `serve`'s front door and its work process (bot/server/work_process.py), and any
terminal command, are separate processes writing the same file. SQLite's own busy handler would also
keep them apart, but it sleeps in growing steps (1, 2, 5, ... 100 ms) and lets whoever wakes first
in; the file lock is tried every 0.2 ms by an acknowledgement and every 1 ms by background work, and
background work of the work process does not start a write while the front door is acknowledging
(AckGate's shared count)."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

try:
    import fcntl
except ImportError:  # Windows: no flock; SQLite's busy handler alone keeps processes apart
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

FILE_WAIT_S = 30.0  # a write without a budget waits this long for another process (SQLite's busy timeout, as before)
URGENT_POLL_S, BACKGROUND_POLL_S = 0.0002, 0.001


class FileLock:
    """An exclusive flock(2) on `path`, tried at intervals until a deadline (flock has no timed wait)."""

    def __init__(self, path: str) -> None:
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    def acquire(self, timeout: float, poll_s: float) -> bool:
        ends = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return True
            except BlockingIOError:
                if time.monotonic() >= ends:
                    return False
                time.sleep(poll_s)

    def release(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self._fd)


def file_lock(path: str | None) -> FileLock | None:
    """The file lock for a SQLite database at `path` (None for PostgreSQL, whose rows are locked by the server).
    A folder where the file cannot be made leaves SQLite's busy handler alone keeping processes apart."""
    if not path or fcntl is None:
        return None
    try:
        return FileLock(f"{path}-writer")
    except OSError as exc:
        log.warning("no write lock file beside %s (%s): processes wait on SQLite's busy handler", path, exc.strerror)
        return None


class WriteLock:
    def __init__(self, file: FileLock | None = None) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._held = False
        self._urgent = 0  # acknowledgements waiting
        self._file = file

    def acquire(self, *, urgent: bool, timeout: float | None = None) -> bool:
        """True once held; False after `timeout` seconds. Urgent callers go before the others waiting."""
        started = time.monotonic()
        if not self._acquire_here(urgent, timeout):
            return False
        if self._file is None:
            return True
        left = FILE_WAIT_S if timeout is None else max(0.0, timeout - (time.monotonic() - started))
        if self._file.acquire(left, URGENT_POLL_S if urgent else BACKGROUND_POLL_S):
            return True
        self._release_here()
        return False

    def _acquire_here(self, urgent: bool, timeout: float | None) -> bool:
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
        if self._file is not None:
            self._file.release()
        self._release_here()

    def _release_here(self) -> None:
        with self._cond:
            self._held = False
            self._cond.notify_all()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class SharedCount(Protocol):
    """A count in memory shared between processes (multiprocessing's RawValue("i"))."""

    value: int


class AckGate:
    """Acknowledgements first for the interpreter, too. While a Slack request is being acknowledged, the
    work that follows earlier requests waits at its next step into the database (up to `max_wait_s`), so
    the acknowledgement shares the interpreter with fewer threads: the work runs on threads of the same
    process, and each thread running Python code delays the others.

    With a work process (bot/server/work_process.py), the front door publishes its count of acknowledgements
    in flight (`publish`) and the work process's gate waits on that count (`follow`), polling it.

    One gate a process, made by build_deps() (bot/deps.py) and handed to what gives way through it: the store,
    and the Slack clients."""

    def __init__(self, max_wait_s: float = 0.02) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._in_flight = 0
        self._local = threading.local()
        self.max_wait_s = max_wait_s
        self._published: SharedCount | None = None
        self._followed: SharedCount | None = None

    def publish(self, count: SharedCount | None) -> None:
        """Keep `count` equal to this process's acknowledgements in flight (None: stop)."""
        self._published = count

    def follow(self, count: SharedCount | None) -> None:
        """Wait on another process's acknowledgements, as published to `count` (None: this process's own)."""
        self._followed = count

    @contextmanager
    def acknowledging(self) -> Iterator[None]:
        with self._cond:
            self._in_flight += 1
            if self._published is not None:
                self._published.value = self._in_flight
        self._local.acking = True
        try:
            yield
        finally:
            self._local.acking = False
            with self._cond:
                self._in_flight -= 1
                if self._published is not None:
                    self._published.value = self._in_flight
                if not self._in_flight:
                    self._cond.notify_all()

    def holding(self, held: bool) -> None:
        """This thread holds (or let go of) the write lock: it never waits then (the acknowledgement may be
        waiting for that very lock)."""
        self._local.depth = getattr(self._local, "depth", 0) + (1 if held else -1)

    def yield_to_acks(self) -> None:
        if getattr(self._local, "depth", 0) > 0:
            return
        if self._followed is not None:  # the acknowledgements are another process's: poll their count
            ends = time.monotonic() + self.max_wait_s
            while self._followed.value > 0 and time.monotonic() < ends:
                time.sleep(BACKGROUND_POLL_S / 2)
            return
        if getattr(self._local, "acking", False) or not self._in_flight:
            return
        with self._cond:
            self._cond.wait_for(lambda: not self._in_flight, self.max_wait_s)
