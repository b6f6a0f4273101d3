"""Talking to Slack: the user's language, posting with a DM fallback, telling a user about an error."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.deps import Deps
from bot.slack.ui.blocks import context
from bot.text import Lang, t
from bot.text.spans import channel_ref

log = logging.getLogger(__name__)

# Errors that mean "the bot cannot post here": continue in a DM with the user instead.
CANNOT_POST = {
    "not_in_channel",
    "channel_not_found",
    "is_archived",
    "restricted_action",
    "cannot_dm_bot",
    "restricted_action_read_only_channel",
    "restricted_action_thread_only_channel",
}


def _locale_and_zone(client: WebClient, deps: Deps, user: str) -> tuple[str | None, str | None]:
    """The user's Slack locale and IANA time zone (users.info with include_locale, cached)."""
    cached = deps.users.cached_locale(user, timedelta(hours=deps.settings.slack.locale_cache_hours))
    if cached is None:
        try:
            info = client.users_info(user=user, include_locale=True)
            profile = info.get("user") or {}
            cached = (profile.get("locale"), profile.get("tz"))
            deps.users.cache_locale(user, *cached)
        except (SlackApiError, OSError) as exc:  # OSError: Slack unreachable
            error = exc.response.get("error") if isinstance(exc, SlackApiError) else type(exc).__name__
            log.warning("users.info for %s failed: %s; using the defaults", user, error)
            cached = (None, None)
    return cached


def zone_for(client: WebClient, deps: Deps, user: str) -> str | None:
    """The user's Slack time zone (an IANA name), when Slack knows it."""
    return _locale_and_zone(client, deps, user)[1]


def lang_for(client: WebClient, deps: Deps, user: str) -> Lang:
    """The user's Slack locale (users.info, cached), else the workspace default setting."""
    locale = (_locale_and_zone(client, deps, user)[0] or "").lower()
    if locale.startswith("zh"):
        return Lang.ZH
    if locale.startswith("en"):
        return Lang.EN
    return deps.settings.files.lang


@dataclass(frozen=True)
class Posted:
    channel: str
    ts: str
    moved_because: str | None  # the Slack error that sent us to a DM, if any


def post_or_dm(
    client: WebClient,
    *,
    channel: str,
    user: str,
    blocks: list[dict[str, Any]],
    text: str,
    lang: Lang,
    thread_ts: str | None = None,
) -> Posted:
    """Post in `channel`; when the bot cannot post there, open a DM with `user` and post there, saying why."""
    try:
        reply = client.chat_postMessage(channel=channel, blocks=blocks, text=text, thread_ts=thread_ts)
        return Posted(reply["channel"], reply["ts"], None)
    except SlackApiError as exc:
        error = str(exc.response.get("error"))
        if error not in CANNOT_POST:
            raise
        log.info("cannot post in %s (%s); continuing in a DM with %s", channel, error, user)
    dm = client.conversations_open(users=user)["channel"]["id"]
    note = t("slack.dm_fallback", lang, channel=channel_ref(channel), error=error)
    reply = client.chat_postMessage(channel=dm, blocks=[*blocks, *context(note)], text=text)
    return Posted(reply["channel"], reply["ts"], error)


def report(exc: BaseException, client: WebClient | None, *, channel: str | None, user: str | None, lang: Lang) -> str:
    """Log an unexpected error with an id, and tell the user (ephemerally) when we know where they are."""
    ref = uuid.uuid4().hex[:8]
    if isinstance(exc, SlackApiError):
        error = str(exc.response.get("error"))
        log.error("Slack API error %s (error id %s)", error, ref)
        message = t("slack.slack_error", lang, error=error, ref=ref)
    else:
        log.exception("unexpected error (error id %s)", ref, exc_info=exc)
        message = t("slack.error", lang, ref=ref)
    if client is not None and channel and user:
        try:
            client.chat_postEphemeral(channel=channel, user=user, text=message)
        except SlackApiError as again:
            log.error("could not tell %s about error %s: %s", user, ref, again.response.get("error"))
    return ref
