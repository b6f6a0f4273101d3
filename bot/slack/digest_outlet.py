"""The digest's outlet in Slack: Block Kit (bot/slack/ui/digest.py), posted with message metadata naming the day,
so a sender that takes over a dead claim finds the post in the channel's history (digest_once.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any, cast
from zoneinfo import ZoneInfo

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.deps import Deps
from bot.digest.outlet import Undelivered
from bot.slack import digest_once
from bot.text import Lang, t
from rules.digest import Digest

# How a digest looks in Slack (bot/slack/ui/digest.py render): the fallback text and the blocks.
Render = Callable[[Digest, Lang, ZoneInfo], tuple[str, list[dict[str, Any]]]]


class SlackOutlet:
    pace_s: float | None = None  # GPU_ADVISOR_REMIND_PACE_S: Slack takes about one message a second

    def __init__(self, client: WebClient, render: Render) -> None:
        self.client, self.render = client, render

    def compose(self, digest: Digest | None, lang: Lang, zone: ZoneInfo) -> tuple[str, list[dict[str, Any]]]:
        return self.render(digest, lang, zone) if digest is not None else (t("digest.all_clear", lang), [])

    def post(self, channel: str, composed: object, day: date) -> str:
        text, blocks = cast(tuple[str, list[dict[str, Any]]], composed)
        try:
            answer = self.client.chat_postMessage(
                channel=channel,
                text=text,
                blocks=blocks or None,
                unfurl_links=False,
                metadata=digest_once.metadata(day),
            )
        except SlackApiError as exc:
            unknown = getattr(exc.response, "status_code", 200) >= 500  # Slack may have it
            raise Undelivered(str(exc.response.get("error", "unknown")), unknown=unknown) from exc
        except OSError as exc:  # a timeout or a reset: whether Slack has the post is unknown
            raise Undelivered(type(exc).__name__, unknown=True) from exc
        return str(answer.get("ts", ""))

    def posted_before(self, channel: str, day: date, zone: ZoneInfo) -> str | None:
        return digest_once.posted_before(self.client, channel, day, zone)


def slack_outlets(deps: Deps, client: WebClient, render: Render) -> Callable[[str], SlackOutlet]:
    """Each workspace's outlet: its own installation's client (OAuth), else `client`. LookupError: uninstalled."""
    return lambda team: SlackOutlet(deps.client_of(team, client), render)
