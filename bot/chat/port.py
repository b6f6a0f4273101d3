"""Places, actors and what a chat can do: the port the core talks to (one implementation per platform)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Protocol

from bot.chat.message import Message
from bot.chat.platforms import FEISHU_PREFIX as FEISHU_PREFIX  # the chats and their teams' ids: said there
from bot.chat.platforms import Platform as Platform
from bot.chat.platforms import channel_of as channel_of
from bot.chat.platforms import is_team as is_team
from bot.chat.platforms import platform_of as platform_of
from bot.chat.platforms import register_chat as register_chat
from bot.chat.platforms import team_forms as team_forms
from bot.text import Lang

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Place:
    """Where a message goes: a channel (a Slack channel or DM, a Feishu chat oc_…) of a team, in a thread when
    `thread` is set (Slack: the root's ts; Feishu: the root message's id)."""

    platform: Platform
    team: str
    channel: str
    thread: str | None = None

    def in_thread(self, thread: str | None) -> Place:
        return replace(self, thread=thread)


@dataclass(frozen=True)
class Actor:
    """Who pressed or wrote: a user (Slack U…, Feishu open_id ou_…) of a team."""

    platform: Platform
    team: str
    user: str


@dataclass(frozen=True)
class Posted:
    """A message sent: where it is now (a post moved to a DM says why in `moved_because`) and its id."""

    place: Place
    id: str
    moved_because: str | None = None
    part: int = 0  # of a message a chat sent in parts (bot/chat/parting.py), which one this is: 0 the first


# A message in any language: a card shown to several readers can carry each reader's language.
Say = Callable[[Lang], Message]


class ChatError(Exception):
    """A chat refused a call for good (after its client's retries): `code` is the platform's error."""

    def __init__(self, code: str, *, cannot_post: bool = False) -> None:
        super().__init__(code)
        self.code = code
        self.cannot_post = cannot_post  # the bot may not post there (not a member, archived, …)


class Chat(Protocol):
    """What the core needs from a chat. `lang` is the reader's language: a platform that can show each reader
    their own (Feishu's cards) renders `say` in every language it supports, with `lang` first."""

    platform: Platform
    # How long a message sent may take to show in what `find` reads (None: posting again with the same key is
    # safe, the chat sends one message for a key); a redo sooner than this after a send looks again until then.
    settles_in: timedelta | None

    def post(
        self, place: Place, say: Say, lang: Lang, *, fallback_user: str | None = None, key: str | None = None
    ) -> Posted:
        """Post in `place` (a reply when `place.thread` is set); with `fallback_user`, a chat the bot cannot post in
        sends the message to that user directly instead, saying why. `key` (at most 50 characters) goes with the
        message, so that `find` knows it again, or the chat sends one message for every post with that key.
        ChatError when it cannot be sent."""

    def find(self, place: Place, key: str) -> Posted | None:
        """The message posted in thread `place` with `key`, when the chat has it; None when it has not, or when the
        chat cannot tell (then posting again with the same `key` is safe: such a chat sends it once)."""

    def update(self, posted: Posted, say: Say, lang: Lang) -> None:
        """Replace what a message the bot sent shows."""

    def tell(self, place: Place, user: str, text: str) -> None:
        """A line only `user` sees (Slack: ephemeral; Feishu: a card only they see, in a group; elsewhere: a
        direct message)."""

    def direct(self, actor: Actor, say: Say, lang: Lang, *, key: str | None = None) -> Posted:
        """A direct message to a user. `key`: as post's, where the chat keeps one message for a key (Slack keeps
        none for a direct message: it sends again)."""

    def user_lang(self, actor: Actor) -> Lang:
        """The user's language, as the chat knows it, else the team default."""

    def direct_chat(self, actor: Actor) -> str:
        """Where the user's direct chat with the bot is, as a place's chat (opened when there is none yet)."""


class Teller(Protocol):
    """What work the clock starts (budget alerts, weekly reports, warn-then-act) needs of a team's chat: plain
    lines in a channel or a thread, a direct line to a person, a file in a thread, a note on a digest's item.
    ChatError when the chat refuses for good (its client retried what could be retried)."""

    def say(self, channel: str, text: str, *, thread: str | None = None, link_previews: bool = True) -> str:
        """Post `text`; its message id."""

    def direct(self, user: str, text: str) -> None:
        """A direct message to `user`."""

    @property
    def takes_files(self) -> bool:
        """Whether upload sends files. A chat whose robot sends none (DingTalk, WeCom) says False, and nothing is
        made to be sent there: no chart drawn (matplotlib's import and first chart are about 0.8 s of CPU and
        40 MB a process), no CSV written."""

    def upload(self, channel: str, thread: str, name: str, data: bytes, title: str) -> str | None:
        """A file in the thread under message `thread`; the chat's id for the file, when it gives one. ChatError
        ("files_not_sent") where the chat takes no files."""

    def note_item(self, channel: str, message_id: str, name: str, text: str, *, keep_item: bool) -> bool:
        """Say `text` at instance `name`'s line in the digest `message_id` (under it with its buttons when
        `keep_item`, else in its place). False when the chat cannot change that message: say it in its thread."""

    def lang_of(self, user: str) -> Lang:
        """The person's language, as the chat knows it, else the default."""


def tell_each(teller: Teller, texts: Mapping[str, str], what: str) -> list[str]:
    """Say each channel's text in it; the channels that took it (a refusal is logged as `what`, and the others
    are still told)."""
    told = []
    for channel, text in texts.items():
        try:
            teller.say(channel, text)
        except ChatError as exc:
            log.warning("%s not posted in %s: %s", what, channel, exc.code)
            continue
        told.append(channel)
    return told
