"""What the Slack handlers need, built once at start-up and passed to each call (no module globals)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.price_book import PriceBook
from bot.settings import Settings
from bot.state import Store
from rules.policy import Policy


@dataclass
class Deps:
    settings: Settings
    policy: Policy
    store: Store
    prices: PriceBook
    now: Callable[[], datetime]

    @property
    def conversation_ttl(self) -> timedelta:
        return timedelta(hours=self.settings.conversation_ttl_hours)
