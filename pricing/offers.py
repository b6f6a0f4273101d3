"""A cached price with its freshness: how old it is and whether it is past its source's time-to-live."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from pricing.records import ExtraPrice, PriceRecord

DEFAULT_TTL = timedelta(days=1)


@dataclass(frozen=True)
class Offer:
    record: PriceRecord
    as_of: datetime  # when the figure was true: fetched, or quoted for reference prices
    age: timedelta
    stale: bool

    @property
    def reference(self) -> bool:
        """A bundled reference price (pricing/sources.py), not a team's, a feed's or a cloud's own."""
        return "reference" in self.record.flags.split(",")

    @property
    def age_days(self) -> float:
        return round(self.age.total_seconds() / 86400, 2)


@dataclass(frozen=True)
class Freshness:
    ttl: timedelta
    from_effective_date: bool = False


def as_offers(
    records: Iterable[PriceRecord | ExtraPrice], rules: Mapping[str, Freshness], now: datetime
) -> list[Offer]:
    """The GPU price rows as offers with their age (a source's storage and traffic rows are not offers)."""
    offers = []
    for record in records:
        if not isinstance(record, PriceRecord):
            continue
        rule = rules.get(record.source, Freshness(DEFAULT_TTL))
        as_of = record.fetched_at
        if rule.from_effective_date and record.effective_date is not None:
            as_of = datetime.combine(record.effective_date, datetime.min.time(), tzinfo=UTC)
        if as_of.tzinfo is None:
            as_of = as_of.replace(tzinfo=UTC)
        age = max(now - as_of, timedelta(0))
        offers.append(Offer(record, as_of, age, age > rule.ttl))
    return offers
