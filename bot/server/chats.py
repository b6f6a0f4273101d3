"""The configured chats as one list, for the work that starts outside a request (serve's clock, the terminal's
commands that send): each team's outlet, teller and address book come from the wing that owns it (a Slack
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

    def owns(self, team: str) -> bool:
        """Is `team` (a state's team id) one of this chat's?"""

    def outlet(self, team: str) -> Outlet:
        """Where `team`'s digests go. LookupError when the chat cannot reach it (uninstalled)."""

    def teller(self, team: str) -> Teller:
        """What budget alerts, reports and warn-then-act say through to `team`. LookupError as outlet()."""

    def person(self, team: str, email: str) -> str | None:
        """The user with this address in `team`, as the chat names them; None when there is none or the chat
        may not look."""

    def display_name(self, team: str, user: str) -> str | None:
        """How people read `user` (their display name), None when the chat will not say."""


@dataclass
class Chats:
    wings: list[Wing]

    def wing(self, team: str) -> Wing:
        for wing in self.wings:
            if wing.owns(team):
                return wing
        configured = ", ".join(w.name for w in self.wings) or "none"
        raise LookupError(f"no configured chat talks to {team} (configured: {configured})")

    def outlet(self, team: str) -> Outlet:
        return self.wing(team).outlet(team)

    def teller(self, team: str) -> Teller:
        return self.wing(team).teller(team)

    def person(self, team: str, email: str) -> str | None:
        try:
            return self.wing(team).person(team, email)
        except LookupError:
            return None

    def names(self, team: str, users: set[str]) -> dict[str, str]:
        """Each user as people read them: their name where the team's chat says it, else the bare id."""
        try:
            wing = self.wing(team)
        except LookupError:
            return {user: user for user in users}
        return {user: wing.display_name(team, user) or user for user in sorted(users)}


def terminal_wings(settings: Settings, store: Store) -> list[Wing]:
    """The terminal's chats, from the settings alone (bot/server/chat_setups.py): each configured chat's wing, with
    only its own settings."""
    from bot.server.chat_setups import chat_setups

    return [wing for setup in chat_setups() if (wing := setup.terminal_wing(settings, store)) is not None]
