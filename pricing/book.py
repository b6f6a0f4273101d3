"""Quotes from the cache: load the GPU's prices, age them, pick an exchange rate, compute."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from pricing import cache
from pricing.compare import ProviderOffer, compare
from pricing.fx import FALLBACK_DATE, FALLBACK_USD_CNY, FxRate
from pricing.offers import Freshness, as_offers
from pricing.quote import Quote, QuoteRequest, quote
from pricing.sqlite_db import PriceDb
from rules.policy import Policy


def pick_fx(db: PriceDb, configured: FxRate | None) -> FxRate:
    """The configured USD/CNY rate, else the newest fetched one, else the bundled fallback (dated, so quotes say
    so); with the ECB's rates of every currency where they were fetched (quotes in any other currency)."""
    fetched = cache.load_fx(db)
    if configured is not None:
        chosen = configured
    elif fetched:
        chosen = fetched[0]
    else:
        chosen = FxRate(rate=FALLBACK_USD_CNY, rate_date=FALLBACK_DATE, source="bundled fallback")
    return chosen.model_copy(update={"euro": cache.load_euro(db)})


def quote_from_cache(
    db: PriceDb,
    req: QuoteRequest,
    policy: Policy,
    freshness: Mapping[str, Freshness],
    *,
    configured_fx: FxRate | None = None,
    now: datetime | None = None,
) -> Quote:
    at = now or datetime.now(UTC)
    offers = as_offers(cache.load_prices(db), freshness, at)
    return quote(req, offers, policy, fx=pick_fx(db, configured_fx), extra_prices=cache.load_extras(db))


def compare_from_cache(
    db: PriceDb,
    req: QuoteRequest,
    policy: Policy,
    freshness: Mapping[str, Freshness],
    *,
    configured_fx: FxRate | None = None,
    now: datetime | None = None,
) -> list[ProviderOffer]:
    """The schedule priced at each provider in the cache, cheapest total first."""
    offers = as_offers(cache.load_prices(db), freshness, now or datetime.now(UTC))
    return compare(req, offers, policy, fx=pick_fx(db, configured_fx), extra_prices=cache.load_extras(db))
