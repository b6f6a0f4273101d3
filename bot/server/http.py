"""The HTTP server of `serve`: each chat's paths (its front door's routes, bot/server/doors.py), the agents'
/api/heartbeat (heartbeat.py) and /api/enroll, /healthz and /metrics.

A threaded WSGI server (one thread a connection). Its listen queue is the platform's maximum
(SOMAXCONN), so a burst of connections waits instead of being reset; one process holds what
bench/ack_latency.py measures, and more than that needs replicas (the scale-out issue).
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta
from pathlib import Path
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from bot.deps import Deps
from bot.server import enroll, heartbeat
from bot.server.doors import FrontDoor
from bot.server.health import health
from bot.state import StoreBusy, StoreUnavailable
from bot.state.enrollment import Enrollments
from bot.state.rentals import Rentals
from bot.web.answer import StartResponse, reply
from bot.web.bodies import SOCKET_KEY, BodyTimeout, read_body, too_large

log = logging.getLogger(__name__)


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


def tell_cards(deps: Deps, doors: Sequence[FrontDoor], instance: Any, cards: int) -> None:
    """Say once in the item's channel that its agent's card count now bills (`track` said fewer)."""
    from bot.chat.port import tell_each
    from bot.digest.due import channel_langs
    from bot.server.chats import Chats
    from bot.text import t

    lang = channel_langs(deps)(instance.team, instance.channel)
    text = t("heartbeat.cards_seen", lang, name=instance.name, cards=cards, tracked=instance.cards)
    try:
        teller = Chats([door.wing() for door in doors]).teller(instance.team)
    except LookupError:
        log.warning("%s: the card count its agent sees not said: the team's chat is not reachable", instance.name)
        return
    tell_each(teller, {instance.channel: text}, "card count")


def wsgi_app(
    deps: Deps, doors: Sequence[FrontDoor] = (), scheduler_running: Callable[[], bool] | None = None
) -> Callable[..., Any]:
    """The WSGI application: each chat's paths (its front door's routes), the agents' heartbeat and enrollment,
    /healthz and /metrics."""
    rentals = Rentals(deps.store)
    routes = {route.path: route for door in doors for route in door.routes()}

    def agent_heartbeat(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        beat_limit = deps.settings.samples.heartbeat_max_bytes
        if too_large(environ, beat_limit):
            deps.metrics.heartbeats.labels("413").inc()
            said = json.dumps({"error": f"bodies above {beat_limit} bytes are refused: send fewer samples at a time"})
            return reply(start_response, 413, said.encode(), "application/json")
        try:
            found = heartbeat.identify(rentals, environ.get("HTTP_AUTHORIZATION"))
            if isinstance(found, heartbeat.Answer):
                answer = found  # refused on the header alone: the body is never read
            else:
                body = read_body(environ, deps.settings.serve.read_timeout_s)
                answer = heartbeat.receive(
                    rentals,
                    found,
                    body,
                    deps.now,
                    busy_above_pct=deps.policy.idle.utilisation_max_pct,
                    max_age=timedelta(hours=deps.settings.samples.heartbeat_max_age_hours),
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
            if "cards" in answer.body and not isinstance(found, heartbeat.Answer):  # said once, off the agent's path
                threading.Thread(
                    target=tell_cards, args=(deps, doors, found, answer.body["cards"]), daemon=True
                ).start()
        return reply(start_response, answer.status, heartbeat.encode(answer), "application/json")

    agent_enroll = _enroll_endpoint(deps)

    def chats() -> dict[str, Any]:
        """Each chat serve talks to, as its front door says how it is."""
        return {door.name: door.health() for door in doors}

    board = _board(deps, doors)

    def wsgi(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO")
        route = routes.get(str(path))
        if route is not None and environ.get("REQUEST_METHOD") in route.methods:
            return route.app(environ, start_response)
        if str(path).startswith("/board") and environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            return board(environ, start_response)
        if path == heartbeat.PATH and environ.get("REQUEST_METHOD") == "POST":
            return agent_heartbeat(environ, start_response)
        if path == enroll.PATH and environ.get("REQUEST_METHOD") == "POST":
            return agent_enroll(environ, start_response)
        if path == "/healthz":
            status, report = health(deps, scheduler_running, chats)
            return reply(start_response, status, json.dumps(report).encode(), "application/json")
        if path == "/metrics":
            deps.refresh_gauges()
            exposition = deps.metrics.exposition(deps.work.metrics() if deps.work is not None else None)
            return reply(start_response, 200, exposition, "text/plain; version=0.0.4")
        return reply(start_response, 404, b"not found")

    return wsgi


def _board(deps: Deps, doors: Sequence[FrontDoor]) -> Callable[..., Iterable[bytes]]:
    """/board/<token>: the board a link names (bot/board/page.py), owners named as their chat names them."""
    import time

    from bot.board.page import board_app, remembered
    from bot.server.chats import Chats

    return board_app(deps, remembered(Chats([door.wing() for door in doors]).names, time.monotonic))


ENROLL_MAX_BYTES = 256 * 1024  # a box's name and up to 1024 cards


def _enroll_endpoint(deps: Deps) -> Callable[..., Iterable[bytes]]:
    """POST /api/enroll (enroll.py): the token checked from the header, then the body read and the box kept."""
    enrollments = Enrollments(deps.store)

    def agent_enroll(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if too_large(environ, ENROLL_MAX_BYTES):
            return reply(start_response, 413, b'{"error": "an enrollment body is a few kilobytes"}', "application/json")
        try:
            found = enroll.identify(enrollments, environ.get("HTTP_AUTHORIZATION"), deps.now())
            if isinstance(found, heartbeat.Answer):
                answer = found
            else:
                body = read_body(environ, deps.settings.serve.read_timeout_s)
                answer = enroll.receive(
                    enrollments, found, body, deps.now(), offers=deps.gpu_offers, currency=deps.settings.files.currency
                )
        except BodyTimeout as exc:
            answer = heartbeat.Answer(408, {"error": str(exc)})
        except (StoreBusy, StoreUnavailable) as exc:
            log.warning("enrollment not kept: the state database is %s", type(exc).__name__)
            answer = heartbeat.Answer(503, {"error": "the state database is busy or down: enroll again"})
        return reply(start_response, answer.status, heartbeat.encode(answer), "application/json")

    return agent_enroll


def build_server(
    deps: Deps,
    host: str,
    port: int,
    *,
    doors: Sequence[FrontDoor] = (),
    scheduler_running: Callable[[], bool] | None = None,
) -> ThreadingWSGIServer:
    return make_server(
        host,
        port,
        wsgi_app(deps, doors, scheduler_running),
        server_class=ThreadingWSGIServer,
        handler_class=QuietHandler,
    )
