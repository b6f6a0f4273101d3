"""The Teller (bot/chat/port.py) of a chat that sends every line through its port and takes no files (DingTalk,
WeCom): a line is a message in the channel (a thread named is the conversation itself where the chat has none), a
direct line a message to the person, a file refused (`takes_files` is False: a report is posted as its text, and no
chart or CSV is made for it), a note on a digest's item said in its thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from bot.chat.message import plain
from bot.chat.port import Actor, Chat, ChatError, Place
from bot.text import Lang


@dataclass
class PortTeller:
    chat: Chat
    lang: Lang
    takes_files: ClassVar[bool] = False

    def say(self, channel: str, text: str, *, thread: str | None = None, link_previews: bool = True) -> str:
        place = Place(self.chat.platform, "", channel, thread)
        return self.chat.post(place, lambda each: plain(text, each), self.lang).id

    def direct(self, user: str, text: str) -> None:
        self.chat.direct(Actor(self.chat.platform, "", user), lambda each: plain(text, each), self.lang)

    def upload(self, channel: str, thread: str, name: str, data: bytes, title: str) -> str | None:
        raise ChatError("files_not_sent")

    def note_item(self, channel: str, message_id: str, name: str, text: str, *, keep_item: bool) -> bool:
        return False

    def lang_of(self, user: str) -> Lang:
        return self.lang
