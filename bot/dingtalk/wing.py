"""DingTalk as a wing of the runtime (bot/server/chats.py): an organisation's digests as cards (teller.py's
outlet), its lines through the teller, an owner tag's address or mobile number found in its contacts."""

from __future__ import annotations

from bot.chat.port import platform_of
from bot.dingtalk import DINGTALK
from bot.dingtalk.chat import DingTalkChat
from bot.dingtalk.teller import DingTalkOutlet, DingTalkTeller
from bot.text import Lang


class DingTalkWing:
    name = "dingtalk"

    def __init__(self, chat: DingTalkChat, lang: Lang) -> None:
        self.chat, self.lang = chat, lang

    def owns(self, team: str) -> bool:
        return platform_of(team) is DINGTALK

    def outlet(self, team: str) -> DingTalkOutlet:
        return DingTalkOutlet(self.chat)

    def teller(self, team: str) -> DingTalkTeller:
        return DingTalkTeller(self.chat, self.lang)

    def person(self, team: str, email: str) -> str | None:
        return self.chat.find_user(email)

    def display_name(self, team: str, user: str) -> str | None:
        return self.chat.nicks.get(user)
