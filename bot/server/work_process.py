"""serve's work process: the work after each acknowledgement (the route's handler) and the scheduler's
jobs run in a second process, so that none of it shares an interpreter lock with the front door that
acknowledges Slack.

The work process is forked from the front door at serve's start, before any other thread runs, and shares
its loaded modules; one started again after it died is a fresh interpreter (WorkProcess._context).
The front door (this process) keeps each request in the inbox and answers Slack, then hands the request
over a queue; the work process starts its route's handler, in the order requests came, as a redo of a
kept request does (inbox.request_for): the front door checked it already, and bolt's dispatch would
only repeat the reading and matching. Requests bolt acknowledges in the front door (forms checked
before they are answered, Socket Mode) come with their body, their listener's acknowledgement done.
Nothing acknowledged is lost between the two: the request is on disk before Slack hears back (in the
inbox, or on SQLite in the front door's spool: spool.py), and whatever a work process had not finished
when it stopped is pending there. A work process that dies is
started again (after 1 s, doubling while it keeps dying, up to 30 s); the new one redoes what was kept
before it started (inbox.replay_pending) and takes what comes after it from the queue.

The two processes share two counts in memory: the front door's acknowledgements in flight (the work
process's background writes wait while there are any, as they would in one process: AckGate) and
whether the work process's scheduler runs (for /healthz). /metrics adds the work process's counters,
asked for over a pipe at each scrape.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import signal
import stat
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.deps import Deps
from bot.settings import Settings
from bot.state import Inbox, Store
from bot.state.write_lock import AckGate, SharedCount
from bot.text import Lang

if TYPE_CHECKING:
    from bot.server.doors import FrontDoor

log = logging.getLogger("bot.serve")

RESTART_S, RESTART_MAX_S = 1.0, 30.0
METRICS_WAIT_S = 2.0  # a scrape waits this long for the work process's counters, then goes without them
STOP_WAIT_S = 10.0
REPLAY_WAIT_S = 60.0  # new work waits at most this long for the replay at start (a long one still lets it on)
PROCESS_NAME = "gpu-advise-work"  # as ps shows it (Linux keeps 15 characters)
WORK_SWITCH_S = 0.005  # CPython's default: no acknowledgement waits on this process's threads (run.py: 1 ms there)
WORK_THREADS = 4  # the work of kept requests at once (as many as bolt's lazy listeners in the front door)


@dataclass(frozen=True)
class Job:
    """What a work process is started with (pickled to it)."""

    settings: Settings
    jobs: bool
    lang: Lang
    kept_before: float  # Unix time: requests kept before it are redone from the inbox, later ones come by queue
    spool: str | None  # the front door's spool (spool.py): requests are taken from there into the inbox


class WorkProcess:
    """The front door's side: start, hand work over, restart when it dies, stop with serve."""

    def __init__(self, settings: Settings, *, jobs: bool, lang: Lang, spool: Inbox | None = None) -> None:
        self._ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: no threads or locks copied
        self._holding: tuple[Store, ...] = ()
        self._settings, self._jobs, self._lang = settings, jobs, lang
        self._spool = spool.store.sqlite_path() if spool is not None else None
        self.acking: SharedCount = self._ctx.RawValue("i", 0)
        self.scheduler_up: SharedCount = self._ctx.RawValue("i", 0)
        self.ready: SharedCount = self._ctx.RawValue("i", 0)  # 1 once it takes work from the queue
        self._stopping = threading.Event()
        self._metrics_lock = threading.Lock()
        self._process: Any = None
        self._queue: Any = None
        self._metrics: Connection | None = None
        self.restarts = 0

    def start(self, holding: Sequence[Store] = ()) -> None:
        """`holding`: the stores this process has open. Before a fork their pooled connections are closed (each
        opens another at its next use): a database connection carried across a fork is two processes' at once
        (SQLite: https://www.sqlite.org/howtocorrupt.html, section 2.6; libpq's socket likewise)."""
        self._holding = tuple(holding)
        self._spawn()
        threading.Thread(target=self._watch, name="work-watch", daemon=True).start()

    def _context(self) -> Any:
        """How a work process starts. Forked while this process runs no other thread (serve's start, before its
        HTTP server, scheduler and chats' connections): the work process then shares the front door's loaded
        modules, a page copied only once one of the two writes to it, and imports nothing again (idle, serve's two
        processes held 150 MB of their own with a fresh interpreter, 107 MB forked: docs/benchmarks.md). Otherwise
        (a restart, once the front door's threads run, whose locks a fork would copy held; a platform without
        fork; a database file still open) a fresh interpreter. Either way the work process builds its own Deps
        and chats from the Job and never uses what the front door had built."""
        if threading.active_count() != 1 or not sys.platform.startswith("linux"):
            return self._ctx
        for store in self._holding:
            store.release()
        still_open = open_databases()
        if still_open:
            log.warning("the work process starts in a fresh interpreter: %s open here", ", ".join(still_open))
            return self._ctx
        return multiprocessing.get_context("fork")

    def _spawn(self) -> None:
        ctx = self._context()
        work_queue, (front, back) = ctx.Queue(), ctx.Pipe()
        job = Job(self._settings, self._jobs, self._lang, time.time(), self._spool)
        self.ready.value = 0
        process = ctx.Process(
            target=work_main,
            args=(job, work_queue, back, self.acking, self.scheduler_up, self.ready),
            name="gpu-advisor-work",
            daemon=True,
        )
        process.start()
        back.close()
        log.debug("the work process started (%s, pid %s)", ctx.get_start_method(), process.pid)
        self._process, self._queue, self._metrics = process, work_queue, front  # new work goes to the new one

    def _watch(self) -> None:
        pause = RESTART_S
        while not self._stopping.is_set():
            began = time.monotonic()
            self._process.join()
            if self._stopping.is_set():
                return
            self.scheduler_up.value = 0
            log.error(
                "the work process stopped (exit code %s); starting another in %.0f s: what it had not done "
                "is in the inbox and will be done",
                self._process.exitcode,
                pause,
            )
            if self._stopping.wait(pause):
                return
            pause = RESTART_S if time.monotonic() - began > 10 * RESTART_MAX_S else min(pause * 2, RESTART_MAX_S)
            self.restarts += 1
            self._spawn()

    def alive(self) -> bool:
        """Whether the work process runs, read from its sentinel (closed when it ends). Not is_alive(): that asks
        waitpid, and the watch thread's join, waiting in waitpid too, may reap the process first, when is_alive's
        own waitpid fails and it answers "alive" for a process that has just died."""
        process = self._process
        return process is not None and not wait([process.sentinel], 0)

    def state(self) -> str:
        """For /healthz: running (taking work), starting, or restarting (it died; another is started soon)."""
        if not self.alive():
            return "restarting"
        return "running" if self.ready.value else "starting"

    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def kept(self, chat: str, key: str, raw: bytes, headers: dict[str, str]) -> None:
        self._queue.put(("kept", chat, key, raw, headers.get("content-type")))  # never blocks

    def run(self, key: str, kind: str, body: dict[str, Any]) -> None:
        self._queue.put(("run", key, kind, body))

    def metrics(self) -> bytes | None:
        """The work process's metrics exposition, or None when it does not answer in time."""
        with self._metrics_lock:
            conn = self._metrics
            if conn is None or not self.alive():
                return None
            try:
                while conn.poll(0):  # an answer to an earlier scrape that gave up waiting: stale
                    conn.recv()
                conn.send("metrics")
                if conn.poll(METRICS_WAIT_S):
                    answer = conn.recv()
                    return answer if isinstance(answer, bytes) else None
                log.warning("the work process did not give its metrics within %.0f s", METRICS_WAIT_S)
            except (OSError, EOFError) as exc:  # it stopped between the check and the question
                log.warning("the work process's metrics could not be asked for: %s", type(exc).__name__)
            return None

    def stop(self) -> None:
        """Tell the work process to stop (what it is doing stays pending in the inbox); wait, then end it."""
        self._stopping.set()
        process = self._process
        if process is None or not process.is_alive():
            return
        self._queue.put(None)
        process.join(STOP_WAIT_S)
        if process.is_alive():
            log.warning("the work process did not stop within %.0f s: ended", STOP_WAIT_S)
            process.terminate()
            process.join(STOP_WAIT_S)


def work_main(
    job: Job,
    work_queue: Any,
    metrics_conn: Connection,
    acking: SharedCount,
    scheduler_up: SharedCount,
    ready: SharedCount,
) -> None:
    """The work process: build what the handlers need, redo what was kept before it started, then do what
    comes over the queue until told to stop or the front door is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the front door says when
    sys.setswitchinterval(WORK_SWITCH_S)  # forked, it had the front door's shorter interval
    _die_with_the_front_door()
    from bot.logs import configure as configure_logs
    from bot.server.jobs import start_jobs
    from bot.server.run import settle_heap

    configure_logs(job.settings.serve.log_level, job.settings.serve.log_format)
    gate = AckGate()
    gate.follow(acking)  # the acknowledgements to give way to are the front door's
    try:
        deps, doors = _build(job, gate)
    except Exception as exc:  # what serve checked a moment ago failed now (Slack, the database): said, not a traceback
        reason = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
        log.error("the work process could not start: %s", reason)
        raise SystemExit(1) from None
    scheduler = start_jobs(job.settings, deps, doors) if job.jobs else None
    scheduler_up.value = int(scheduler is not None)
    settle_heap()
    threading.Thread(target=_answer_metrics, args=(metrics_conn, deps), name="metrics", daemon=True).start()
    spool = Inbox(Store(job.spool, now=deps.store.now, replica=deps.store.replica, acks=gate)) if job.spool else None
    started = Started()
    # what the replay thread and the work loop import, imported here first: two threads importing slack_bolt for
    # the first time at once break its circular imports (each door's module loaded what its work takes)
    import bot.server.spool  # noqa: F401

    threading.Thread(
        target=_recover,
        args=(deps, doors, spool, datetime.fromtimestamp(job.kept_before, UTC), started),
        name="replay",
        daemon=True,
    ).start()
    log.info("the work process is ready (pid %s)", multiprocessing.current_process().pid)
    ready.value = 1
    lower_priority(job.settings.serve.work_niceness)
    try:
        _take_work(work_queue, deps, doors, started, spooled=spool is not None)
    finally:
        ready.value = scheduler_up.value = 0
        if scheduler is not None:
            scheduler.shutdown(wait=False)
        for door in doors:
            door.stop()
        deps.shutdown()


def open_databases() -> list[str]:
    """The SQLite databases this process has a file open on (Linux's /proc/self/fd; none elsewhere)."""
    found = []
    fds = Path("/proc/self/fd")
    for entry in fds.iterdir() if fds.is_dir() else ():
        fd = int(entry.name)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode) and os.pread(fd, 16, 0) == b"SQLite format 3\x00":
                found.append(os.readlink(entry))
        except OSError:  # the listing's own descriptor, closed by now
            continue
    return found


def lower_priority(niceness: int) -> None:
    """Where the CPUs are all busy, the front door's acknowledgements go first: every thread of this process takes
    `niceness`, once it is ready. Its start-up runs at the front door's priority, since acknowledged commands wait
    for it (beside two busy processes on two CPUs, at nice 10 it took 3.7 s before its first answer). On Linux a
    nice value is a thread's own, and a new thread takes its creator's: each thread already running is set."""
    if not hasattr(os, "setpriority"):
        return
    target = min(19, os.getpriority(os.PRIO_PROCESS, 0) + niceness)  # below the front door's, as nice(1) counts
    tasks = Path("/proc/self/task")
    threads = [int(t.name) for t in tasks.iterdir()] if tasks.is_dir() else [0]
    for tid in threads:
        try:
            os.setpriority(os.PRIO_PROCESS, tid, target)
        except OSError as exc:  # a thread that ended meanwhile; or a host that refuses
            log.debug("cannot set the priority of thread %s: %s", tid, exc)


def _build(job: Job, gate: AckGate) -> tuple[Deps, list[FrontDoor]]:
    """The work process's Deps and every chat's front door (the same list the front door made)."""
    from bot.deps import build_deps
    from bot.server.chat_setups import installs_of, turned_on
    from bot.server.doors import doors_of

    setups = turned_on(job.settings)
    deps = build_deps(job.settings, acks=gate, installs=installs_of(job.settings, setups))
    return deps, doors_of(deps, job.lang, setups)


def _die_with_the_front_door() -> None:
    """Linux: the kernel kills this process when the front door dies (PR_SET_PDEATHSIG), so a killed serve never
    leaves a work process finishing what it had begun while another replica, or the next serve, redoes it. Elsewhere
    the work loop notices within a second that the front door is gone, once what it is doing ends. It is named
    PROCESS_NAME too (PR_SET_NAME), for ps and top: forked, its command line is the front door's."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        libc.prctl(15, PROCESS_NAME.encode(), 0, 0, 0)  # PR_SET_NAME = 15: this thread's, and its new threads'
    except (OSError, AttributeError) as exc:
        log.warning("the work process cannot ask to end with the front door: %s", exc)
        return
    parent = multiprocessing.parent_process()
    if parent is not None and not parent.is_alive():  # it died before the request was made
        os._exit(1)


class Started:
    """The requests whose work this process started, from its replay at start or from the queue: one kept just
    before a work process started again may come both ways (on SQLite the spool's adoption tells; on
    PostgreSQL only this does). Forgotten after an hour: by then the replay is long over."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._keys: dict[str, float] = {}
        # set when the replay at start has ended: new work waits for it, so a conversation's redone step comes
        # before the next answer to it (else a redone question and a new answer race for the same profile)
        self.replayed = threading.Event()

    def first(self, key: str) -> bool:
        """True the first time `key` is asked about."""
        now = time.monotonic()
        with self._lock:
            if len(self._keys) > 10_000:
                self._keys = {k: at for k, at in self._keys.items() if now - at < 3600}
            if key in self._keys:
                return False
            self._keys[key] = now
            return True


def _recover(deps: Deps, doors: list[FrontDoor], spool: Inbox | None, kept_before: datetime, started: Started) -> None:
    """What was kept before this process started: taken from the spool, then redone from the inbox."""
    from bot.server.spool import take_spooled

    try:
        if spool is not None:
            taken = take_spooled(spool, deps.inbox, kept_before)
            if taken:
                log.info("took %d request(s) the front door kept before this work process started", taken)
        for door in doors:
            door.replay(kept_before, started.first)
    finally:
        started.replayed.set()


def _take_work(work_queue: Any, deps: Deps, doors: list[FrontDoor], started: Started, *, spooled: bool) -> None:
    workers = ThreadPoolExecutor(max_workers=WORK_THREADS, thread_name_prefix="work")
    by_name = {door.name: door for door in doors}
    parent = multiprocessing.parent_process()
    while True:
        try:
            item = work_queue.get(timeout=1.0)
        except queue.Empty:
            if parent is not None and not parent.is_alive():
                log.warning("the front door is gone: the work process stops")
                return
            continue
        if item is None:
            return
        if item[0] == "kept":  # read by its chat's door as the front door read it (it was checked there)
            door = by_name.get(item[1])
            if door is None:
                log.warning("%s: kept by %s, which this work process does not talk to", item[2], item[1])
                continue
            key, (kind, body) = item[2], door.opened(item[3], item[4])
        else:
            key, kind, body = item[1:]
        if spooled and not deps.inbox.adopt(key, kind, body):
            continue  # taken before: a Slack retry, or handed over again while it was on its way
        started.replayed.wait(REPLAY_WAIT_S)  # what was kept before this process started goes first
        if not started.first(key):
            continue  # the replay at this process's start did it
        if not any(door.take(key, kind, body, workers) for door in doors):
            log.warning("%s: no chat serve talks to takes work of kind %s; left in the inbox", key, kind)


def _answer_metrics(conn: Connection, deps: Any) -> None:
    while True:
        try:
            conn.recv()
            conn.send(deps.metrics.exposition())
        except (OSError, EOFError):
            return
