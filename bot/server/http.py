"""The HTTP server of `serve`: /slack/events behind the front door (verify.py), the agents'
/api/heartbeat (heartbeat.py), /healthz and /metrics.

A threaded WSGI server (one thread a connection). Its listen queue is the platform's maximum
(SOMAXCONN), so a burst of connections waits instead of being reset; one process holds what
bench/ack_latency.py measures, and more than that needs replicas (the scale-out issue).
"""

from __future__ import annotations

import io
import json
import logging
import socket
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from http import HTTPStatus
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler

from bot.deps import Deps
from bot.server import enroll, heartbeat
from bot.server.bodies import SOCKET_KEY, BodyTimeout, PendingBodies, TooManyPending, read_body
from bot.server.feishu_endpoint import PATH as FEISHU_PATH
from bot.server.health import health
from bot.server.verify import check, claims_signature, too_large
from bot.slack import fast_ack
from bot.slack.ids import INSTALL_PATH, REDIRECT_PATH
from bot.state import StoreBusy, StoreUnavailable
from bot.state.enrollment import Enrollments
from bot.state.rentals import Rentals

EVENTS_PATH = "/slack/events"
log = logging.getLogger(__name__)

StartResponse = Callable[..., Any]


def listen_backlog() -> int:
    """The platform's largest listen queue: Linux's net.core.somaxconn, else the C library's SOMAXCONN."""
    try:
        return int(Path("/proc/sys/net/core/somaxconn").read_text())
    except (OSError, ValueError):
        return socket.SOMAXCONN


class ThreadingWSGIServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    request_queue_size = listen_backlog()  # the platform's maximum: a burst waits rather than being reset


class QuietHandler(WSGIRequestHandler):
    timeout = 60.0  # no recv waits longer (headers included); bodies have their own deadline (bodies.py)
    # The response is buffered and sent in one write when the request ends. Unbuffered (the default), wsgiref
    # sends the status line, each header and the body in writes of their own, and between two of them the
    # thread gives up the interpreter to the work that follows earlier acknowledgements: an acknowledgement
    # done in 2.5 ms reached Slack after 6.
    wbufsize = -1

    def log_message(self, format: str, *args: Any) -> None:
        return

    def get_environ(self) -> dict[str, Any]:
        environ = super().get_environ()
        environ[SOCKET_KEY] = self.connection  # read_body sets the time left on it before each read
        return environ


def _reply(start_response: StartResponse, status: int, body: bytes, content_type: str = "text/plain") -> list[bytes]:
    start_response(
        f"{status} {HTTPStatus(status).phrase}", [("Content-Type", content_type), ("Content-Length", str(len(body)))]
    )
    return [body]


def _headers(environ: dict[str, Any]) -> dict[str, str]:
    found = {key[5:].replace("_", "-").lower(): str(value) for key, value in environ.items() if key.startswith("HTTP_")}
    found["content-type"] = str(environ.get("CONTENT_TYPE") or "")
    return found


def _unauthenticated_body(environ: dict[str, Any], deps: Deps, pending: PendingBodies) -> bytes | tuple[int, bytes]:
    """A Slack request's body, or the (status, reason) refusing it: 503 past the cap of bodies received
    at once before their signature is checked (signed-looking requests counted apart), 408 past the deadline."""
    try:
        with pending.slot(signed=claims_signature(environ)):
            return read_body(environ, deps.settings.read_timeout_s)
    except TooManyPending:
        deps.metrics.refused.labels("503").inc()
        return 503, b"too many requests being received at once: try again"
    except BodyTimeout as exc:
        deps.metrics.refused.labels("408").inc()
        log.info("refused a request to %s: %s", EVENTS_PATH, exc)
        return 408, str(exc).encode()


def wsgi_app(
    app: App | None,
    deps: Deps,
    scheduler_running: Callable[[], bool] | None = None,
    feishu: Callable[..., Iterable[bytes]] | None = None,
) -> Callable[..., Any]:
    """The WSGI application: what each path does (`feishu`: /feishu/events, when serve talks to Feishu)."""
    handler = SlackRequestHandler(app, path=EVENTS_PATH) if app is not None else None
    rentals = Rentals(deps.store)
    slack_events = _events_endpoint(app, deps, handler) if app is not None and handler is not None else None

    def agent_heartbeat(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        beat_limit = deps.settings.heartbeat_max_bytes
        if too_large(environ, beat_limit):
            deps.metrics.heartbeats.labels("413").inc()
            said = json.dumps({"error": f"bodies above {beat_limit} bytes are refused: send fewer samples at a time"})
            return _reply(start_response, 413, said.encode(), "application/json")
        try:
            found = heartbeat.identify(rentals, environ.get("HTTP_AUTHORIZATION"))
            if isinstance(found, heartbeat.Answer):
                answer = found  # refused on the header alone: the body is never read
            else:
                body = read_body(environ, deps.settings.read_timeout_s)
                answer = heartbeat.receive(
                    rentals,
                    found,
                    body,
                    deps.now,
                    busy_above_pct=deps.policy.idle.utilisation_max_pct,
                    max_age=timedelta(hours=deps.settings.heartbeat_max_age_hours),
                    metering=deps.policy.metering,
                )
        except BodyTimeout as exc:
            answer = heartbeat.Answer(408, {"error": f"{exc}: send fewer samples at a time, or check the link"})
        except (StoreBusy, StoreUnavailable) as exc:
            log.warning("heartbeat not kept: the state database is %s", type(exc).__name__)
            answer = heartbeat.Answer(503, {"error": "the state database is busy or down: send these samples again"})
        deps.metrics.heartbeats.labels(str(answer.status)).inc()
        if answer.status == 202:
            deps.metrics.samples.inc(answer.body["kept"])
        return _reply(start_response, answer.status, heartbeat.encode(answer), "application/json")

    agent_enroll = _enroll_endpoint(deps)

    feishu_http = feishu is not None and deps.settings.feishu_mode == "http"  # else events come over its socket

    def chats() -> dict[str, Any]:
        """Each chat serve talks to: Slack's requests over HTTP or its socket; Feishu's mode and connection."""
        found: dict[str, Any] = {}
        if app is not None:
            found["slack"] = {"mode": "socket" if deps.settings.slack_app_token else "http", "state": "ok"}
        state = getattr(feishu, "health", None)
        if callable(state):
            found["feishu"] = state()
        return found

    def wsgi(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO")
        if path == EVENTS_PATH and slack_events is not None and environ.get("REQUEST_METHOD") == "POST":
            return slack_events(environ, start_response)
        if path == FEISHU_PATH and feishu_http and environ.get("REQUEST_METHOD") == "POST":
            return feishu(environ, start_response)  # type: ignore[misc]
        if path == heartbeat.PATH and environ.get("REQUEST_METHOD") == "POST":
            return agent_heartbeat(environ, start_response)
        if path == enroll.PATH and environ.get("REQUEST_METHOD") == "POST":
            return agent_enroll(environ, start_response)
        if path in (INSTALL_PATH, REDIRECT_PATH) and app is not None and handler is not None and app.oauth_flow:
            return handler(environ, start_response)  # OAuth installs: bolt's install page and redirect
        if path == "/healthz":
            status, report = health(deps, scheduler_running, chats)
            return _reply(start_response, status, json.dumps(report).encode(), "application/json")
        if path == "/metrics":
            deps.refresh_gauges()
            exposition = deps.metrics.exposition(deps.work.metrics() if deps.work is not None else None)
            return _reply(start_response, 200, exposition, "text/plain; version=0.0.4")
        return _reply(start_response, 404, b"not found")

    return wsgi


ENROLL_MAX_BYTES = 256 * 1024  # a box's name and up to 1024 cards


def _events_endpoint(app: App, deps: Deps, handler: SlackRequestHandler) -> Callable[..., Iterable[bytes]]:
    """POST /slack/events: size, body deadline and signature checked first; then kept and answered here
    (bot/slack/fast_ack.py) or by bolt."""
    secret = deps.settings.slack_signing_secret.get_secret_value() if deps.settings.slack_signing_secret else ""
    limit = deps.settings.max_body_bytes
    pending = PendingBodies(deps.settings.max_pending_bodies)
    # bolt's part of requests acknowledged by the front door, one at a time in the order they came
    dispatcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dispatch")

    def slack_events(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        with deps.store.acks.acknowledging():  # the work of earlier requests waits at its next database step
            return acknowledge(environ, start_response)

    def acknowledge(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        if too_large(environ, limit):
            deps.metrics.refused.labels("413").inc()
            return _reply(start_response, 413, f"bodies above {limit} bytes are refused".encode())
        body = _unauthenticated_body(environ, deps, pending)
        if isinstance(body, tuple):
            return _reply(start_response, *body)
        headers = _headers(environ)
        verdict = check(body, headers, secret)
        if not verdict.ok:
            deps.metrics.refused.labels(str(verdict.status)).inc()
            log.info("refused a request to %s: %s (%s)", EVENTS_PATH, verdict.status, verdict.reason)
            return _reply(start_response, verdict.status, verdict.reason.encode())
        answer = fast_ack.acknowledge(deps, body, headers)
        if answer is not None:  # kept and answered here; bolt's part follows on its own thread
            fast_ack.after(dispatcher, app, body, headers, answer, deps.work)
            deps.metrics.ack_seconds.observe(time.perf_counter() - started)
            return _reply(start_response, answer.status, answer.body, answer.content_type)
        environ["wsgi.input"] = io.BytesIO(body)
        try:
            return handler(environ, start_response)
        except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
            # Bolt reads fields every Slack payload of a kind carries; a signed body without them makes it
            # fail before any listener or the inbox sees it. Nothing was done: say so, as a client error.
            deps.metrics.refused.labels("400").inc()
            log.warning("a signed request bolt could not read: %s: %s", type(exc).__name__, exc)
            return _reply(start_response, 400, b"not a Slack payload this app can read")
        finally:
            deps.metrics.ack_seconds.observe(time.perf_counter() - started)

    return slack_events


def _enroll_endpoint(deps: Deps) -> Callable[..., Iterable[bytes]]:
    """POST /api/enroll (enroll.py): the token checked from the header, then the body read and the box kept."""
    enrollments = Enrollments(deps.store)

    def agent_enroll(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if too_large(environ, ENROLL_MAX_BYTES):
            return _reply(
                start_response, 413, b'{"error": "an enrollment body is a few kilobytes"}', "application/json"
            )
        try:
            found = enroll.identify(enrollments, environ.get("HTTP_AUTHORIZATION"), deps.now())
            if isinstance(found, heartbeat.Answer):
                answer = found
            else:
                body = read_body(environ, deps.settings.read_timeout_s)
                answer = enroll.receive(
                    enrollments, found, body, deps.now(), offers=deps.gpu_offers, currency=deps.settings.currency
                )
        except BodyTimeout as exc:
            answer = heartbeat.Answer(408, {"error": str(exc)})
        except (StoreBusy, StoreUnavailable) as exc:
            log.warning("enrollment not kept: the state database is %s", type(exc).__name__)
            answer = heartbeat.Answer(503, {"error": "the state database is busy or down: enroll again"})
        return _reply(start_response, answer.status, heartbeat.encode(answer), "application/json")

    return agent_enroll


def build_server(
    app: App | None,
    deps: Deps,
    host: str,
    port: int,
    *,
    scheduler_running: Callable[[], bool] | None = None,
    feishu: Callable[..., Iterable[bytes]] | None = None,
) -> ThreadingWSGIServer:
    return make_server(
        host,
        port,
        wsgi_app(app, deps, scheduler_running, feishu),
        server_class=ThreadingWSGIServer,
        handler_class=QuietHandler,
    )
