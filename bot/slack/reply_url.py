"""Replies through a request's `response_url`, retried like Web API calls. Bolt's `respond` sends once and
returns whatever came back, so a 500 lost the reply without a word, a heartbeat token included. Here
429, 5xx and dropped connections are retried with the client's handlers; a reply that still fails raises
ReplyUndelivered (an OSError: Slack unreachable), which leaves the request's work pending to be redone."""

from __future__ import annotations

from typing import Any

from slack_bolt.context.respond import Respond
from slack_sdk.http_retry import RetryHandler
from slack_sdk.webhook import WebhookClient, WebhookResponse

from bot.slack.markup import in_slack


class ReplyUndelivered(OSError):
    """Slack answered a response_url reply with 429 or 5xx even after the retries."""


class ReplyRefused(RuntimeError):
    """Slack refused a response_url reply for good (4xx: expired, used up, or malformed)."""


class Reply(Respond):
    def __init__(self, *, response_url: str | None, retry_handlers: list[RetryHandler]) -> None:
        super().__init__(response_url=response_url)
        self.retry_handlers = retry_handlers

    def __call__(self, text: str | dict[str, Any] = "", **fields: Any) -> WebhookResponse:  # type: ignore[override]
        if self.response_url is None:
            raise ValueError("no response_url to reply to")
        client = WebhookClient(url=self.response_url, retry_handlers=self.retry_handlers)
        text, fields = in_slack(text), in_slack(fields)  # the neutral text's spans in Slack's markup
        answer = client.send_dict(text) if isinstance(text, dict) else client.send(text=text, **fields)
        if answer.status_code == 429 or answer.status_code >= 500:
            raise ReplyUndelivered(f"response_url answered {answer.status_code} after retries")
        if answer.status_code >= 400:
            raise ReplyRefused(f"response_url answered {answer.status_code}: {answer.body[:200]}")
        return answer
