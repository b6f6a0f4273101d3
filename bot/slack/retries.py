"""How the Web API client rides out Slack's bad moments: 429 after Retry-After, 5xx and dropped
connections with back-off (slack_sdk's retry handlers), each retry counted in the metrics; and what counts as
Slack unreachable once they are spent (the work is then left to be redone)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry import RetryHandler
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.http_retry.builtin_interval_calculators import BackoffRetryIntervalCalculator
from slack_sdk.http_retry.jitter import Jitter

from bot.metrics import Metrics


class _Counted:
    """Counts each retry it decides on, by reason, then lets slack_sdk's handler wait as it does.

    The count goes through a plain function, not the Metrics object: bolt deep-copies the client for
    its lazy listeners, and a function is copied as it is while the metrics' locks cannot be."""

    reason = ""
    on_retry: Callable[[str], None] | None = None

    def prepare_for_next_attempt(self, **kwargs: Any) -> None:
        if self.on_retry is not None:
            self.on_retry(self.reason)
        super().prepare_for_next_attempt(**kwargs)  # type: ignore[misc]


class RateLimited(_Counted, RateLimitErrorRetryHandler):
    reason = "rate_limited"


class ServerError(_Counted, ServerErrorRetryHandler):
    """Every 5xx, not only 500 and 503."""

    reason = "server_error"

    def _can_retry(self, *, response: Any = None, **_: Any) -> bool:
        return response is not None and response.status_code >= 500


class ConnectionDropped(_Counted, ConnectionErrorRetryHandler):
    reason = "connection"


class ScaledJitter(Jitter):
    """Adds up to the interval itself, so a back-off of b waits b..2b, 2b..4b, ...

    slack_sdk's own RandomJitter adds 0-1 s whatever the back-off, so a back-off of 10 ms still
    waited up to a second a retry, and `slack_retry_backoff_s` did not mean what it says."""

    def __init__(self, draw: Callable[[], float] | None = None) -> None:
        # its own generator: a retry on a listener's thread does not move the process's `random` under other code
        # that seeds or replays it (hypothesis warns of exactly that when a draw moves it)
        self.draw = draw or random.Random().random

    def recalculate(self, duration: float) -> float:
        return duration * (1.0 + self.draw())


def retry_handlers(metrics: Metrics | None = None, *, backoff_s: float = 0.5) -> list[RetryHandler]:
    """429: up to 5 retries after Retry-After; 5xx: 3 with exponential back-off; connection errors: 2."""
    interval = BackoffRetryIntervalCalculator(backoff_factor=backoff_s, jitter=ScaledJitter())
    handlers: list[RetryHandler] = [
        RateLimited(max_retry_count=5),
        ServerError(max_retry_count=3, interval_calculator=interval),
        ConnectionDropped(max_retry_count=2, interval_calculator=interval),
    ]
    if metrics is not None:
        retries = metrics.slack_retries

        def count(reason: str) -> None:
            retries.labels(reason).inc()

        for handler in handlers:
            handler.on_retry = count  # type: ignore[attr-defined]
    return handlers


def unreachable(exc: BaseException) -> bool:
    """Slack could not be reached, even after the client's retries (5xx, 429, a dropped connection)."""
    if isinstance(exc, SlackApiError):
        status = getattr(exc.response, "status_code", 200)
        return status == 429 or status >= 500
    return isinstance(exc, OSError)  # URLError, timeouts and resets are OSErrors
