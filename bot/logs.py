"""The log lines of serve: text or one JSON object a line, each with the request id and the workspace.

The request id of a Slack request is its inbox key, so the lines of its acknowledgement, of its work
and of a redo after a restart all carry the same id. Tokens and secrets are never logged: the
settings hold them as SecretStr, and slack_sdk redacts the Authorization header in its debug lines.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pythonjsonlogger.json import JsonFormatter

request_id: ContextVar[str] = ContextVar("request_id", default="-")
workspace: ContextVar[str] = ContextVar("workspace", default="-")

TEXT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s %(workspace)s] %(message)s"
JSON_FIELDS = "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s %(workspace)s"


class RequestContext(logging.Filter):
    """Adds the current request id and workspace to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        record.workspace = workspace.get()
        return True


def configure(level: str = "INFO", fmt: str = "text") -> None:
    """Route every logger through one handler on stderr, as text or JSON lines."""
    handler = logging.StreamHandler()
    handler.addFilter(RequestContext())
    if fmt == "json":
        handler.setFormatter(JsonFormatter(JSON_FIELDS, rename_fields={"asctime": "time", "levelname": "level",
                                                                        "name": "logger"}))
    else:
        handler.setFormatter(logging.Formatter(TEXT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


@contextmanager
def about(request: str, team: str) -> Iterator[None]:
    """Log lines inside are about this request and this workspace."""
    tokens = request_id.set(request), workspace.set(team or "-")
    try:
        yield
    finally:
        request_id.reset(tokens[0])
        workspace.reset(tokens[1])
