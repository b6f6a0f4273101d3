"""`gpu-advise serve`: the Slack app (Socket Mode or HTTP) and the price refresh scheduler, in one process.

Slack and the scheduler are imported when serve runs, not when the CLI loads.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated

import typer

from bot.cli.common import DbOpt, fail, load_settings, terminal_lang
from bot.text import t

if TYPE_CHECKING:
    from apscheduler.schedulers.background import BackgroundScheduler
    from slack_sdk import WebClient

    from bot.settings import Settings
    from bot.slack.deps import Deps

log = logging.getLogger("bot.serve")


def serve(
    port: Annotated[int, typer.Option(help="HTTP port (Slack's events in HTTP mode; heartbeats, /healthz and "
                                            "/metrics in both modes).")] = 3000,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "0.0.0.0",
    no_scheduler: Annotated[bool, typer.Option("--no-scheduler", help="Do not refresh prices in this process.")]
    = False,
    db: DbOpt = None,
) -> None:
    """Run the Slack bot: Socket Mode when SLACK_APP_TOKEN is set, else HTTP at /slack/events."""
    from bot.api.server import EVENTS_PATH, build_server
    from bot.logs import configure as configure_logs
    from bot.slack.app import MissingSlackSettings, SlackUnreachable, build_deps, check_tokens, create_app
    from bot.slack.inbox import replay_pending
    from bot.state import StoreUnavailable
    from pricing.errors import CacheUnavailable
    from rules.errors import PolicyError

    settings = load_settings(db=db, terminal=False)  # Slack's default language is GPU_ADVISOR_LANG, else zh
    configure_logs(settings.log_level, settings.log_format)
    lang = terminal_lang(settings)  # what this terminal is told
    try:
        check_tokens(settings, lang)
        deps = build_deps(settings)
        app = create_app(deps, lang=lang)
    except (MissingSlackSettings, SlackUnreachable) as exc:
        raise fail(str(exc)) from None
    except StoreUnavailable as exc:
        raise fail(t("cli.state_unavailable", lang, target=exc.target, reason=exc.reason)) from None
    except CacheUnavailable as exc:
        raise fail(t("cli.cache_unavailable", lang, path=exc.path, reason=exc.reason)) from None
    except PolicyError as exc:
        raise fail(t("cli.policy_error", lang, error=str(exc))) from None
    # Finish the work of requests acknowledged before the last stop, beside the new requests.
    threading.Thread(target=replay_pending, args=(deps, app.client), name="replay", daemon=True).start()
    scheduler = None if no_scheduler else start_jobs(settings, deps, app.client)
    app_token = settings.slack_app_token.get_secret_value() if settings.slack_app_token else ""
    try:
        if app_token:
            from slack_bolt.adapter.socket_mode import SocketModeHandler

            # Slack comes over the socket; agents' heartbeats, /healthz and /metrics still need HTTP.
            running = (lambda: bool(scheduler.running)) if scheduler is not None else None
            side = build_server(app, deps, host, port, scheduler_running=running)
            threading.Thread(target=side.serve_forever, kwargs={"poll_interval": 0.2}, name="http",
                             daemon=True).start()
            log.info("starting in Socket Mode; /api/heartbeat, /healthz and /metrics on http://%s:%s", host,
                     side.server_address[1])
            SocketModeHandler(app, app_token).start()  # type: ignore[no-untyped-call]
        else:
            running = (lambda: bool(scheduler.running)) if scheduler is not None else None
            server = build_server(app, deps, host, port, scheduler_running=running)
            signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop like Ctrl-C: finish, then exit
            log.info("listening on http://%s:%s%s", host, server.server_address[1], EVENTS_PATH)
            sys.stdout.flush()
            try:
                server.serve_forever(poll_interval=0.2)
            except KeyboardInterrupt:
                log.info("stopping")
            finally:
                server.server_close()
    finally:
        if scheduler is not None:
            scheduler.shutdown(wait=False)


def start_jobs(settings: Settings, deps: Deps, client: WebClient) -> BackgroundScheduler:
    """The scheduler of `serve`: price refreshes, redoing stalled work, the digests, sample retention and,
    when configured, the Prometheus pull. The digests may run in every process: their claim sends each once."""
    from bot.reminders.due import pull_prometheus, run_due
    from bot.scheduler import build_scheduler, once
    from bot.slack.inbox import KEPT, redo_stalled
    from bot.state.retention import compact
    from pricing import cache

    scheduler = build_scheduler(deps.prices.sources, lambda: cache.open_db(settings.db),
                                on_refresh=lambda r: deps.metrics.refreshes.labels(r.source, "ok" if r.ok
                                                                                   else "failed").inc())
    every_minute = {"coalesce": True, "max_instances": 1}
    minute, hour = timedelta(minutes=1), timedelta(hours=1)
    store = deps.store
    # each stalled item is claimed on its own (the replica that took it, or one taking over a dead one's)
    redo_every = max(1.0, min(60.0, settings.redo_after_s / 2))
    scheduler.add_job(redo_stalled, "interval", args=[deps, client], seconds=redo_every, id="inbox:redo",
                      name="redo work that did not reach Slack", **every_minute)
    # every minute, and once at start-up: a digest missed while down goes out if its local day is not over
    scheduler.add_job(once(store, "reminders:due", minute, lambda: run_due(deps, client)), "interval", seconds=60,
                      id="reminders:due", name="send the daily digests that are due",
                      next_run_time=datetime.now(UTC), **every_minute)
    scheduler.add_job(once(store, "samples:compact", hour,
                           lambda: compact(store, deps.now(), raw_days=settings.samples_raw_days,
                                           hourly_days=settings.samples_hourly_days)),
                      "interval", hours=1, id="samples:compact", name="fold old GPU samples into hourly maxima",
                      **every_minute)
    scheduler.add_job(once(store, "inbox:prune", timedelta(days=1), lambda: store.prune(KEPT)), "interval",
                      hours=6, id="inbox:prune", name="forget finished requests and job claims older than a week",
                      **every_minute)
    if settings.prometheus_url:
        every = settings.prometheus_every_minutes
        scheduler.add_job(once(store, "samples:prometheus", timedelta(minutes=every),
                               lambda: pull_prometheus(deps, settings.prometheus_url or "", every)),
                          "interval", minutes=every, id="samples:prometheus", name="pull DCGM samples from Prometheus",
                          next_run_time=datetime.now(UTC), **every_minute)
    scheduler.start()
    return scheduler
