"""The acknowledgement without bolt: the HTTP front door keeps a request in the inbox and answers Slack at
once, and bolt does the rest afterwards on one thread of its own, in the order requests came.

Bolt's dispatch (its request object, middleware chain, listener matching and argument injection) cost more
than the rest of an acknowledgement, and every millisecond of it is shared with the work that follows earlier
acknowledgements (one interpreter lock). What Slack needs before the answer is only what the inbox promises:
the request on disk. So every request whose acknowledgement is a plain 200 is kept and answered here; a form
whose answer depends on checking it, Slack's URL checks and anything no route handles still go through bolt
while Slack waits. A stop between the answer and bolt's turn loses nothing: the request is pending in the
inbox and redone at start-up (inbox.replay_pending), as any acknowledged request is.
"""

from __future__ import annotations

import json
import logging
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from slack_bolt import App, BoltRequest, BoltResponse
from slack_bolt.request.internals import parse_body

from bot.deps import Deps, Handoff
from bot.slack.inbox import incomplete, keep, kept_already, kind_of
from bot.slack.routes import ack_now, route_for

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    content_type: str
    kept: str | None = None  # the inbox key: bolt's work is still to do


def _answer(response: BoltResponse) -> Answer:
    kind = (response.headers.get("content-type") or ["text/plain"])[0]
    return Answer(response.status, str(response.body).encode(), kind)


def acknowledge(deps: Deps, raw: bytes, headers: dict[str, str]) -> Answer | None:
    """The answer to a signed request, when the front door can give it; None when bolt must."""
    try:
        body: dict[str, Any] = parse_body(raw.decode("utf-8"), headers.get("content-type"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None  # bolt answers what it cannot read
    if not isinstance(body, dict) or not body or body.get("type") in ("url_verification", "ssl_check"):
        return None
    kind = kind_of(body)
    if incomplete(kind, body):
        return Answer(400, b"a Slack payload without the fields of its kind", "text/plain")
    route = route_for(kind, body)
    if route is None or route.ack is not ack_now:
        return None  # nothing handles it (bolt says 404), or a form checked before it is answered
    kept = keep(deps, kind, body, headers.get("x-slack-signature"))
    if isinstance(kept, BoltResponse):
        return _answer(kept)
    return Answer(200, b"", "text/plain", kept)


def dispatch(app: App, raw: bytes, headers: dict[str, str], key: str) -> None:
    """Bolt's part of a request acknowledged already: its middleware and listener (whose ack goes nowhere),
    which hands the work to the workers."""
    token = kept_already.set(key)
    try:
        response = app.dispatch(BoltRequest(body=raw.decode("utf-8"), headers=dict(headers.items())))
        if response.status >= 400:
            log.warning("bolt refused a request acknowledged already (%s): left pending, redone later", response.status)
    except Exception:
        log.exception("bolt failed on a request acknowledged already: left pending, redone later")
    finally:
        kept_already.reset(token)


def after(
    executor: Executor, app: App, raw: bytes, headers: dict[str, str], answer: Answer, work: Handoff | None = None
) -> None:
    """Queue bolt's part of `answer`'s request, if any is left: on `executor`, or to serve's work process."""
    if answer.kept is None:
        return
    if work is not None:
        work.kept("slack", answer.kept, raw, headers)
    else:
        executor.submit(dispatch, app, raw, headers, answer.kept)
