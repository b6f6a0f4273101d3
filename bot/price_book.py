"""The price side, built from Settings: the HTTP client, the sources, the cache, and quotes from it.

`PriceBook` is the one way the Slack app and the CLI reach prices: each call opens its own
connection to the cache (listeners and scheduled jobs run on worker threads).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from bot.settings import Settings
from pricing import cache
from pricing.azure import AzureConfig
from pricing.fx import FxRate, configured
from pricing.offers import Freshness, Offer, as_offers
from pricing.refresh import refresh
from pricing.sources import (
    Source,
    aliyun_source,
    azure_source,
    ecb_source,
    feed_source,
    gpuhunt_source,
    rate_card_source,
    tencent_source,
)
from pricing.sqlite_db import PriceDb
from pricing.status import SourceState, source_status
from rules.worth import Worth

if TYPE_CHECKING:
    import httpx

    from pricing.compare import ProviderOffer
    from pricing.options import Money
    from pricing.quote import Quote, QuoteRequest
    from rules.policy import Policy

USER_AGENT = "gpu-advisor/0.1"


def http_client(settings: Settings) -> httpx.Client:
    """The price sources' HTTP client, made when a source first sends a request: a quote, a list or a report reads
    the cache and never does, and importing httpx with its TLS context was 0.15 s of each such command's start (of
    0.4 s). Used as the client it stands for (its methods, and closed by `with` or close())."""
    return cast("httpx.Client", _OnFirstUse(settings.prices.http_timeout_s))


class _OnFirstUse:
    """An httpx.Client made on the first use of any of its attributes, once, whichever thread asks first."""

    def __init__(self, timeout_s: float) -> None:
        self._timeout_s = timeout_s
        self._client: httpx.Client | None = None
        self._making = threading.Lock()

    def _made(self) -> httpx.Client:
        with self._making:
            if self._client is None:
                import httpx

                from bot.tls import shared_context  # here: ssl's import is 5-10 ms of a quote that only reads

                self._client = httpx.Client(
                    timeout=self._timeout_s,
                    headers={"User-Agent": USER_AGENT},
                    follow_redirects=True,
                    verify=shared_context(),
                )
            return self._client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._made(), name)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def __enter__(self) -> _OnFirstUse:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def tencent_prices(settings: Settings, hours: timedelta) -> Source:
    """Tencent Cloud's price source, asking with the discovery's client (its credentials, endpoint and retries)."""
    from bot.discover.cloud import CloudError
    from bot.discover.tencent import Tencent
    from pricing.aliyun import AskError
    from pricing.tencent import types_of

    cloud = Tencent(
        settings.discovery.tencent_region_list(),
        settings.discovery.tencent_endpoint,
        backoff_s=settings.discovery.tencent_retry_backoff_s,
    )

    def ask(region: str, action: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return cloud.call("cvm", region, action, params)
        except CloudError as exc:
            key = getattr(exc.problem, "key", "")
            raise AskError(str(exc), transient=key in ("cloud.throttled", "cloud.unreachable")) from None

    configured = types_of(settings.discovery.tencent_price_types)
    return tencent_source(
        ask,
        settings.discovery.tencent_region_list(),
        lambda: found_types(cloud, configured, "Tencent Cloud", "GPU_ADVISOR_TENCENT_PRICE_TYPES", "GN7.2XLARGE32=T4"),
        where=settings.discovery.tencent_endpoint or "cvm.tencentcloudapi.com",
        ttl=settings.discovery.ttl_tencent_hours * hours,
        interval=settings.discovery.refresh_tencent_hours * hours,
    )


def aliyun_prices(settings: Settings, hours: timedelta) -> Source:
    """Alibaba Cloud's price source, asking with the discovery's client, for the types a scan finds and those named."""
    from bot.discover.aliyun import Aliyun
    from bot.discover.registry import clouds

    cloud = clouds(settings)["aliyun"]()
    assert isinstance(cloud, Aliyun)
    return aliyun_source(
        cloud.ask,
        settings.discovery.aliyun_region_list(),
        lambda: list(
            found_types(
                cloud,
                dict.fromkeys(settings.discovery.aliyun_price_type_list()),
                "Alibaba Cloud",
                "GPU_ADVISOR_ALIYUN_PRICE_TYPES",
                "ecs.gn7i-c8g1.2xlarge",
            )
        ),
        where=settings.discovery.aliyun_endpoint or "ecs.aliyuncs.com",
        ttl=settings.prices.ttl_aliyun_hours * hours,
        interval=settings.prices.refresh_aliyun_hours * hours,
    )


def build_sources(settings: Settings, client: httpx.Client) -> list[Source]:
    hours = timedelta(hours=1)
    sources = [
        rate_card_source(
            settings.prices.rate_card_paths(),
            ttl=timedelta(days=settings.prices.ttl_ratecard_days),
            interval=settings.prices.refresh_ratecard_hours * hours,
        )
    ]
    if settings.prices.azure_enabled:
        config = AzureConfig(
            base_url=settings.prices.azure_base_url,
            regions=settings.prices.azure_region_list(),
            page_cap=settings.prices.azure_page_cap,
        )
        sources.append(
            azure_source(
                client,
                config,
                ttl=settings.prices.ttl_azure_hours * hours,
                interval=settings.prices.refresh_azure_hours * hours,
            )
        )
    if settings.prices.feed:
        sources.append(
            feed_source(
                settings.prices.feed,
                client,
                ttl=settings.prices.ttl_feed_hours * hours,
                interval=settings.prices.refresh_feed_hours * hours,
            )
        )
    for provider in settings.prices.gpuhunt_provider_list():
        from pricing.gpuhunt_source import Catalog  # only where a gpuhunt catalog is a source

        catalog = Catalog(
            provider,
            Path(settings.prices.gpuhunt_catalog_dir) if settings.prices.gpuhunt_catalog_dir else None,
            settings.prices.gpuhunt_catalog_url,
            client,
        )
        sources.append(
            gpuhunt_source(
                catalog,
                ttl=timedelta(days=settings.prices.ttl_gpuhunt_days),
                interval=settings.prices.refresh_gpuhunt_hours * hours,
            )
        )
    if settings.discovery.aliyun_region_list():
        sources.append(aliyun_prices(settings, hours))
    if settings.discovery.tencent_region_list():
        sources.append(tencent_prices(settings, hours))
    if settings.prices.ecb_enabled:
        sources.append(
            ecb_source(
                client,
                settings.prices.ecb_url,
                ttl=settings.prices.ttl_ecb_hours * hours,
                interval=settings.prices.refresh_ecb_hours * hours,
            )
        )
    return [replace(s, backoff_s=settings.prices.refresh_backoff_s) for s in sources]


def found_types(
    cloud: Any, configured: dict[str, str | None], who: str, setting: str, example: str
) -> dict[str, str | None]:
    """The instance types to price, each with its GPU: those of the GPU instances `cloud` lists (running or stopped;
    nothing priced, no disks) beside those `setting` names. SourceError when the listing fails, or finds none and
    the setting names none (the refusal names the setting)."""
    from bot.discover.cloud import CloudError
    from pricing.errors import SourceError

    try:
        scan = cloud.listed()
    except CloudError as exc:
        raise SourceError(f"{who}'s instances not read: {exc}") from None
    found = {f.instance_type: f.gpu for f in scan.found if f.kind == "instance" and f.instance_type}
    types = found | configured  # a type the setting names keeps the GPU it names
    if not types:
        problems = "; ".join(f"{k}: {v}" for k, v in scan.problems.items())
        raise SourceError(
            f"no {who} GPU instance found to price"
            + (f" ({problems})" if problems else "")
            + f": name the instance types to price in {setting} ({example}, ...)"
        )
    return types


def freshness(sources: list[Source]) -> dict[str, Freshness]:
    return {s.name: Freshness(s.ttl, s.age_from_effective_date) for s in sources}


def configured_fx(settings: Settings) -> FxRate | None:
    return configured(settings.prices.usd_cny, settings.prices.usd_cny_date)


def open_cache(settings: Settings, sources: list[Source]) -> PriceDb:
    """Open the database; on first use load the bundled rate card (local, no network) so quotes work at once, and
    load it again when what it is read from changed since its last run (a team's rate card edited, an upgrade's
    bundled one): the prices a command quotes are the files as they are now, not as `serve` last read them."""
    db = cache.open_db(settings.files.db)
    ratecard = next(s for s in sources if s.name == "ratecard")
    last = cache.last_run(db, "ratecard")
    first_use = cache.count_prices(db) == 0 and cache.last_run(db, "ratecard", "ok") is None
    changed = ratecard.inputs is not None and last is not None and last.get("inputs") != ratecard.inputs()
    if first_use or changed:
        refresh(db, ratecard)
    return db


@dataclass
class PriceBook:
    """Quotes, cached offers and source status for one set of settings and sources. Its policy prices quotes and
    comparisons; a book opened without one (`prices list`, `status`, `refresh`, which price nothing) reads the
    settings' policy file when first asked for a quote, so listing imports no policy and no quote's models."""

    settings: Settings
    policy: Policy | None
    sources: list[Source]
    now: Callable[[], datetime] = lambda: datetime.now(UTC)

    @classmethod
    def open(
        cls,
        settings: Settings,
        policy: Policy | None,
        client: httpx.Client,
        *,
        now: Callable[[], datetime] | None = None,
    ) -> PriceBook:
        """Build the sources and make sure the cache is usable (CacheUnavailable if not), loading the
        bundled rate card on first use."""
        book = cls(settings, policy, build_sources(settings, client), now or (lambda: datetime.now(UTC)))
        open_cache(settings, book.sources).close()
        return book

    def db(self) -> PriceDb:
        """A connection for this call (callers run on different threads)."""
        return cache.open_db(self.settings.files.db)

    def pricing_policy(self) -> Policy:
        """The policy quotes are priced with: the book's, else the settings' policy file (the bundled one)."""
        if self.policy is None:
            from rules.policy import load_policy

            self.policy = load_policy(self.settings.files.policy)
        return self.policy

    def quote(self, request: QuoteRequest) -> Quote:
        """The quote for `request` from the price cache; raises QuoteError when none can be made."""
        from pricing.book import quote_from_cache

        db = self.db()
        try:
            return quote_from_cache(
                db,
                request,
                self.pricing_policy(),
                freshness(self.sources),
                configured_fx=configured_fx(self.settings),
                now=self.now(),
            )
        finally:
            db.close()

    def compare(self, request: QuoteRequest) -> list[ProviderOffer]:
        """The schedule priced at each provider, cheapest total first (QuoteError for an unknown GPU)."""
        from pricing.book import compare_from_cache

        db = self.db()
        try:
            return compare_from_cache(
                db,
                request,
                self.pricing_policy(),
                freshness(self.sources),
                configured_fx=configured_fx(self.settings),
                now=self.now(),
            )
        finally:
            db.close()

    def offers(self, gpu: str | None = None, source: str | None = None) -> list[Offer]:
        """The cached offers (of `gpu`; a family named without its variant, "Ascend 910B", is its variants' rows,
        as a quote prices it)."""
        from rules.gpus import VARIANTS

        db = self.db()
        try:
            rows = cache.load_prices(db, gpu=gpu, source=source)
            if gpu is not None and not rows:
                rows = [
                    row
                    for variant in VARIANTS.get(gpu, ())
                    for row in cache.load_prices(db, gpu=variant, source=source)
                ]
            return as_offers(rows, freshness(self.sources), self.now())
        finally:
            db.close()

    def money(self, currency: str) -> Money:
        """Amounts in `currency` at the rate a quote would take (configured, fetched, or the bundled fallback):
        `prices A100 cheapest` ranks offers in dollars and yuan alike. QuoteError for a pair with no rate."""
        from pricing.book import pick_fx
        from pricing.options import Money

        db = self.db()
        try:
            fx = pick_fx(db, configured_fx(self.settings))
        finally:
            db.close()
        return Money(currency, fx, fx.euro)

    def worth(self) -> Worth:
        """The team's amounts on one scale (GPU_ADVISOR_CURRENCY), for ordering (bot/settings/worth.py)."""
        from bot.settings.worth import team_worth

        return team_worth(self.settings)

    def priced_gpus(self) -> list[str]:
        """The GPUs with a cached price (`prices H800` with none names them, as a quote of it does)."""
        db = self.db()
        try:
            return cache.priced_gpus(db)
        finally:
            db.close()

    def status(self) -> list[SourceState]:
        """Each source's state. CacheUnavailable, naming the file, when the cache cannot be read."""
        db = self.db()
        try:
            with cache.readable(self.settings.files.db):
                return source_status(db, self.sources, self.now())
        finally:
            db.close()
