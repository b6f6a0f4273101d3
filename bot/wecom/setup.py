"""WeCom as the runtime starts it (bot/server/chat_setups.py): turned on by its Bot ID or Bot Secret (one without the
other is refused, saying what to set); its front door is the gateway (gateway.py: the long connection, no public
address); its terminal wing opens the robot's connection at its first send (WeCom hands a robot's frames to its
latest connection: what comes meanwhile is kept in the state's inbox, and serve's redo job does it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.web.answer import DoorRefused

if TYPE_CHECKING:
    from bot.deps import Deps, Installs
    from bot.settings import Settings
    from bot.state.store import Store
    from bot.text import Lang
    from bot.wecom.gateway import WeComGateway
    from bot.wecom.settings import WeCom
    from bot.wecom.wing import WeComWing


def _area(settings: Settings) -> WeCom:
    found: WeCom = getattr(settings, "wecom")  # noqa: B009 (an area of a registered chat)
    return found


class WeComSetup:
    name = "wecom"

    def turned_on(self, settings: Settings) -> bool:
        area = _area(settings)
        return bool(area.bot_id or area.bot_secret)

    def check(self, settings: Settings, lang: Lang) -> None:
        from bot.wecom.words import line

        if not _area(settings).configured():
            raise DoorRefused(line("half_set", lang))

    def installs(self, settings: Settings) -> Callable[[Deps], Installs] | None:
        return None

    def door(self, deps: Deps, lang: Lang) -> WeComGateway:
        from bot.wecom.gateway import WeComGateway

        return WeComGateway(deps)

    def own_team(self, settings: Settings, lang: Lang) -> str | None:
        return None  # the terminal is given --team wecom:<the robot's id> (the robot's `help` shows it)

    def terminal_wing(self, settings: Settings, store: Store) -> WeComWing | None:
        area = _area(settings)
        if not area.configured():
            return None
        from bot.state.inbox import Inbox
        from bot.wecom.gateway import contacts_of, keep_for_serve, make_chat
        from bot.wecom.wing import WeComWing

        inbox = Inbox(store)  # a frame WeCom hands this connection meanwhile is kept for serve's redo job to do
        chat, _connection = make_chat(settings, lambda frame: keep_for_serve(inbox, frame))
        return WeComWing(chat, settings.files.lang, contacts_of(area))


SETUP = WeComSetup()
