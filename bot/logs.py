"""The log lines of serve: text or one JSON object a line, each with the request id and the team.

The request id of a Slack request is its inbox key, so the lines of its acknowledgement, of its work
and of a redo after a restart all carry the same id. Tokens and secrets are never logged: the
settings hold them as SecretStr, and every log record passes redact() before a handler sees it: Slack's
token shapes, and each secret the process holds (keep_secret), become [redacted], whoever logs them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from pythonjsonlogger.json import JsonFormatter

request_id: ContextVar[str] = ContextVar("request_id", default="-")
team_id: ContextVar[str] = ContextVar("team", default="-")

TEXT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s %(team)s] %(message)s"
JSON_FIELDS = "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s %(team)s"


class RequestContext(logging.Filter):
    """Adds the current request id and team to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        record.team = team_id.get()
        return True


def configure(level: str = "INFO", fmt: str = "text") -> None:
    """Route every logger through one handler on stderr, as text or JSON lines."""
    handler = logging.StreamHandler()
    handler.addFilter(RequestContext())
    if fmt == "json":
        handler.setFormatter(
            JsonFormatter(JSON_FIELDS, rename_fields={"asctime": "time", "levelname": "level", "name": "logger"})
        )
    else:
        handler.setFormatter(logging.Formatter(TEXT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


# Slack's token shapes (bot, user, app, refresh, configuration): redacted wherever they appear
# Slack's tokens, and Feishu's team, app and user access tokens (t-…, a-…, u-…: "Bearer t-g104…")
# and the request signatures of Alibaba Cloud (ACS3-HMAC-SHA256) and Tencent Cloud (TC3-HMAC-SHA256)
_TOKEN = re.compile(
    r"\b(?:xox[abeoprs]|xapp|xoxe\.xox[bp])-[A-Za-z0-9-]+|\b[tau]-[A-Za-z0-9_-]{20,}|Signature=[0-9a-fA-F]{32,}"
)
_SECRETS: set[str] = set()
_factory = logging.getLogRecordFactory()


def keep_secret(*values: str | None) -> None:
    """Never log these (a signing or client secret, an encryption key, an enrollment or heartbeat token):
    every log record, from any library at any level, has them replaced before any handler sees it."""
    _SECRETS.update(v for v in values if v and len(v) >= 8)
    if logging.getLogRecordFactory() is not _redacting:
        logging.setLogRecordFactory(_redacting)


def redact(text: str) -> str:
    text = _TOKEN.sub("[redacted]", text)
    for secret in tuple(_SECRETS):  # a snapshot: another thread may keep a new secret meanwhile (a region's client)
        if secret in text:
            text = text.replace(secret, "[redacted]")
    return text


def _redacting(*args: Any, **kwargs: Any) -> logging.LogRecord:
    record = _factory(*args, **kwargs)
    try:
        message = record.getMessage()
    except (TypeError, ValueError):  # a record whose arguments do not fit its format: left as it is
        return record
    clean = redact(message)
    if clean != message:
        record.msg, record.args = clean, ()
    return record


@contextmanager
def about(request: str, team: str) -> Iterator[None]:
    """Log lines inside are about this request and this team."""
    tokens = request_id.set(request), team_id.set(team or "-")
    try:
        yield
    finally:
        request_id.reset(tokens[0])
        team_id.reset(tokens[1])
