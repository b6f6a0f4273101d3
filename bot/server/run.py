"""Start-up of `gpu-advise serve`: check the settings, build the process (bot/deps.py) and the Slack app,
replay work acknowledged before the last stop, start the jobs (jobs.py), then serve Slack over HTTP
(http.py) or Socket Mode, with heartbeats, /healthz and /metrics over HTTP in both modes."""

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
    from bot.server.feishu_endpoint import FeishuGateway
    from bot.state import Inbox

log = logging.getLogger("bot.serve")


class StartFailed(RuntimeError):
    """serve cannot start: the message (in the terminal's language) says why and what to do."""


def run(settings: Settings, *, host: str, port: int, jobs: bool, lang: Lang) -> None:
    """Serve until stopped (Ctrl-C or SIGTERM). StartFailed when a setting, the state or a chat is not usable."""
    from bot.logs import configure as configure_logs
    from bot.server.jobs import start_jobs

    configure_logs(settings.log_level, settings.log_format)
    # The work after an acknowledgement runs on threads of this process; a thread waiting to acknowledge gets
    # the interpreter back within a millisecond of asking instead of Python's default five.
    sys.setswitchinterval(0.001)
    deps, app, gateway = _build(settings, jobs, lang)
    settle_heap()
    work, scheduler, sweeping = deps.work, None, threading.Event()
    if work is not None:  # the work after each acknowledgement, the replay and the jobs: in a second process
        from bot.server.spool import Sweeper

        work.start()
        if deps.spool is not None:
            Sweeper(deps.spool, deps.inbox, work, timedelta(seconds=settings.redo_after_s)).start(sweeping)
    elif app is not None:
        # Finish the work of requests acknowledged before the last stop, beside the new requests.
        threading.Thread(target=_replay, args=(deps, app.client), name="replay", daemon=True).start()
    if gateway is not None:  # Feishu's callbacks acknowledged before the last stop
        known = ", ".join(gateway.tenants()) or "none yet (a tenant's key is in the bot's `help` there)"
        log.info("Feishu tenants known (the terminal's --team): %s", known)
        threading.Thread(target=gateway.replay, name="feishu-replay", daemon=True).start()
    if work is None:
        scheduler = start_jobs(settings, deps, app.client if app is not None else None, gateway) if jobs else None
    try:
        if gateway is not None and settings.feishu_mode == "ws":
            gateway.connect()  # Feishu's long connection, on its own thread
        _serve(settings, deps, app, gateway, host, port, _scheduler_check(scheduler, work, jobs))
    finally:
        if scheduler is not None:
            scheduler.shutdown(wait=False)
        sweeping.set()
        if work is not None:
            work.stop()
        if gateway is not None:
            gateway.stop()
        deps.shutdown()  # a capture cut short stays pending in the inbox: redone at start-up


def _build(settings: Settings, jobs: bool, lang: Lang) -> tuple[Deps, Any, FeishuGateway | None]:
    """The process (bot/deps.py), Slack's app when serve talks to Slack, Feishu's gateway when to Feishu."""
    from bot.deps import build_deps
    from bot.slack.app import MissingSlackSettings, SlackUnreachable, check_tokens, create_app, slack_deps
    from bot.state import StoreUnavailable
    from pricing.errors import CacheUnavailable
    from rules.errors import PolicyError

    slack, feishu = _platforms(settings)
    try:
        if slack or not feishu:
            check_tokens(settings, lang)  # neither configured: says what to set for each
        if feishu:
            _check_feishu(settings, lang)
        making = _work_process(settings, jobs, lang) if settings.work_process else None
        if slack:
            deps = slack_deps(settings, work=making)
            app: Any = create_app(deps, lang=lang)
        else:
            deps, app = build_deps(settings, work=making), None
        return deps, app, (_feishu_gateway(deps, lang) if feishu else None)
    except (MissingSlackSettings, SlackUnreachable) as exc:
        raise StartFailed(str(exc)) from None
    except StoreUnavailable as exc:
        raise StartFailed(t("cli.state_unavailable", lang, target=exc.target, reason=exc.reason)) from None
    except CacheUnavailable as exc:
        raise StartFailed(t("cli.cache_unavailable", lang, path=exc.path, reason=exc.reason)) from None
    except PolicyError as exc:
        raise StartFailed(t("cli.policy_error", lang, error=str(exc))) from None


def _serve(
    settings: Settings,
    deps: Deps,
    app: Any,
    gateway: FeishuGateway | None,
    host: str,
    port: int,
    running: Callable[[], bool] | None,
) -> None:
    """Slack over its socket (the HTTP side serving the rest) or everything over HTTP, until stopped."""
    from bot.server.feishu_endpoint import PATH as FEISHU_PATH
    from bot.server.http import EVENTS_PATH, build_server

    app_token = settings.slack_app_token.get_secret_value() if settings.slack_app_token and app is not None else ""
    if app_token:
        from slack_bolt.adapter.socket_mode import SocketModeHandler

        # Slack comes over the socket; agents' heartbeats, /healthz and /metrics still need HTTP.
        side = build_server(app, deps, host, port, scheduler_running=running, feishu=gateway)
        threading.Thread(target=side.serve_forever, kwargs={"poll_interval": 0.2}, name="http", daemon=True).start()
        log.info(
            "starting in Socket Mode; /api/heartbeat, /healthz and /metrics on http://%s:%s",
            host,
            side.server_address[1],
        )
        SocketModeHandler(app, app_token).start()  # type: ignore[no-untyped-call]
        return
    server = build_server(app, deps, host, port, scheduler_running=running, feishu=gateway)
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop like Ctrl-C: finish, then exit
    paths = [EVENTS_PATH] if app is not None else []
    paths += [FEISHU_PATH] if gateway is not None and settings.feishu_mode == "http" else []
    log.info("listening on http://%s:%s (%s)", host, server.server_address[1], ", ".join(paths) or "no chat")
    sys.stdout.flush()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        log.info("stopping")
    finally:
        server.server_close()


def _platforms(settings: Settings) -> tuple[bool, bool]:
    """Which chats serve talks to, by which settings are set: Slack (a token, an OAuth client, or any of its
    secrets: a half-configured Slack is refused by check_tokens, not ignored), Feishu (an App ID and secret)."""
    slack = settings.slack() or bool(
        settings.slack_signing_secret or settings.slack_app_token or settings.slack_client_id
    )
    return slack, settings.feishu()


def _check_feishu(settings: Settings, lang: Lang) -> None:
    if settings.feishu_mode == "http" and not (settings.feishu_encrypt_key or settings.feishu_verification_token):
        raise StartFailed(t("feishu.http_needs_a_check", lang))


def _feishu_gateway(deps: Deps, lang: Lang) -> FeishuGateway:
    """Feishu's side of serve, its credentials checked (a tenant access token is asked for)."""
    from bot.feishu.sdk import FeishuError
    from bot.server.feishu_endpoint import FeishuGateway

    gateway = FeishuGateway(deps)
    try:
        gateway.api.check()
    except FeishuError as exc:
        url = deps.settings.feishu_base_url()
        raise StartFailed(t("feishu.unreachable", lang, url=url, reason=f"{exc.code}: {exc.msg}")) from None
    return gateway


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


def _replay(deps: Any, client: Any) -> None:
    """serve in one process: what a work process left in the spool (serve run with one before), then the inbox."""
    from bot.server.spool import open_spool, take_over
    from bot.slack.inbox import replay_pending

    spool = open_spool(deps.store, only_if_there=True)
    if spool is not None:
        take_over(spool, deps.inbox)
    replay_pending(deps, client)


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
