"""What the listeners need, built once in create_app and passed down (no module globals)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlite_utils import Database

from bot.settings import Settings
from bot.store import Store
from bot.wiring import configured_fx, freshness
from pricing import cache
from pricing.book import quote_from_cache
from pricing.quote import Quote, QuoteRequest
from pricing.sources import Source
from rules.policy import Policy


@dataclass
class Deps:
    settings: Settings
    policy: Policy
    store: Store
    sources: list[Source]
    now: Callable[[], datetime]

    def price_db(self) -> Database:
        """A connection to the price cache for this call (listeners run on worker threads)."""
        return cache.open_db(self.settings.db)

    def quote(self, request: QuoteRequest) -> Quote:
        """The quote for `request` from the price cache; raises QuoteError when none can be made."""
        db = self.price_db()
        try:
            return quote_from_cache(db, request, self.policy, freshness(self.sources),
                                    configured_fx=configured_fx(self.settings), now=self.now())
        finally:
            db.close()

    @property
    def conversation_ttl(self) -> timedelta:
        return timedelta(hours=self.settings.conversation_ttl_hours)
