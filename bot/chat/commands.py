"""A sub-command as any chat hands it to the core: who typed it, where, in which language, and how to answer.
The sub-commands themselves (rental_commands.py, …) parse and answer the same on every chat; a chat builds the
Invocation from its own request (bot/slack/listeners/rentals.py, bot/feishu/events.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.chat.message import Message
from bot.deps import Deps
from bot.text import Lang


class CommandError(Exception):
    """Bad input to a sub-command: the sentence, in the user's language (what was wrong, what is accepted)."""


@dataclass
class Invocation:
    deps: Deps
    team: str
    channel: str
    user: str
    lang: Lang
    answer: Callable[[Message], object]  # to the person who typed it (Slack: ephemeral; Feishu: in its thread)
    post: Callable[[Message], object]  # in the channel, for everyone
    is_admin: Callable[[], bool]  # may this person act as an admin of the tenant (or of this chat)?
    zone: Callable[[], str | None]  # this person's IANA time zone, when the chat knows it
