"""Every Slack identifier the app uses, in one place: templates and listeners both import these."""

from __future__ import annotations

from enum import StrEnum

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


class Action(StrEnum):
    ANSWER = "answer"  # prefix: answer:<n>, one per button
    SKIP = "skip"
    CHANGE = "change_answers"
    RESTART = "start_over"
    NEW_PROFILE = "new_profile"
    # the digest's buttons (bot/slack/ui/digest.py); the value is the item's name
    RELEASED = "rental_released"
    STILL_NEEDED = "rental_still_needed"
    SNOOZE_WEEK = "rental_snooze_week"
    STORAGE_DELETED = "storage_deleted"
    STORAGE_KEEP = "storage_keep"
    CLAIM = "found_claim"  # "Found, not tracked": the presser becomes the owner (the block id says i or s)
    NOT_OURS = "found_not_ours"  # an admin hides it from digests and lists
    RENTED = "rented"  # on a recommendation: open the track form, pre-filled
    FROM_MODEL = "memory_from_model"  # question 2: ask for the model to estimate the memory from


class Callback(StrEnum):
    PROFILE_FORM = "profile_form"
    TRACK_FORM = "track_form"


class SubCommand(StrEnum):
    HELP = "help"
    ANALYZE = "analyze"
    FORM = "form"
    PRICES = "prices"
    QUOTE = "quote"
    REMIND = "remind"
    LIST = "list"
    RELEASE = "release"
    DELETE_STORAGE = "delete-storage"
    BUDGET = "budget"
    TRACK = "track"
    ENROLL = "enroll"
    ACT = "act"
    REPORT = "report"
