"""The configured chats as one list, for the work that starts outside a request (serve's clock, the terminal's
commands that send): each tenant's outlet, teller and address book come from the wing that owns it (a Slack
workspace T…, a Feishu tenant behind its prefix). LookupError when no configured chat owns the tenant, or its
chat cannot reach it (uninstalled), saying which.

serve's wings come from its front doors (bot/server/doors.py); the terminal's are made here, from the settings
alone (`terminal_wings`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.chat.port import Teller
from bot.digest.outlet import Outlet
from bot.settings import Settings
from bot.state.store import Store


class Wing(Protocol):
    name: str  # the chat's name in settings, logs and messages: "slack", "feishu"

    def owns(self, tenant: str) -> bool:
        """Is `tenant` (a state's team id) one of this chat's?"""

    def outlet(self, tenant: str) -> Outlet:
        """Where `tenant`'s digests go. LookupError when the chat cannot reach it (uninstalled)."""

    def teller(self, tenant: str) -> Teller:
        """What budget alerts, reports and warn-then-act say through to `tenant`. LookupError as outlet()."""

    def person(self, tenant: str, email: str) -> str | None:
        """The user with this address in `tenant`, as the chat names them; None when there is none or the chat
        may not look."""

    def display_name(self, tenant: str, user: str) -> str | None:
        """How people read `user` (their display name), None when the chat will not say."""


@dataclass
class Chats:
    wings: list[Wing]

    def wing(self, tenant: str) -> Wing:
        for wing in self.wings:
            if wing.owns(tenant):
                return wing
        configured = ", ".join(w.name for w in self.wings) or "none"
        raise LookupError(f"no configured chat talks to {tenant} (configured: {configured})")

    def outlet(self, tenant: str) -> Outlet:
        return self.wing(tenant).outlet(tenant)

    def teller(self, tenant: str) -> Teller:
        return self.wing(tenant).teller(tenant)

    def person(self, tenant: str, email: str) -> str | None:
        try:
            return self.wing(tenant).person(tenant, email)
        except LookupError:
            return None

    def names(self, tenant: str, users: set[str]) -> dict[str, str]:
        """Each user as people read them: their name where the tenant's chat says it, else the bare id."""
        try:
            wing = self.wing(tenant)
        except LookupError:
            return {user: user for user in users}
        return {user: wing.display_name(tenant, user) or user for user in sorted(users)}


def terminal_wings(settings: Settings, store: Store) -> list[Wing]:
    """The terminal's chats, from the settings alone (bot/server/chat_setups.py): each configured chat's wing, with
    only its own settings."""
    from bot.server.chat_setups import chat_setups

    return [wing for setup in chat_setups() if (wing := setup.terminal_wing(settings, store)) is not None]
