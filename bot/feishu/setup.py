"""Feishu/Lark as the runtime starts it (bot/server/chat_setups.py): turned on by an App ID and App Secret; in HTTP
mode a callback check (encrypt key or verification token) is required; its front door is the gateway (gateway.py:
the callback endpoint, or the long connection in ws mode); its terminal wing talks through the Open API alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.web.answer import DoorRefused

if TYPE_CHECKING:
    from bot.deps import Deps, Installs
    from bot.feishu.gateway import FeishuGateway
    from bot.feishu.wing import FeishuWing
    from bot.settings import Settings
    from bot.state.store import Store
    from bot.text import Lang


class FeishuSetup:
    name = "feishu"

    def turned_on(self, settings: Settings) -> bool:
        return settings.feishu.configured()

    def check(self, settings: Settings, lang: Lang) -> None:
        from bot.text import t

        if settings.feishu.mode == "http" and not (settings.feishu.encrypt_key or settings.feishu.verification_token):
            raise DoorRefused(t("feishu.http_needs_a_check", lang))

    def installs(self, settings: Settings) -> Callable[[Deps], Installs] | None:
        return None  # one app, its tenants' tokens asked by the SDK

    def door(self, deps: Deps, lang: Lang) -> FeishuGateway:
        from bot.feishu.gateway import FeishuGateway

        return FeishuGateway(deps)

    def own_team(self, settings: Settings, lang: Lang) -> str | None:
        return None  # one app serves many tenants: the terminal is given --team feishu:<tenant key>

    def terminal_wing(self, settings: Settings, store: Store) -> FeishuWing | None:
        if not settings.feishu.configured():
            return None
        from bot.feishu.chat import FeishuChat
        from bot.feishu.sdk import OpenApi
        from bot.feishu.wing import FeishuWing

        secret = settings.feishu.app_secret.get_secret_value() if settings.feishu.app_secret else ""
        api = OpenApi(settings.feishu.app_id or "", secret, settings.feishu.base_url())
        return FeishuWing(FeishuChat(api, settings.files.lang), settings.files.lang)


SETUP = FeishuSetup()
