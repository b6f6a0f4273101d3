"""The digest's buttons: Released, Still needed, Snooze 1 week; for storage, Deleted and Keep.

Only the item's owner or a workspace admin (users.info `is_admin`) may answer; anyone else gets an
ephemeral refusal and nothing changes. The answer replaces the item in the digest message; releasing
an instance that leaves storage asks, in the same message, whether to delete that too.
"""

from __future__ import annotations

import logging
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.chat.digest_messages import digest_header
from bot.slack.request import SlackRequest
from bot.slack.ui.digest import header_block
from bot.text import Lang

log = logging.getLogger(__name__)


def member_of(client: WebClient, user: str, team: str) -> dict[str, Any] | None:
    """`user` as users.info says, when they belong to workspace `team` (not a guest from another one in a
    shared channel or a Grid org); None otherwise, or when Slack does not say."""
    try:
        found = client.users_info(user=user).get("user") or {}
    except SlackApiError as exc:
        log.warning("users.info for %s failed: %s; treated as not of this workspace", user, exc.response.get("error"))
        return None
    return dict(found) if found.get("team_id") == team else None


def is_admin(client: WebClient, user: str, team: str) -> bool:
    """Is `user` an admin or owner of workspace `team`? An admin of another workspace has no say over this
    workspace's items."""
    found = member_of(client, user, team)
    return found is not None and bool(found.get("is_admin") or found.get("is_owner"))


def ephemeral(request: SlackRequest, user: str, text: str) -> None:
    request.client.chat_postEphemeral(channel=request.channel or user, user=user, text=text)


def message_ts(request: SlackRequest) -> str:
    """The pressed message's ts (the message's own, else the container's), "" when the press names none."""
    message = request.body.get("message") or {}
    return str(message.get("ts") or (request.body.get("container") or {}).get("message_ts") or "")


def replace_item(request: SlackRequest, kind: str, name: str, new: list[dict[str, Any]], lang: Lang) -> None:
    """Put `new` where the item's two blocks were in the digest message, and count what is left in the
    header (in the message's language, `lang`)."""
    message = request.body.get("message") or {}
    ts = message_ts(request)
    if not ts or not request.channel or not message.get("blocks"):
        return
    out: list[dict[str, Any]] = []
    for block in message["blocks"]:
        if block.get("block_id") == f"item:{kind}:{name}":
            out += new
        elif block.get("block_id") != f"act:{kind}:{name}":
            out.append(block)
    left = sum(1 for b in out if str(b.get("block_id", "")).startswith("item:"))
    out = [header_block(left, lang) if b.get("type") == "header" else b for b in out]
    request.client.chat_update(channel=request.channel, ts=ts, blocks=out, text=digest_header(left, lang))
