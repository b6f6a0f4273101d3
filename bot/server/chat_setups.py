"""Each chat as serve, its work process and the terminal start it, before any of its SDK is loaded: whether the
settings turn it on, what is wrong with them, what the process's Deps need of it (Slack's OAuth installs), its front
door, and its wing for the terminal. bot/settings/chats.py is the one place a chat is registered; the rest is its
folder's setup.py (a module with a `SETUP`) and, for a chat whose settings are its own, its settings.py (an `AREA`:
bot/settings/model.py reads it into Settings under the chat's name)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from bot.settings.chats import chat_packages

if TYPE_CHECKING:
    from bot.deps import Deps, Installs
    from bot.server.chats import Wing
    from bot.server.doors import FrontDoor
    from bot.settings import Settings
    from bot.state.store import Store
    from bot.text import Lang


class ChatSetup(Protocol):
    name: str  # as the logs and /healthz name it: "slack", "feishu"

    def turned_on(self, settings: Settings) -> bool:
        """Any of its settings is set (one set without the rest is refused by check, not ignored)."""

    def check(self, settings: Settings, lang: Lang) -> None:
        """Its settings are usable: DoorRefused, in `lang`, saying what to set and where to find it."""

    def installs(self, settings: Settings) -> Callable[[Deps], Installs] | None:
        """What makes the clients of the teams it is installed into, when it is installed into many."""

    def door(self, deps: Deps, lang: Lang) -> FrontDoor:
        """Its front door for serve (and the work process), made once Deps are."""

    def own_team(self, settings: Settings, lang: Lang) -> str | None:
        """The one team its settings name on their own, for the terminal (a bot token's workspace); None when they
        name none. LookupError, in `lang`, when it cannot be asked."""

    def terminal_wing(self, settings: Settings, store: Store) -> Wing | None:
        """Its wing for the terminal's commands that send, from the settings alone; None when they cannot reach it."""


def chat_setups() -> list[ChatSetup]:
    return [importlib.import_module(f"{package}.setup").SETUP for package in chat_packages()]


def turned_on(settings: Settings) -> list[ChatSetup]:
    return [setup for setup in chat_setups() if setup.turned_on(settings)]


def installs_of(settings: Settings, setups: list[ChatSetup]) -> Callable[[Deps], Installs] | None:
    """The one chat's installs that Deps keep (a chat installed into many teams), if any chat has them."""
    return next((made for setup in setups if (made := setup.installs(settings)) is not None), None)
