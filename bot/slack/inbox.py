"""The inbox: every Slack request is written to the state database before it is acknowledged, and
marked done when its work ends, so a crash between the two loses nothing: replay_pending() does the
work on the next start. Slack's retries of an event carry the same event_id and are processed once.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime, timedelta
from typing import Any

from slack_bolt import BoltContext, BoltRequest, BoltResponse
from slack_sdk import WebClient

from bot.deps import Deps
from bot.logs import request_id, team_id
from bot.slack.press import CARD_AGAIN_KIND
from bot.slack.request import SlackRequest, team_of
from bot.slack.retries import unreachable
from bot.slack.routes import SLACK_KINDS, Route, route_for, run, short_id
from bot.state import StoreBusy, StoreUnavailable
from bot.state.inbox import KEPT
from bot.text import Lang, t

log = logging.getLogger(__name__)

# Work older than this is not redone after a restart (response URLs last 30 minutes).
REPLAY_WINDOW = timedelta(minutes=30)


def kind_of(body: dict[str, Any]) -> str:
    if body.get("type") == "event_callback":
        return "event"
    if "command" in body:
        return "command"
    return str(body.get("type") or "unknown")


def inbox_key(body: dict[str, Any], signature: str | None = None) -> str:
    """Events by their event_id (Slack's retries carry the same one); anything else by its signature,
    which is unique to one sending (a replayed request repeats it), else by its content."""
    kind = kind_of(body)
    if kind == "event" and body.get("event_id"):
        return f"event:{body['event_id']}"
    basis = signature or json.dumps(body, sort_keys=True, ensure_ascii=False)
    return f"{kind}:{hashlib.sha256(basis.encode()).hexdigest()[:32]}"


def incomplete(kind: str, body: dict[str, Any]) -> bool:
    """A payload without the fields every payload of its kind carries (bolt would fail on it)."""
    if kind == "block_actions":
        actions = body.get("actions")
        return (
            not isinstance(actions, list)
            or not actions
            or not all(isinstance(a, dict) and a.get("action_id") and a.get("type") for a in actions)
        )
    if kind == "view_submission":
        return not isinstance(body.get("view"), dict) or not body["view"].get("callback_id")
    if kind == "event":
        return not isinstance(body.get("event"), dict) or not body["event"].get("type")
    return False


def busy(kind: str, lang: Lang) -> BoltResponse:
    """What Slack is told when the request could not be kept in time: nothing is carried out. A command
    gets an ephemeral "try again" (its acknowledgement's text); anything else 503, which Slack retries
    for events and shows as a failed click for buttons."""
    if kind == "command":
        text = t("slack.busy", lang)
        return BoltResponse(
            status=200,
            body=json.dumps({"response_type": "ephemeral", "text": text}),
            headers={"content-type": "application/json"},
        )
    return BoltResponse(status=503, body="busy: try again")


def unavailable(exc: StoreUnavailable) -> BoltResponse:
    """The state database is down (PostgreSQL stopped, a full disk): nothing can be kept, so nothing is
    carried out. 503 with the reason: Slack retries events, and shows the failure for commands and clicks."""
    return BoltResponse(status=503, body=f"the state database is unavailable ({exc.reason}): try again later")


# The inbox key of a request the HTTP front door kept and acknowledged itself (bot/slack/fast_ack.py), set
# while bolt does its work afterwards: the middleware then lets it through without keeping it again.
kept_already: ContextVar[str | None] = ContextVar("kept_already", default=None)


def keep(deps: Deps, kind: str, body: dict[str, Any], signature: str | None) -> str | BoltResponse:
    """Keep a request in the inbox: its key, or the response that ends it here (busy, the database down,
    or seen before: a retried event, a replayed command or click, answered 200 and not carried out again)."""
    key = inbox_key(body, signature)
    request_id.set(short_id(key))
    team_id.set(team_of(body) or "-")
    deps.metrics.requests.labels(kind).inc()
    deps.metrics.chat_requests.labels("slack", kind).inc()
    try:
        kept = deps.keeper.enqueue(key, kind, body, budget_s=deps.settings.serve.ack_db_budget_s)
    except StoreBusy:
        deps.metrics.refused.labels("busy").inc()
        log.warning(
            "the state database was busy past %.1f s: %s answered busy", deps.settings.serve.ack_db_budget_s, kind
        )
        return busy(kind, deps.settings.files.lang)
    except StoreUnavailable as exc:
        deps.metrics.refused.labels("503").inc()
        log.error("the state database is down: %s answered 503 (%s)", kind, exc.reason)
        return unavailable(exc)
    return key if kept else BoltResponse(status=200, body="")


def keep_in_inbox(deps: Deps) -> Callable[..., BoltResponse | None]:
    """A bolt middleware: keep the request, then let the listeners run. A request seen before is answered
    200 and not carried out again; a request no route handles is not kept (bolt answers it 404); a request
    the front door kept already goes straight to its listener."""

    def middleware(
        body: dict[str, Any], context: BoltContext, req: BoltRequest, next: Callable[[], None]
    ) -> BoltResponse | None:
        preset = kept_already.get()
        if preset is not None:
            context["inbox_key"] = preset
            next()
            return None
        kind = kind_of(body)
        if incomplete(kind, body):
            return BoltResponse(status=400, body="a Slack payload without the fields of its kind")
        if not body or body.get("type") in ("url_verification", "ssl_check") or route_for(kind, body) is None:
            next()
            return None
        signatures = req.headers.get("x-slack-signature") or []
        kept = keep(deps, kind, body, signatures[0] if signatures else None)
        if isinstance(kept, BoltResponse):
            return kept
        context["inbox_key"] = kept
        next()
        return None

    return middleware


def request_for(
    deps: Deps, client: WebClient, key: str, kind: str, body: dict[str, Any]
) -> tuple[Route, SlackRequest] | None:
    """A kept request's route, and the request with its workspace's client; None, and the item done, when
    nothing handles it any more or its workspace uninstalled the app since (nothing can be said there)."""
    route = route_for(kind, body)
    try:
        team_client = deps.client_of(team_of(body), client) if route is not None else None
    except LookupError:
        team_client = None
    if route is None or team_client is None:
        deps.inbox.done(key)
        return None
    return route, SlackRequest(body, team_client, key)


def redo_stalled(
    deps: Deps, client: WebClient, min_age: timedelta | None = None, first: Callable[[str], bool] | None = None
) -> int:
    """Redo the work of requests left pending because Slack could not be reached, or because the replica
    that took them stopped; run every minute by serve's scheduler. Each item is claimed first, so with
    several replicas one of them redoes it. Returns how many were redone."""
    stalled = timedelta(seconds=deps.settings.serve.redo_after_s)  # pending this long: Slack failed, or its taker died
    redone = 0
    for key, kind, body in deps.inbox.pending(REPLAY_WINDOW, stalled if min_age is None else min_age):
        if kind not in SLACK_KINDS and kind != CARD_AGAIN_KIND:
            continue  # another chat's callbacks are redone by its own front door
        if first is not None and not first(key):
            continue  # this process started it already (`first`: whether it is the first time)
        if not deps.inbox.claim(key, stalled):
            continue  # another replica took it moments ago and is doing it
        if kind == CARD_AGAIN_KIND:
            update_again(deps, client, key, body)
            redone += 1
            continue
        found = request_for(deps, client, key, kind, body)
        if found is None:
            continue
        log.info("redoing %s: acknowledged, its work not done (a stop, or Slack unreachable)", key)
        run(found[0].handler, deps, found[1])
        redone += 1
    return redone


def update_again(deps: Deps, client: WebClient, key: str, body: dict[str, Any]) -> None:
    """A pressed digest message Slack could not be reached to update, updated now (bot/app/card_again.py); left
    pending while Slack still cannot be reached, done once made or when it never can be (the message deleted,
    the app uninstalled from its workspace)."""
    from bot.app import card_again
    from bot.slack.chat import SlackChat

    try:
        team_client = deps.client_of(str(body["team"]), client)
    except LookupError:
        log.info("%s not updated: its workspace uninstalled the app", key)
        deps.inbox.done(key)
        return
    try:
        card_again.send(deps, SlackChat(team_client, deps), body)
    except Exception as exc:
        if unreachable(exc):
            log.warning("Slack could not be reached to update %s; it is made again later", key)
            return
        log.exception("the update of %s failed for good", key)
    deps.inbox.done(key)


def replay_pending(
    deps: Deps, client: WebClient, received_before: datetime | None = None, first: Callable[[str], bool] | None = None
) -> int:
    """At start-up: do the work of requests acknowledged before a crash or restart (and forget old
    finished ones); with `received_before`, only of requests kept before then (those after it reach this
    process another way). Returns how many were redone."""
    deps.inbox.prune(KEPT)
    if received_before is None:
        return redo_stalled(deps, client, timedelta(0))
    since = max(timedelta(0), deps.store.now() - received_before)
    return redo_stalled(deps, client, since, first)
