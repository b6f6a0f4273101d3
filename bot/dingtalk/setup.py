"""DingTalk as the runtime starts it (bot/server/chat_setups.py): turned on by its Client ID or Client Secret (one
without the other is refused, saying what to set); its front door is the gateway (gateway.py: the Stream
connection, no public address); its terminal wing talks through the OpenAPI alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.web.answer import DoorRefused

if TYPE_CHECKING:
    from bot.deps import Deps, Installs
    from bot.dingtalk.gateway import DingTalkGateway
    from bot.dingtalk.settings import DingTalk
    from bot.dingtalk.wing import DingTalkWing
    from bot.settings import Settings
    from bot.state.store import Store
    from bot.text import Lang


def _area(settings: Settings) -> DingTalk:
    found: DingTalk = getattr(settings, "dingtalk")  # noqa: B009 (an area of a registered chat)
    return found


class DingTalkSetup:
    name = "dingtalk"

    def turned_on(self, settings: Settings) -> bool:
        area = _area(settings)
        return bool(area.client_id or area.client_secret)

    def check(self, settings: Settings, lang: Lang) -> None:
        from bot.dingtalk.words import line

        if not _area(settings).configured():
            raise DoorRefused(line("half_set", lang))

    def installs(self, settings: Settings) -> Callable[[Deps], Installs] | None:
        return None  # one app, its organisations reached with its own token

    def door(self, deps: Deps, lang: Lang) -> DingTalkGateway:
        from bot.dingtalk.gateway import DingTalkGateway

        return DingTalkGateway(deps)

    def own_team(self, settings: Settings, lang: Lang) -> str | None:
        return None  # the terminal is given --team dingtalk:<corpId> (the bot's `help` shows it)

    def terminal_wing(self, settings: Settings, store: Store) -> DingTalkWing | None:
        area = _area(settings)
        if not area.configured():
            return None
        from bot.dingtalk.chat import DingTalkChat
        from bot.dingtalk.openapi import OpenApi
        from bot.dingtalk.wing import DingTalkWing

        api = OpenApi(area.client_id or "", area.secret(), area.api_url, area.robot())
        return DingTalkWing(DingTalkChat(api, settings.files.lang), settings.files.lang)


SETUP = DingTalkSetup()
