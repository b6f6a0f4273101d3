"""The inbox: every Slack request is written to the state database before it is acknowledged, and
marked done when its work ends, so a crash between the two loses nothing: replay_pending() does the
work on the next start. Slack's retries of an event carry the same event_id and are processed once.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from slack_bolt import BoltContext, BoltResponse
from slack_sdk import WebClient

from bot.slack.deps import Deps
from bot.slack.request import SlackRequest
from bot.slack.routes import route_for, run

log = logging.getLogger(__name__)

# Work older than this is not redone after a restart (response URLs last 30 minutes).
REPLAY_WINDOW = timedelta(minutes=30)
KEPT = timedelta(days=7)  # finished requests are kept this long (against retries), then pruned at start-up


def kind_of(body: dict[str, Any]) -> str:
    if body.get("type") == "event_callback":
        return "event"
    if "command" in body:
        return "command"
    return str(body.get("type") or "unknown")


def inbox_key(body: dict[str, Any]) -> str:
    kind = kind_of(body)
    if kind == "event" and body.get("event_id"):
        return f"event:{body['event_id']}"  # Slack's retries carry the same id
    digest = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    return f"{kind}:{digest[:32]}"


def keep_in_inbox(deps: Deps) -> Callable[..., BoltResponse | None]:
    """A bolt middleware: keep the request (skip a retried event), then let the listeners run."""

    def middleware(body: dict[str, Any], context: BoltContext, next: Callable[[], None]) -> BoltResponse | None:
        if not body or body.get("type") in ("url_verification", "ssl_check"):
            next()
            return None
        key, kind = inbox_key(body), kind_of(body)
        if not deps.store.enqueue(key, kind, body) and kind == "event":
            return BoltResponse(status=200, body="")  # a retried event: already kept, processed once
        context["inbox_key"] = key
        next()
        return None

    return middleware


def replay_pending(deps: Deps, client: WebClient) -> int:
    """Do the work of requests acknowledged before a crash or restart. Returns how many were redone."""
    deps.store.prune(KEPT)
    redone = 0
    for key, kind, body in deps.store.pending(REPLAY_WINDOW):
        route = route_for(kind, body)
        if route is None:
            deps.store.done(key)
            continue
        log.info("redoing %s acknowledged before the last stop", key)
        run(route.handler, deps, SlackRequest(body, client, key))
        redone += 1
    return redone
