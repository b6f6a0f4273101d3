"""Start-up of `gpu-advise serve`: check the settings of the chats they turn on (bot/server/chat_setups.py), build
the process (bot/deps.py) and each chat's front door, replay work acknowledged before the last stop, start the jobs
(jobs.py) and each door's own connection (Slack's socket, Feishu's long connection), then serve HTTP (http.py): the
chats' callbacks, agents' heartbeats, /healthz and /metrics. No chat is named here."""

from __future__ import annotations

import gc
import logging
import signal
import sys
import threading
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from bot.settings import Settings
from bot.text import Lang, t

if TYPE_CHECKING:
    from bot.deps import Deps, Handoff
    from bot.server.doors import FrontDoor
    from bot.state import Inbox

log = logging.getLogger("bot.serve")


class StartFailed(RuntimeError):
    """serve cannot start: the message (in the terminal's language) says why and what to do."""


def run(settings: Settings, *, host: str, port: int, jobs: bool, lang: Lang) -> None:
    """Serve until stopped (Ctrl-C or SIGTERM). StartFailed when a setting, the state or a chat is not usable."""
    from bot.logs import configure as configure_logs
    from bot.server.jobs import start_jobs

    configure_logs(settings.serve.log_level, settings.serve.log_format)
    deps, doors = _build(settings, jobs, lang)
    # The work after an acknowledgement runs on threads of this process; a thread waiting to acknowledge gets
    # the interpreter back within a millisecond of asking instead of Python's default five. Set once serve will
    # serve: a start that failed leaves the process as it was (a terminal test runs serve in its own process, and
    # kept the shorter interval for every later test of that process: more switches, more CPU).
    sys.setswitchinterval(0.001)
    settle_heap()
    work, scheduler, sweeping = deps.work, None, threading.Event()
    if work is not None:  # the work after each acknowledgement, the replay and the jobs: in a second process
        from bot.server.spool import Sweeper

        work.start(holding=[deps.store] + ([deps.spool.store] if deps.spool is not None else []))
        if deps.spool is not None:
            Sweeper(deps.spool, deps.inbox, work, timedelta(seconds=settings.serve.redo_after_s)).start(sweeping)
    # Finish the work of requests acknowledged before the last stop, beside the new requests (each front door
    # redoes what is its to do here: all of it without a work process, its own answers' part with one).
    threading.Thread(target=_replay, args=(deps, doors), name="replay", daemon=True).start()
    if work is None:
        scheduler = start_jobs(settings, deps, doors) if jobs else None
    try:
        _serve(deps, doors, host, port, _scheduler_check(scheduler, work, jobs))
    finally:
        if scheduler is not None:
            scheduler.shutdown(wait=False)
        sweeping.set()
        if work is not None:
            work.stop()
        for door in doors:
            door.stop()
        deps.shutdown()  # a capture cut short stays pending in the inbox: redone at start-up


def _build(settings: Settings, jobs: bool, lang: Lang) -> tuple[Deps, list[FrontDoor]]:
    """The process (bot/deps.py) and the front door of every chat the settings turn on (bot/server/chat_setups.py;
    none turned on: what to set for each chat, the team's own first)."""
    from bot.deps import build_deps
    from bot.server.chat_setups import installs_of, turned_on
    from bot.server.doors import DoorRefused, doors_of
    from bot.state import StoreUnavailable
    from pricing.errors import CacheUnavailable
    from rules.errors import PolicyError

    setups = turned_on(settings)
    if not setups:  # Slack's own list of tokens was all it said, though a Chinese team chats in the other three
        raise StartFailed(t("serve.no_chat", lang))
    try:
        for setup in setups:
            setup.check(settings, lang)
        making = _work_process(settings, jobs, lang) if settings.serve.work_process else None
        deps = build_deps(settings, work=making, installs=installs_of(settings, setups))
        doors = doors_of(deps, lang, setups)
        for door in doors:
            door.check(lang)  # its credentials, asked once (a Feishu tenant token)
        return deps, doors
    except DoorRefused as exc:
        raise StartFailed(str(exc)) from None
    except StoreUnavailable as exc:
        raise StartFailed(t("cli.state_unavailable", lang, target=exc.target, reason=exc.reason)) from None
    except CacheUnavailable as exc:
        raise StartFailed(t("cli.cache_unavailable", lang, path=exc.path, reason=exc.reason)) from None
    except PolicyError as exc:
        raise StartFailed(t("cli.policy_error", lang, error=str(exc))) from None


def _serve(deps: Deps, doors: list[FrontDoor], host: str, port: int, running: Callable[[], bool] | None) -> None:
    """Every chat's HTTP routes, agents' heartbeats, /healthz and /metrics over HTTP, until stopped (a chat on a
    socket or long connection was started by its door)."""
    from bot.server.http import build_server

    server = build_server(deps, host, port, doors=doors, scheduler_running=running)
    for door in doors:
        door.start()  # its socket or long connection, on its own thread, once HTTP is bound
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop like Ctrl-C: finish, then exit
    paths = [route.path for door in doors for route in door.routes() if route.methods == {"POST"}]  # chats' events
    chats = ", ".join(f"{door.name} {door.health().get('mode', '')}".strip() for door in doors) or "no chat"
    where = ", ".join(paths) or "no chat callbacks over HTTP"
    log.info("listening on http://%s:%s (%s); chats: %s", host, server.server_address[1], where, chats)
    sys.stdout.flush()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        log.info("stopping")
    finally:
        server.server_close()


def _work_process(settings: Settings, jobs: bool, lang: Lang) -> Callable[[Deps], tuple[Handoff, Inbox | None]]:
    """What build_deps makes serve's work process with: the spool the front door keeps requests in (SQLite) and
    the process (not started yet), which follows the front door's count of acknowledgements in flight."""

    def make(deps: Deps) -> tuple[Handoff, Inbox | None]:
        from bot.server.spool import open_spool
        from bot.server.work_process import WorkProcess

        spool = open_spool(deps.store)
        work = WorkProcess(settings, jobs=jobs, lang=lang, spool=spool)
        deps.acks.publish(work.acking)
        return work, spool

    return make


def _replay(deps: Any, doors: list[FrontDoor]) -> None:
    """Without a work process: what one left in the spool (serve run with one before) first. Then each front
    door's replay of what it kept and did not finish."""
    from bot.server.spool import open_spool, take_over

    if deps.work is None:
        spool = open_spool(deps.store, only_if_there=True)
        if spool is not None:
            take_over(spool, deps.inbox)
    for door in doors:
        door.replay()


def settle_heap() -> None:
    """After start-up: what was built to serve (modules, the app, settings) is kept for the process's life, so
    the garbage collector stops walking it (gc.freeze); otherwise a full collection of that heap stalls every
    request in flight for about 0.1 s now and then."""
    gc.collect()
    gc.freeze()


def _scheduler_check(scheduler: Any, work: Any, jobs: bool) -> Callable[[], bool] | None:
    """For /healthz: is the scheduler running (in this process, or in the work process)? None: not asked for."""
    if work is not None:
        return (lambda: work.alive() and bool(work.scheduler_up.value)) if jobs else None
    return (lambda: bool(scheduler.running)) if scheduler is not None else None
