"""The table of Slack listeners: what each command, button, form and event does, in one place.

Every row names what Slack sends (a kind and an id), the handler that does the work, and the
acknowledgement. register() wires the table into the bolt app; the inbox's replay (inbox.py) finds
the same handler for a request acknowledged before a crash. Handlers are plain functions
`handler(deps, request)` in bot/slack/listeners/, so a test can call one directly.

The acknowledgement runs in the request thread (every ack is trivial, and the request is already
in the inbox); the handler runs afterwards on a pool of its own (not as a bolt lazy listener, which
deep-copies every request on the acknowledgement's path).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from slack_bolt import Ack, App, BoltContext
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.app.buttons import BUTTONS
from bot.deps import Deps
from bot.logs import about
from bot.slack import press
from bot.slack.ids import COMMAND, Action, Callback
from bot.slack.listeners import commands, profile_form, thread, tracking
from bot.slack.replies import lang_for, report
from bot.slack.request import SlackRequest
from bot.slack.retries import unreachable

log = logging.getLogger(__name__)
Handler = Callable[[Deps, SlackRequest], None]
AckHandler = Callable[[Deps, Ack, SlackRequest], None]


class Kind(StrEnum):
    COMMAND = "command"
    ACTION = "action"
    VIEW = "view"
    EVENT = "event"


def ack_now(_deps: Deps, ack: Ack, _request: SlackRequest) -> None:
    ack()


@dataclass(frozen=True)
class Route:
    kind: Kind
    match: str | re.Pattern[str]  # the command, action_id, callback_id or event type
    handler: Handler
    what: str  # what it does, for the reader
    ack: AckHandler = ack_now
    slow: Callable[[SlackRequest], bool] | None = None  # work that may take long (a capture's download)

    def matches(self, value: str) -> bool:
        return bool(self.match.fullmatch(value)) if isinstance(self.match, re.Pattern) else self.match == value


# every button the core's table answers (bot/app/buttons.py): each usual answer is its own action id, answer:<n>
BUTTON = re.compile("|".join([rf"{Action.ANSWER}:\d+", *(re.escape(action) for action in BUTTONS)]))

ROUTES: tuple[Route, ...] = (
    Route(Kind.COMMAND, COMMAND, commands.on_command, "/gpu-advise: start a profile, or a sub-command"),
    Route(Kind.ACTION, BUTTON, press.on_button, "a button: what it does is the core's table (bot/app/buttons.py)"),
    Route(
        Kind.VIEW,
        Callback.TRACK_FORM,
        tracking.on_track_form,
        "the track form submitted: track the instance",
        ack=tracking.check_track_form,
    ),
    Route(
        Kind.VIEW,
        Callback.PROFILE_FORM,
        profile_form.on_form,
        "the profile form submitted: the recommendation",
        ack=profile_form.check_form,
    ),
    Route(
        Kind.EVENT,
        "message",
        thread.on_message,
        "a reply typed in a profile's thread, or a capture uploaded",
        slow=thread.is_upload,
    ),
    Route(Kind.EVENT, "app_home_opened", thread.on_home, "App Home opened: recent advice and price sources"),
    Route(Kind.EVENT, "app_uninstalled", thread.on_uninstalled, "the app was uninstalled: forget the tokens"),
    Route(Kind.EVENT, "tokens_revoked", thread.on_uninstalled, "the bot token was revoked: forget the tokens"),
)


# each kind of route as the inbox records its requests (inbox.kind_of)
INBOX_KIND = {Kind.COMMAND: "command", Kind.EVENT: "event", Kind.VIEW: "view_submission", Kind.ACTION: "block_actions"}
SLACK_KINDS = frozenset(INBOX_KIND.values())  # the inbox's kinds of Slack's requests (another chat keeps its own)


def route_for(kind: str, body: dict[str, Any]) -> Route | None:
    """The route of a kept request (`kind` as the inbox records it), or None when nothing handles it."""
    if kind == "command":
        value = str(body.get("command", ""))
    elif kind == "event":
        value = str((body.get("event") or {}).get("type", ""))
    elif kind == "view_submission":
        value = str((body.get("view") or {}).get("callback_id", ""))
    elif kind == "block_actions":
        value = str((body.get("actions") or [{}])[0].get("action_id", ""))
    else:
        return None
    return next((r for r in ROUTES if INBOX_KIND[r.kind] == kind and r.matches(value)), None)


def run(handler: Handler, deps: Deps, request: SlackRequest) -> None:
    """The one place a handler's work ends. When Slack could not be reached, the inbox item stays
    pending and the work is redone later (inbox.redo_stalled); any other error is logged with an id
    the user is told, and the item is done (a request that fails on its own is not retried forever)."""
    with about(short_id(request.inbox_key), request.team):
        _run(handler, deps, request)


def short_id(inbox_key: str | None) -> str:
    """A request id for log lines: the inbox key's hash, or '-'."""
    return inbox_key.split(":")[-1][:12] if inbox_key else "-"


def _run(handler: Handler, deps: Deps, request: SlackRequest) -> None:
    try:
        handler(deps, request)
    except Exception as exc:
        if isinstance(exc, SlackApiError):
            method = str(getattr(exc.response, "api_url", "")).rstrip("/").rsplit("/", 1)[-1] or "unknown"
            deps.metrics.slack_errors.labels(method, str(exc.response.get("error"))).inc()
        if unreachable(exc):
            log.warning(
                "Slack could not be reached for %s; the work will be redone: %s", request.inbox_key, type(exc).__name__
            )
            return
        user = request.user
        lang = lang_for(request.client, deps, user) if user else deps.settings.files.lang
        report(exc, request.client, channel=request.channel, user=user, lang=lang)
    if request.inbox_key:
        deps.inbox.done(request.inbox_key)


def start(route: Route, deps: Deps, request: SlackRequest, workers: Executor) -> None:
    """Hand a request's work to `workers`, or to deps.slow_work when it may take long."""
    slow = route.slow is not None and route.slow(request)
    (deps.slow_work if slow else workers).submit(run, route.handler, deps, request)


def _listener(route: Route, deps: Deps, workers: Executor) -> Callable[..., None]:
    """Acknowledge, then hand the work to `workers` (captures to deps.slow_work, so the threads that answer
    people stay free). Not bolt's lazy listeners: those deep-copy each request before the acknowledgement
    goes out, and the request is already kept in the inbox, which is what makes the work survive a stop."""

    def listener(ack: Ack, body: dict[str, Any], client: WebClient, context: BoltContext) -> None:
        request = SlackRequest(body, client, context.get("inbox_key"))
        route.ack(deps, ack, request)
        if deps.work is not None and request.inbox_key:  # serve's work process does it
            deps.work.run(request.inbox_key, INBOX_KIND[route.kind], body)
            return
        start(route, deps, request, workers)

    listener.__name__ = route.handler.__name__
    return listener


def register(app: App, deps: Deps, workers: Executor) -> None:
    """Wire every route into `app`; the work after each acknowledgement runs on `workers`."""
    for route in ROUTES:
        match = route.match.pattern if isinstance(route.match, re.Pattern) else str(route.match)
        target = re.compile(f"^{match}$") if isinstance(route.match, re.Pattern) else match
        listen = {Kind.COMMAND: app.command, Kind.ACTION: app.action, Kind.VIEW: app.view, Kind.EVENT: app.event}[
            route.kind
        ]
        listen(target)(_listener(route, deps, workers))
