"""Feishu as a wing of the runtime (bot/server/chats.py): a tenant's digests as cards (bot/feishu/digest_outlet.py),
its lines and charts through the teller, an address looked up in the tenant's contacts. One app serves every
tenant that installed it: the tenant key travels with each event, and the app's token reaches them all."""

from __future__ import annotations

from bot.chat.port import Platform, platform_of
from bot.feishu.chat import FeishuChat
from bot.feishu.digest_outlet import FeishuOutlet
from bot.feishu.teller import FeishuTeller
from bot.text import Lang


class FeishuWing:
    name = "feishu"

    def __init__(self, chat: FeishuChat, lang: Lang) -> None:
        self.chat, self.lang = chat, lang

    def owns(self, tenant: str) -> bool:
        return platform_of(tenant) is Platform.FEISHU

    def outlet(self, tenant: str) -> FeishuOutlet:
        return FeishuOutlet(self.chat)

    def teller(self, tenant: str) -> FeishuTeller:
        return FeishuTeller(self.chat, self.lang)

    def person(self, tenant: str, email: str) -> str | None:
        return self.chat.find_by_email(email)

    def display_name(self, tenant: str, user: str) -> str | None:
        found = self.chat.user(user)
        return str(found.name) if found is not None and getattr(found, "name", None) else None
