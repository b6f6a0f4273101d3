"""Messages the bot knows again: a post carries message metadata naming it (its key), and a redo that may have
posted already looks for that key in the channel's history or the thread's replies (the channels:history,
groups:history and im:history scopes) before it posts a second copy."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.web import SlackResponse

POST_EVENT = "gpu_advisor_post"
PAGES = 10  # at most 2,000 messages are looked through
log = logging.getLogger(__name__)


def keyed(key: str) -> dict[str, Any]:
    """The metadata of a post named `key`."""
    return {"event_type": POST_EVENT, "event_payload": {"key": key}}


def first_marked(
    read: Callable[[str | None], SlackResponse], marked: Callable[[Mapping[str, Any]], bool], where: str
) -> str | None:
    """The ts of the first message whose metadata is `marked`, reading pages with `read(cursor)`; None when none
    is, or when the messages cannot be read (logged: a second copy is then the lesser harm than none)."""
    cursor: str | None = None
    try:
        for _ in range(PAGES):
            page = read(cursor)
            for message in page.get("messages") or []:
                if marked(message.get("metadata") or {}):
                    return str(message.get("ts"))
            cursor = (page.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                return None
    except SlackApiError as exc:
        log.warning(
            "cannot read the messages of %s (%s): a message may be posted twice", where, exc.response.get("error")
        )
    return None


def posted_in_thread(client: WebClient, channel: str, thread: str, key: str) -> str | None:
    """The ts of the reply named `key` in the thread under `thread`, if Slack has it."""

    def read(cursor: str | None) -> SlackResponse:
        return client.conversations_replies(
            channel=channel, ts=thread, limit=200, include_all_metadata=True, cursor=cursor
        )

    def marked(meta: Mapping[str, Any]) -> bool:
        return meta.get("event_type") == POST_EVENT and (meta.get("event_payload") or {}).get("key") == key

    return first_marked(read, marked, f"thread {thread} of {channel}")
