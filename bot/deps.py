"""What the listeners need, built once in create_app and passed down (no module globals)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import httpx
from sqlite_utils import Database

from bot.settings import Settings
from bot.store import Store
from pricing import cache
from pricing.sources import Source
from rules.policy import Policy


@dataclass
class Deps:
    settings: Settings
    policy: Policy
    store: Store
    sources: list[Source]
    http: httpx.Client
    now: Callable[[], datetime]

    def price_db(self) -> Database:
        """A connection to the price cache for this call (listeners run on worker threads)."""
        return cache.open_db(self.settings.db)

    @property
    def conversation_ttl(self) -> timedelta:
        return timedelta(hours=self.settings.conversation_ttl_hours)
