"""One Slack request as the handlers see it: the payload, the Web API client, and its inbox key."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient

from bot.slack.client import ours
from bot.slack.reply_url import Reply


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def team_of(body: dict[str, Any]) -> str:
    """The workspace a payload comes from ('' when it names none)."""
    team = body.get("team_id") or _dict(body.get("team")).get("id") or _dict(body.get("user")).get("team_id")
    return str(team or "")


@dataclass(frozen=True)
class SlackRequest:
    body: dict[str, Any]
    client: WebClient
    inbox_key: str | None = None  # set when the request was kept in the inbox (replayed after a crash)

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "client", ours(self.client)
        )  # bolt's client for a request is a plain WebClient: texts unrendered

    @property
    def event(self) -> dict[str, Any]:
        return _dict(self.body.get("event"))

    @property
    def user(self) -> str | None:
        """Who sent it: the command's user_id, the clicking or submitting user, or the event's user."""
        user = self.body.get("user_id") or _dict(self.body.get("user")).get("id") or self.event.get("user")
        return str(user) if user else None

    @property
    def channel(self) -> str | None:
        """Where to answer: the command's or action's channel, the event's, or the modal's (its metadata)."""
        channel = (
            self.body.get("channel_id")
            or _dict(self.body.get("channel")).get("id")
            or self.event.get("channel")
            or self._view_channel()
        )
        return str(channel) if channel else None

    @property
    def team(self) -> str:
        return team_of(self.body)

    @property
    def action(self) -> dict[str, Any]:
        """The first action of a block_actions payload (a button press)."""
        actions = self.body.get("actions") or [{}]
        return _dict(actions[0])

    @property
    def respond(self) -> Reply:
        """Reply through the command's response_url (works after a restart too, for 30 minutes), retried
        as the client's Web API calls are; a reply not delivered leaves the work to be redone."""
        return Reply(response_url=self.body.get("response_url"), retry_handlers=self.client.retry_handlers)

    def _view_channel(self) -> Any:
        try:
            return _dict(json.loads(_dict(self.body.get("view")).get("private_metadata") or "{}")).get("ch")
        except ValueError:
            return None
