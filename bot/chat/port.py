"""Places, actors and what a chat can do: the port the core talks to (one implementation per platform)."""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Protocol

from bot.chat.message import Message
from bot.text import Lang

log = logging.getLogger(__name__)


class Platform(str):
    """A chat's name ("slack", "feishu", …): one object a chat, so `is` compares them. A chat not built in names
    itself with `register_chat` (the one line a new chat's wing adds)."""

    SLACK: Platform
    FEISHU: Platform


Platform.SLACK, Platform.FEISHU = Platform("slack"), Platform("feishu")

# A tenant's id in the state tables (their `team` column): a Slack workspace's own id (T…, E…), any other chat's
# tenant behind its chat's prefix (Feishu's tenant key behind feishu:), so no two chats' rows meet and each row says
# whose it is.
FEISHU_PREFIX = "feishu:"
_PREFIXES: dict[str, Platform] = {FEISHU_PREFIX: Platform.FEISHU}
_CHANNELS = {"slack": re.compile(r"[CG][A-Z0-9]{1,20}"), "feishu": re.compile(r"oc_[0-9A-Za-z]{1,64}")}


def register_chat(name: str, prefix: str, channel: str | None = None, team_form: str | None = None) -> Platform:
    """A chat beside Slack and Feishu: its name, the prefix its teams' ids carry in the state (e.g. "dingtalk",
    "dingtalk:"), the shape of its channels' ids (a regular expression), so the terminal's --channel takes them,
    and how the terminal's messages name a team of it ("dingtalk:<corpId>"). The same object on every call for
    one name."""
    if not prefix.endswith(":") or prefix in ("", ":"):
        raise ValueError(f"a chat's prefix ends with ':' (got {prefix!r})")
    known = _PREFIXES.get(prefix)
    if known is not None:
        return known
    platform = Platform(name)
    _PREFIXES[prefix] = platform
    if channel is not None:
        _CHANNELS[name] = re.compile(channel)
    _FORMS[name] = team_form or f"{prefix}<id>"
    return platform


_SLACK_TEAM = re.compile(r"[TE][A-Z0-9]{1,20}")
_TEAM_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _prefix(prefix: str) -> Platform | None:
    """The chat a prefix names; the registered chats' folders are loaded once first, so a chat that registers
    itself in its package (bot/server/chat_setups.py lists them) is known before any of its modules is used."""
    global _loaded
    if prefix not in _PREFIXES and not _loaded:
        _loaded = True
        from bot.settings.chats import chat_packages

        for package in chat_packages():
            importlib.import_module(package)
    return _PREFIXES.get(prefix)


_loaded = False
_FORMS = {"feishu": "feishu:<tenant key>"}


def team_forms() -> str:
    """How the terminal's messages name a team of each chat that is not Slack ("feishu:<tenant key>, …")."""
    _prefix("")  # the registered chats' packages loaded, so each has said its form
    return ", ".join(_FORMS.values())


def is_team(text: str) -> bool:
    """A team as the terminal and the settings take it: a Slack workspace or Enterprise Grid id (T…, E…), or another
    chat's key behind its registered prefix (a Feishu tenant's key behind feishu:, shown by the bot's `help` in
    Feishu and in serve's log)."""
    prefix, colon, key = text.partition(":")
    if not colon:
        return bool(_SLACK_TEAM.fullmatch(text))
    return _prefix(prefix + colon) is not None and bool(_TEAM_KEY.fullmatch(key))


def platform_of(team: str) -> Platform:
    """The chat a tenant belongs to, by its id's prefix (none: a Slack workspace)."""
    prefix, colon, _ = team.partition(":")
    return (_prefix(prefix + colon) or Platform.SLACK) if colon else Platform.SLACK


def channel_of(team: str, text: str) -> str | None:
    """`text` as a channel of `team`'s chat (a Slack channel C…/G…; a Feishu group chat oc_…, with or without its
    feishu: prefix or a leading #), or None when it names none: a mention, a user, a formula is no place to post."""
    platform = platform_of(team)
    found = text.strip().removeprefix(f"{platform}:").lstrip("#")
    shape = _CHANNELS.get(platform)
    return found if shape is not None and shape.fullmatch(found) else None


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
