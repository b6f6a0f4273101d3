"""The front door of /slack/events: size, signature and shape are checked before bolt sees a request.

Nothing is said to anyone about a request that did not verify: it gets 401 and nothing else happens
(bolt's own check would crash on a timestamp that is not a number, and its error handler would then
post to whoever the unsigned body names). A body above the size limit is refused with 413 before it
is read; a signed body that is not UTF-8, or whose JSON does not parse, gets 400.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs

from slack_sdk.signature import SignatureVerifier

MAX_AGE_S = 60 * 5  # Slack's own window for the request timestamp


@dataclass(frozen=True)
class Verdict:
    status: int  # 200: let it in
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status == 200


def _timestamp(value: str | None, now: float) -> bool:
    return value is not None and value.isdigit() and abs(now - int(value)) <= MAX_AGE_S


SIGNATURE = re.compile(r"v0=[0-9a-f]{64}")


def claims_signature(environ: dict[str, Any], now: float | None = None) -> bool:
    """Do the headers carry Slack's signature with a timestamp inside its window? (Claimed, not checked: the body
    is needed for that.) Such a request waits for a body slot only behind others that claim as much."""
    stamp = environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP")
    signature = str(environ.get("HTTP_X_SLACK_SIGNATURE") or "")
    return _timestamp(stamp, time.time() if now is None else now) and SIGNATURE.fullmatch(signature) is not None


MAX_DEPTH = 64  # Slack's own payloads nest a dozen levels; bolt copies each request recursively


def _depth(value: Any) -> int:
    """How deeply `value` nests (without recursing, so any depth can be measured)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        deepest = max(deepest, level)
        if isinstance(item, dict):
            stack += [(v, level + 1) for v in item.values()]
        elif isinstance(item, list):
            stack += [(v, level + 1) for v in item]
    return deepest


def _fields(data: Any) -> str | None:
    """Why a parsed body is not the shape of a Slack event or interaction, or None."""
    if not isinstance(data, dict):
        return "the body is not a JSON object"
    if _depth(data) > MAX_DEPTH:
        return f"the JSON nests more than {MAX_DEPTH} levels"
    if "event" in data and not isinstance(data["event"], dict):
        return "event is not an object"
    if "view" in data and not isinstance(data["view"], dict):
        return "view is not an object"
    actions = data.get("actions", [])
    if not isinstance(actions, list) or not all(
        isinstance(a, dict) and isinstance(a.get("action_id", ""), str) for a in actions
    ):
        return "actions is not a list of objects with a text action_id"
    return None


def _shape(body: bytes, content_type: str) -> str | None:
    """Why the body cannot be a Slack request, or None."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "the body is not UTF-8"
    try:
        if "json" in content_type:
            return _fields(json.loads(text or "{}"))
        if "payload" in (form := parse_qs(text)):
            return _fields(json.loads(form["payload"][0]))
    except (ValueError, RecursionError):  # RecursionError: JSON nested past what the parser takes
        return "the JSON does not parse"
    return None


def check(body: bytes, headers: dict[str, str], secret: str, *, now: float | None = None) -> Verdict:
    """401 unless the signature over the body is right and its timestamp is a number within five minutes;
    400 for a signed body of the wrong shape."""
    at = time.time() if now is None else now
    stamp = headers.get("x-slack-request-timestamp")
    if not _timestamp(stamp, at):
        return Verdict(401, "missing, malformed or stale request timestamp")
    try:
        body.decode("utf-8")  # Slack signs UTF-8 text; slack_sdk's verifier cannot read anything else
    except UnicodeDecodeError:
        return Verdict(400, "the body is not UTF-8")
    verifier = SignatureVerifier(secret)
    if not verifier.is_valid(body, str(stamp), headers.get("x-slack-signature", "")):
        return Verdict(401, "bad signature")
    problem = _shape(body, headers.get("content-type", ""))
    return Verdict(400, problem) if problem else Verdict(200)
