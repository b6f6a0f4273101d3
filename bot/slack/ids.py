"""Every Slack identifier the app uses, in one place: templates and listeners both import these."""

from __future__ import annotations

from enum import StrEnum

from bot.chat.ids import Action, ButtonValue, SubCommand

__all__ = ["COMMAND", "EVENTS", "SCOPES", "Action", "ButtonValue", "Callback", "SubCommand"]

COMMAND = "/gpu-advise"

# Events the app subscribes to (kept in step with manifest.yml by a test).
EVENTS = (
    "app_home_opened",
    "message.channels",
    "message.groups",
    "message.im",
    "message.mpim",
    "app_uninstalled",
    "tokens_revoked",
)

# OAuth installs into many workspaces (bot/slack/installs.py): bolt's install page and Slack's redirect.
INSTALL_PATH, REDIRECT_PATH = "/slack/install", "/slack/oauth_redirect"

# Bot scopes the app uses, and why.
SCOPES = {
    "commands": "the /gpu-advise slash command",
    "chat:write": "post questions and recommendations, update answered questions, ephemeral notes",
    "im:write": "open a DM when the bot cannot post in the channel",
    "users:read": "users.info: the user's locale and time zone",
    "users:read.email": "users.lookupByEmail: a cloud item's Owner tag given as an email",
    "files:read": "files.info and the private download of a capture uploaded into a profile's thread",
    "files:write": "files upload v2: the capture's chart, posted in the thread",
    "channels:history": "thread replies in public channels",
    "groups:history": "thread replies in private channels",
    "im:history": "thread replies in DMs",
    "mpim:history": "thread replies in group DMs",
}


class Callback(StrEnum):
    PROFILE_FORM = "profile_form"
    TRACK_FORM = "track_form"
