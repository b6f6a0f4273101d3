"""What the Slack handlers need, built once at start-up and passed to each call (no module globals)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bot.metrics import Metrics
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
    metrics: Metrics = field(default_factory=Metrics)

    def refresh_gauges(self) -> None:
        """Set the gauges read at scrape time: each price source's age, the inbox backlog."""
        for state in self.prices.status():
            if state.age_days is not None:
                self.metrics.price_age.labels(state.source).set(state.age_days * 86400)
        self.metrics.inbox_backlog.set(len(self.store.pending(timedelta(days=1))))

    @property
    def conversation_ttl(self) -> timedelta:
        return timedelta(hours=self.settings.conversation_ttl_hours)
