"""The neutral message: what the core says, with no platform's markup. Text is the catalogue's words with their
emphasis and code (*bold*, _italic_, `code`) and the spans of bot/text/spans.py (a person, a channel, a link, data),
which each chat's wing writes its own way (Slack: bot/slack/markup.py; Feishu: bot/feishu/markup.py; the terminal:
plain words).

`intent` says what a message is for (a question of the profile, the recommendation, …): a renderer that has a
native layout for it may use it (Slack keeps its Block Kit templates); every renderer can show the generic parts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.text import Lang


@dataclass(frozen=True)
class Button:
    action: str  # what pressing it does: an action id of the core (bot/chat/actions.py)
    value: str  # what it carries back (JSON, at most 2,000 characters)
    label: str
    style: str | None = None  # "primary" or "danger"


@dataclass(frozen=True)
class Section:
    text: str
    fields: tuple[str, ...] = ()
    buttons: tuple[Button, ...] = ()  # the section's own answers (a digest item's Released, Still needed, …)
    item: tuple[str, str] | None = None  # a digest item (kind, name): its buttons answer for it


@dataclass(frozen=True)
class Image:
    name: str
    data: bytes
    alt: str = ""


@dataclass(frozen=True)
class Attachment:
    name: str
    data: bytes


@dataclass(frozen=True)
class Message:
    text: str  # the message in one line: notifications, and chats that show no layout
    lang: Lang
    title: str | None = None
    sections: tuple[Section, ...] = ()
    buttons: tuple[Button, ...] = ()
    context: tuple[str, ...] = ()
    image: Image | None = None
    file: Attachment | None = None
    intent: Any = field(default=None, compare=False)  # e.g. intents.Question: a renderer's native layout


def plain(text: str, lang: Lang) -> Message:
    return Message(text=text, lang=lang, sections=(Section(text),))
