"""Exactly one digest a channel a local day, also across a kill at any point. Each digest is posted with
message metadata naming its day; a sender that takes over a dead or uncertain claim first looks in the
channel's history of that day (conversations.history, with the channels:history and groups:history
scopes) and, when the digest is there, records it instead of posting a second copy."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

from slack_sdk import WebClient
from slack_sdk.web import SlackResponse

from bot.slack.keyed_posts import first_marked

EVENT_TYPE = "gpu_advisor_digest"


def metadata(day: date) -> dict[str, Any]:
    return {"event_type": EVENT_TYPE, "event_payload": {"date": day.isoformat()}}


def posted_before(client: WebClient, channel: str, day: date, zone: ZoneInfo) -> str | None:
    """The ts of `day`'s digest already in `channel`, if Slack has it; None when it has not (or the
    history cannot be read: then a second copy is the lesser harm than none, and it is logged)."""
    oldest = datetime.combine(day, time(0), tzinfo=zone).timestamp()

    def read(cursor: str | None) -> SlackResponse:
        return client.conversations_history(
            channel=channel, oldest=f"{oldest:.6f}", limit=200, include_all_metadata=True, cursor=cursor
        )

    def marked(meta: Mapping[str, Any]) -> bool:
        return meta.get("event_type") == EVENT_TYPE and (meta.get("event_payload") or {}).get("date") == day.isoformat()

    return first_marked(read, marked, f"the history of {channel} (the digest)")
