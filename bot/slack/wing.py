"""Slack as a wing of the runtime (bot/server/chats.py): a workspace's outlet and teller through its own client
(its installation's when installed through OAuth, else the bot token's), and users.lookupByEmail for an address."""

from __future__ import annotations

import logging
from collections.abc import Callable

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.chat.port import Platform, platform_of
from bot.settings import Settings
from bot.slack.digest_outlet import SlackOutlet
from bot.slack.teller import SlackTeller
from bot.slack.ui.digest import render
from bot.state.store import Store
from bot.text import Lang

log = logging.getLogger(__name__)


class SlackWing:
    name = "slack"

    def __init__(self, client_for: Callable[[str], WebClient], lang_of: Callable[[WebClient, str], Lang]) -> None:
        """`client_for(team)`: the workspace's client (LookupError: not installed); `lang_of(client, user)`."""
        self.client_for, self.lang_of = client_for, lang_of

    def owns(self, tenant: str) -> bool:
        return platform_of(tenant) is Platform.SLACK

    def outlet(self, tenant: str) -> SlackOutlet:
        return SlackOutlet(self.client_for(tenant), render)

    def teller(self, tenant: str) -> SlackTeller:
        client = self.client_for(tenant)
        return SlackTeller(client, lambda user: self.lang_of(client, user))

    def person(self, tenant: str, email: str) -> str | None:
        try:
            return str(self.client_for(tenant).users_lookupByEmail(email=email)["user"]["id"])
        except (SlackApiError, LookupError, KeyError) as exc:
            log.info("no Slack user found for an owner tag's address: %s", type(exc).__name__)
            return None

    def display_name(self, tenant: str, user: str) -> str | None:
        try:
            found = self.client_for(tenant).users_info(user=user).get("user") or {}
        except (SlackApiError, LookupError, OSError):
            return None
        profile = found.get("profile") or {}
        return str(profile.get("display_name") or found.get("real_name") or found.get("name") or "") or None


def terminal_wing(settings: Settings, store: Store) -> SlackWing:
    """Slack for the terminal: the bot token's client, or each OAuth install's own (a key that no longer opens a
    workspace's token is a LookupError saying so); people read in the settings' language."""
    from bot.slack.app import web_client

    client = web_client(settings)
    if settings.slack.oauth():  # installed into many workspaces: each workspace's own token
        from bot.slack.installs import BadEncryptionKey, workspace_client

        def client_for(team: str) -> WebClient:
            try:
                return workspace_client(settings, store.engine, team, client)
            except BadEncryptionKey as exc:
                raise LookupError(str(exc)) from None

    else:

        def client_for(team: str) -> WebClient:
            return client

    return SlackWing(client_for, lambda _client, _user: settings.files.lang)
