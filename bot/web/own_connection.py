"""What every front door whose chat's frames come over the chat's own long connection (DingTalk, WeCom) does the
same way: nothing answered over HTTP; each frame kept in the inbox under its key, its work done on the door's own
threads (never handed to the work process); the frames kept before a stop redone at the next start, and those left
pending past GPU_ADVISOR_REDO_AFTER_S redone by the redo job (claimed first, so one replica does each); the chat's
teams as the state knows them, by their prefix."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from bot.web.answer import Route

if TYPE_CHECKING:
    from bot.deps import Deps

REPLAY_WINDOW = timedelta(hours=1)
log = logging.getLogger(__name__)


class OwnConnectionDoor(ABC):
    deps: Deps
    kinds: tuple[str, ...]  # the inbox kinds of this chat's frames
    prefix: str  # its teams' prefix in the state ("dingtalk:")
    chat_name: str  # as the log names it ("DingTalk")

    @abstractmethod
    def work(self, key: str, kind: str, body: dict[str, Any]) -> Any:
        """A kept frame's work, then its item done (an error logged, the item left to be redone)."""

    def routes(self) -> list[Route]:
        return []  # frames come over the chat's own connection

    def tenants(self) -> list[str]:
        """The chat's teams the state knows, as the terminal's --team takes them; none when it cannot be read."""
        from bot.state import StoreUnavailable
        from bot.state.teams import known_teams

        try:
            return [team for team in known_teams(self.deps.store) if team.startswith(self.prefix)]
        except StoreUnavailable:
            return []

    def default_team(self) -> str | None:
        known = self.tenants()
        return known[0] if len(known) == 1 else None

    def replay(self, received_before: datetime | None = None, first: Callable[[str], bool] | None = None) -> int:
        """At start-up: the work of frames kept before a stop."""
        redone = 0
        for spooled in self.deps.inbox.spooled(REPLAY_WINDOW, received_before):
            if spooled.kind in self.kinds and (first is None or first(spooled.key)):
                self.work(spooled.key, spooled.kind, spooled.body)
                redone += 1
        return redone

    def redo_stalled(self) -> int:
        """Frames left pending this long: the chat was unreachable, or the replica that took them stopped."""
        stalled = timedelta(seconds=self.deps.settings.serve.redo_after_s)
        redone = 0
        for key, kind, body in self.deps.inbox.pending(REPLAY_WINDOW, stalled):
            if kind in self.kinds and self.deps.inbox.claim(key, stalled):
                log.info("redoing %s: kept, its work not done (a stop, or %s unreachable)", key, self.chat_name)
                self.work(key, kind, body)
                redone += 1
        return redone

    def opened(self, raw: bytes, content_type: str | None) -> tuple[str, dict[str, Any]]:
        raise LookupError(f"{self.chat_name}'s frames are done by the front door's own threads")

    def take(self, key: str, kind: str, body: Any, workers: Any) -> bool:
        return False  # the front door does the work: the frames come over its own connection
