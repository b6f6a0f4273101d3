"""The chat each team talks in, for the work serve's clock starts: its Feishu tenant's (a team id behind the
Feishu prefix) or its Slack workspace's. LookupError when serve does not talk to that platform, or the workspace
uninstalled the app."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.chat.port import Platform, Teller, platform_of
from bot.deps import Deps
from bot.digest.outlet import Outlet

if TYPE_CHECKING:
    from slack_sdk import WebClient

    from bot.server.feishu_endpoint import FeishuGateway


@dataclass
class Chats:
    deps: Deps
    slack: WebClient | None
    feishu: FeishuGateway | None

    def _feishu(self) -> FeishuGateway:
        if self.feishu is None:
            raise LookupError("serve does not talk to Feishu (GPU_ADVISOR_FEISHU_APP_ID)")
        return self.feishu

    def _slack(self) -> WebClient:
        if self.slack is None:
            raise LookupError("serve does not talk to Slack")
        return self.slack

    def outlet(self, team: str) -> Outlet:
        """Where `team`'s digests go."""
        if platform_of(team) is Platform.FEISHU:
            return self._feishu().outlet()
        from bot.slack.digest_outlet import slack_outlets
        from bot.slack.ui.digest import render

        return slack_outlets(self.deps, self._slack(), render)(team)

    def teller(self, team: str) -> Teller:
        """What budget alerts, weekly reports and warn-then-act say through to `team`."""
        if platform_of(team) is Platform.FEISHU:
            return self._feishu().teller()
        from bot.slack.teller import slack_tellers

        return slack_tellers(self.deps, self._slack())(team)
