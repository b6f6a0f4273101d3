"""POST /slack/events: Slack's front door over HTTP. Size, body deadline and Slack's signature are checked before
anything is read into the app (verify.py, bot/web/bodies.py); a request that does not verify gets 401 and nothing
else happens. Then it is kept and answered here (fast_ack.py) or by bolt."""

from __future__ import annotations

import io
import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler

from bot.deps import Deps
from bot.slack import fast_ack
from bot.slack.verify import check, claims_signature
from bot.web.answer import StartResponse, headers_of, reply
from bot.web.bodies import BodyTimeout, PendingBodies, TooManyPending, read_body, too_large

EVENTS_PATH = "/slack/events"
log = logging.getLogger(__name__)


def _unauthenticated_body(environ: dict[str, Any], deps: Deps, pending: PendingBodies) -> bytes | tuple[int, bytes]:
    """A Slack request's body, or the (status, reason) refusing it: 503 past the cap of bodies received
    at once before their signature is checked (signed-looking requests counted apart), 408 past the deadline."""
    try:
        with pending.slot(signed=claims_signature(environ)):
            return read_body(environ, deps.settings.serve.read_timeout_s)
    except TooManyPending:
        deps.metrics.refused.labels("503").inc()
        return 503, b"too many requests being received at once: try again"
    except BodyTimeout as exc:
        deps.metrics.refused.labels("408").inc()
        log.info("refused a request to %s: %s", EVENTS_PATH, exc)
        return 408, str(exc).encode()


def events_endpoint(app: App, deps: Deps, handler: SlackRequestHandler) -> Callable[..., Iterable[bytes]]:
    """POST /slack/events: size, body deadline and signature checked first; then kept and answered here
    (bot/slack/fast_ack.py) or by bolt."""
    secret = deps.settings.slack.signing_secret.get_secret_value() if deps.settings.slack.signing_secret else ""
    limit = deps.settings.serve.max_body_bytes
    pending = PendingBodies(deps.settings.serve.max_pending_bodies)
    # bolt's part of requests acknowledged by the front door, one at a time in the order they came
    dispatcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dispatch")

    def slack_events(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        with deps.store.acks.acknowledging():  # the work of earlier requests waits at its next database step
            return acknowledge(environ, start_response)

    def acknowledge(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        if too_large(environ, limit):
            deps.metrics.refused.labels("413").inc()
            return reply(start_response, 413, f"bodies above {limit} bytes are refused".encode())
        body = _unauthenticated_body(environ, deps, pending)
        if isinstance(body, tuple):
            return reply(start_response, *body)
        headers = headers_of(environ)
        verdict = check(body, headers, secret)
        if not verdict.ok:
            deps.metrics.refused.labels(str(verdict.status)).inc()
            log.info("refused a request to %s: %s (%s)", EVENTS_PATH, verdict.status, verdict.reason)
            return reply(start_response, verdict.status, verdict.reason.encode())
        answer = fast_ack.acknowledge(deps, body, headers)
        if answer is not None:  # kept and answered here; bolt's part follows on its own thread
            fast_ack.after(dispatcher, app, body, headers, answer, deps.work)
            deps.metrics.ack_seconds.observe(time.perf_counter() - started)
            return reply(start_response, answer.status, answer.body, answer.content_type)
        environ["wsgi.input"] = io.BytesIO(body)
        try:
            return handler(environ, start_response)
        except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
            # Bolt reads fields every Slack payload of a kind carries; a signed body without them makes it
            # fail before any listener or the inbox sees it. Nothing was done: say so, as a client error.
            deps.metrics.refused.labels("400").inc()
            log.warning("a signed request bolt could not read: %s: %s", type(exc).__name__, exc)
            return reply(start_response, 400, b"not a Slack payload this app can read")
        finally:
            deps.metrics.ack_seconds.observe(time.perf_counter() - started)

    return slack_events
