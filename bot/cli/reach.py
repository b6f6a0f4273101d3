"""How the terminal reaches a team's chat: through the wing that owns it (bot/server/chats.py), made from that
chat's own settings alone (a Feishu tenant needs no Slack token). Imported only by the commands that send, so the
others load no chat SDK."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.cli.common import fail
from bot.text import t

if TYPE_CHECKING:
    from bot.chat.port import Teller
    from bot.digest.outlet import Outlet
    from bot.server.chats import Chats
    from bot.settings import Settings
    from bot.state.store import Store


def chats(settings: Settings, store: Store) -> Chats:
    from bot.server.chats import Chats, terminal_wings

    return Chats(terminal_wings(settings, store))


def reach(settings: Settings, store: Store, team: str) -> tuple[Outlet, Teller]:
    """The team's outlet and teller; exits 2 saying which settings its chat needs when they are not set."""
    found = chats(settings, store)
    try:
        return found.outlet(team), found.teller(team)
    except LookupError as exc:
        if any(wing.owns(team) for wing in found.wings):  # configured, but the team is not installed
            raise fail(t("cli.remind_not_installed", settings.files.lang, team=team, reason=str(exc))) from None
        key = "cli.remind_needs_feishu" if team.startswith("feishu:") else "cli.remind_needs_token"
        raise fail(t(key, settings.files.lang)) from None


def teller_or_none(settings: Settings, store: Store, team: str) -> Teller | None:
    """The team's teller, when the terminal has its chat's settings; else None (serve will say it)."""
    try:
        return chats(settings, store).teller(team)
    except LookupError:
        return None
