"""Slack as the runtime starts it (bot/server/chat_setups.py): turned on by a bot token, an OAuth client or any of
its secrets; checked by check_tokens (bot/slack/app.py); installed into many workspaces through OAuth (installs.py);
its front door over the bolt app (door.py); its terminal wing with the bot token or each install's own."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.web.answer import DoorRefused

if TYPE_CHECKING:
    from bot.deps import Deps, Installs
    from bot.settings import Settings
    from bot.slack.door import SlackDoor
    from bot.slack.wing import SlackWing
    from bot.state.store import Store
    from bot.text import Lang


class SlackSetup:
    name = "slack"

    def turned_on(self, settings: Settings) -> bool:
        return settings.slack.configured() or bool(
            settings.slack.signing_secret or settings.slack.app_token or settings.slack.client_id
        )

    def check(self, settings: Settings, lang: Lang) -> None:
        from bot.slack.app import MissingSlackSettings, check_tokens

        try:
            check_tokens(settings, lang)
        except MissingSlackSettings as exc:
            raise DoorRefused(str(exc)) from None

    def installs(self, settings: Settings) -> Callable[[Deps], Installs] | None:
        from bot.slack.app import installs

        return installs if settings.slack.oauth() else None

    def door(self, deps: Deps, lang: Lang) -> SlackDoor:
        from bot.slack.app import MissingSlackSettings, SlackUnreachable, create_app
        from bot.slack.door import SlackDoor

        try:
            return SlackDoor(create_app(deps, lang=lang), deps)
        except (MissingSlackSettings, SlackUnreachable) as exc:
            raise DoorRefused(str(exc)) from None

    def own_team(self, settings: Settings, lang: Lang) -> str | None:
        """The bot token's workspace (auth.test); None without a token (OAuth installs name many)."""
        if settings.slack.bot_token is None:
            return None
        from slack_sdk import WebClient
        from slack_sdk.errors import SlackApiError

        from bot.text import t

        try:
            client = WebClient(token=settings.slack.bot_token.get_secret_value(), base_url=settings.slack.api_url)
            found = client.auth_test()
        except (SlackApiError, OSError) as exc:
            raise LookupError(t("cli.no_team_from_slack", lang, reason=type(exc).__name__)) from None
        return str(found["team_id"])

    def terminal_wing(self, settings: Settings, store: Store) -> SlackWing | None:
        if not (settings.slack.bot_token or (settings.slack.oauth() and settings.slack.encryption_key)):
            return None
        from bot.slack.wing import terminal_wing

        return terminal_wing(settings, store)


SETUP = SlackSetup()
