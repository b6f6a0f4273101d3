"""WeCom as a wing of the runtime (bot/server/chats.py): a robot's digests (teller.py's outlet), its lines through
the teller, an owner tag's address found with the classic API where the CorpID and its secret are set (else the tag
must hold the WeCom userid)."""

from __future__ import annotations

from bot.chat.port import platform_of
from bot.text import Lang
from bot.wecom import WECOM
from bot.wecom.chat import WeComChat
from bot.wecom.corp_api import CorpApi
from bot.wecom.teller import WeComOutlet, WeComTeller


class WeComWing:
    name = "wecom"

    def __init__(self, chat: WeComChat, lang: Lang, contacts: CorpApi | None = None) -> None:
        self.chat, self.lang, self.contacts = chat, lang, contacts

    def owns(self, team: str) -> bool:
        return platform_of(team) is WECOM

    def outlet(self, team: str) -> WeComOutlet:
        return WeComOutlet(self.chat)

    def teller(self, team: str) -> WeComTeller:
        return WeComTeller(self.chat, self.lang)

    def person(self, team: str, email: str) -> str | None:
        return self.contacts.userid_of(email) if self.contacts is not None else None

    def display_name(self, team: str, user: str) -> str | None:
        return None  # WeCom's frames carry userids only
