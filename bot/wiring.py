"""Building the pricing side from Settings: the database, the HTTP client, the sources and their TTLs."""

from __future__ import annotations

from datetime import timedelta

import httpx
from sqlite_utils import Database

from bot.settings import Settings
from pricing import cache
from pricing.azure import AzureConfig
from pricing.fx import FxRate
from pricing.offers import Freshness
from pricing.refresh import refresh
from pricing.sources import Source, azure_source, ecb_source, feed_source, rate_card_source

USER_AGENT = "gpu-advisor/0.1"


def http_client(settings: Settings) -> httpx.Client:
    return httpx.Client(timeout=settings.http_timeout_s, headers={"User-Agent": USER_AGENT},
                        follow_redirects=True)


def build_sources(settings: Settings, client: httpx.Client) -> list[Source]:
    hours = timedelta(hours=1)
    sources = [rate_card_source(settings.rate_card_paths(), ttl=timedelta(days=settings.ttl_ratecard_days),
                                interval=settings.refresh_ratecard_hours * hours)]
    if settings.azure_enabled:
        config = AzureConfig(base_url=settings.azure_base_url, regions=settings.azure_region_list(),
                             page_cap=settings.azure_page_cap)
        sources.append(azure_source(client, config, ttl=settings.ttl_azure_hours * hours,
                                    interval=settings.refresh_azure_hours * hours))
    if settings.feed:
        sources.append(feed_source(settings.feed, client, ttl=settings.ttl_feed_hours * hours,
                                   interval=settings.refresh_feed_hours * hours))
    if settings.ecb_enabled:
        sources.append(ecb_source(client, settings.ecb_url, ttl=settings.ttl_ecb_hours * hours,
                                  interval=settings.refresh_ecb_hours * hours))
    return sources


def freshness(sources: list[Source]) -> dict[str, Freshness]:
    return {s.name: Freshness(s.ttl, s.age_from_effective_date) for s in sources}


def configured_fx(settings: Settings) -> FxRate | None:
    if settings.usd_cny is None:
        return None
    when = settings.usd_cny_date
    return FxRate(rate=settings.usd_cny, rate_date=when or cache.now_utc().date(),
                  source="configured (GPU_ADVISOR_USD_CNY)" + ("" if when else ", undated"))


def open_cache(settings: Settings, sources: list[Source]) -> Database:
    """Open the database; on first use load the bundled rate card (local, no network) so quotes work at once."""
    db = cache.open_db(settings.db)
    if cache.count_prices(db) == 0 and cache.last_run(db, "ratecard", "ok") is None:
        refresh(db, next(s for s in sources if s.name == "ratecard"))
    return db
