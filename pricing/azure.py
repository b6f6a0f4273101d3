"""Azure Retail Prices API (public, no authentication): GPU VM prices, on-demand and spot.

GET {base}?$filter=...&currencyCode='USD' returns {"Items": [...], "NextPageLink": ...}. Each item
has armSkuName, retailPrice, unitOfMeasure ("1 Hour"), skuName (" Spot" suffix for spot, " Low
Priority" for the retired product), armRegionName, currencyCode, type, effectiveStartDate and
productName (" Windows" for Windows VMs). Only Linux consumption rows of the SKUs below are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pydantic import ValidationError

from pricing.errors import RecordError, SourceError
from pricing.http import get
from pricing.records import Currency, PriceRecord, PricingModel, RegionClass, Sharing, Unit

# armSkuName -> (canonical GPU, GPUs or share of one GPU, sharing)
SKUS: dict[str, tuple[str, float, Sharing]] = {
    "Standard_NC24ads_A100_v4": ("A100-80GB", 1, Sharing.DEDICATED),
    "Standard_NC48ads_A100_v4": ("A100-80GB", 2, Sharing.DEDICATED),
    "Standard_NC96ads_A100_v4": ("A100-80GB", 4, Sharing.DEDICATED),
    "Standard_ND96asr_v4": ("A100-40GB", 8, Sharing.DEDICATED),
    "Standard_ND96amsr_A100_v4": ("A100-80GB", 8, Sharing.DEDICATED),
    "Standard_NC40ads_H100_v5": ("H100-94GB", 1, Sharing.DEDICATED),
    "Standard_NC80adis_H100_v5": ("H100-94GB", 2, Sharing.DEDICATED),
    "Standard_ND96isr_H100_v5": ("H100-80GB", 8, Sharing.DEDICATED),
    "Standard_ND96isr_H200_v5": ("H200-141GB", 8, Sharing.DEDICATED),
    "Standard_NC4as_T4_v3": ("T4-16GB", 1, Sharing.DEDICATED),
    "Standard_NC8as_T4_v3": ("T4-16GB", 1, Sharing.DEDICATED),
    "Standard_NC16as_T4_v3": ("T4-16GB", 1, Sharing.DEDICATED),
    "Standard_NC64as_T4_v3": ("T4-16GB", 4, Sharing.DEDICATED),
    "Standard_NV6ads_A10_v5": ("A10-24GB", 1 / 6, Sharing.VGPU),
    "Standard_NV12ads_A10_v5": ("A10-24GB", 1 / 3, Sharing.VGPU),
    "Standard_NV18ads_A10_v5": ("A10-24GB", 1 / 2, Sharing.VGPU),
    "Standard_NV36ads_A10_v5": ("A10-24GB", 1, Sharing.DEDICATED),
    "Standard_NV72ads_A10_v5": ("A10-24GB", 2, Sharing.DEDICATED),
}

PROVIDER = "azure"

if TYPE_CHECKING:
    import httpx


@dataclass(frozen=True)
class AzureConfig:
    base_url: str = "https://prices.azure.com/api/retail/prices"
    currency: Currency = Currency.USD
    regions: tuple[str, ...] = ()  # armRegionName values; empty means every region
    page_cap: int = 50


def build_filter(config: AzureConfig) -> str:
    skus = " or ".join(f"armSkuName eq '{sku}'" for sku in SKUS)
    parts = ["serviceName eq 'Virtual Machines'", "priceType eq 'Consumption'", f"({skus})"]
    if config.regions:
        parts.append("(" + " or ".join(f"armRegionName eq '{r}'" for r in config.regions) + ")")
    return " and ".join(parts)


def pages(client: httpx.Client, config: AzureConfig) -> Iterator[list[dict[str, Any]]]:
    """Every page of items, following NextPageLink on the same host, at most `page_cap` pages."""
    import httpx  # when a refresh asks: the terminal's quotes and lists never load it (bot/price_book.py)

    base = httpx.URL(config.base_url)
    # "$filter" spelled literally, as Azure documents it (httpx would send "%24filter")
    odata = quote(build_filter(config), safe="'()")
    query = f"$filter={odata}&currencyCode='{config.currency}'"
    url = base.copy_with(query=query.encode())
    for _ in range(config.page_cap):
        response = get(client, url)
        try:
            body = response.json()
        except ValueError:
            raise SourceError(f"Azure answered with malformed JSON from {url}") from None
        if not isinstance(body, dict) or not isinstance(body.get("Items"), list):
            raise SourceError(f"Azure answer from {url} has no Items list")
        yield [item for item in body["Items"] if isinstance(item, dict)]
        link = body.get("NextPageLink")
        if not link:
            return
        url = httpx.URL(str(link))
        if url.host != base.host:
            raise SourceError(f"NextPageLink points to another host ({url.host}); not followed")
    raise SourceError(f"Azure had more than {config.page_cap} pages; raise the page cap or narrow the regions")


def _keep(item: dict[str, Any]) -> bool:
    sku_name = str(item.get("skuName", ""))
    return (
        item.get("armSkuName") in SKUS
        and item.get("type") == "Consumption"
        and "Windows" not in str(item.get("productName", ""))
        and not sku_name.endswith("Low Priority")
        and item.get("unitOfMeasure") == "1 Hour"
    )


def _effective(item: dict[str, Any]) -> datetime:
    text = str(item.get("effectiveStartDate", ""))
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise SourceError(f"Azure item {item.get('meterId', '?')} has a bad effectiveStartDate {text!r}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def fetch(client: httpx.Client, config: AzureConfig, now: datetime, *, source: str = "azure") -> Iterator[PriceRecord]:
    """Price records in effect at `now`: of several rows for one meter, the latest that has started."""
    current: dict[tuple[str, str, bool], tuple[datetime, dict[str, Any]]] = {}
    for page in pages(client, config):
        for item in page:
            if not _keep(item):
                continue
            started = _effective(item)
            if started > now:
                continue
            spot = str(item.get("skuName", "")).endswith(" Spot")
            key = (str(item["armSkuName"]), str(item.get("armRegionName", "")), spot)
            if key not in current or started > current[key][0]:
                current[key] = (started, item)
    for (sku, region, spot), (started, item) in sorted(current.items()):
        gpu, count, sharing = SKUS[sku]
        try:
            amount = float(item["retailPrice"])
        except (KeyError, TypeError, ValueError):
            raise SourceError(f"Azure item for {sku} in {region} has no numeric retailPrice") from None
        if amount <= 0:
            continue  # free or retired meters
        if item.get("currencyCode", config.currency) != config.currency:
            raise SourceError(f"Azure answered in {item.get('currencyCode')!r}, not {config.currency}")
        try:
            record = PriceRecord(
                source=source,
                provider=PROVIDER,
                region=region or "unknown",
                region_class=RegionClass.CLOUD,
                instance_type=sku,
                gpu=gpu,
                gpu_count=count,
                sharing=sharing,
                pricing_model=PricingModel.SPOT if spot else PricingModel.ON_DEMAND,
                amount=amount,
                currency=config.currency,
                unit=Unit.HOUR,
                fetched_at=now,
                effective_date=started.date(),
                provenance=config.base_url,
                basis=f"Azure retail price, {item.get('skuName', sku)}",
            )
        except ValidationError as exc:
            problem = exc.errors()[0]["msg"].removeprefix("Value error, ")
            raise RecordError(config.base_url, None, f"{sku} in {region}", problem) from None
        yield record
