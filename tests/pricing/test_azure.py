from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from pricing.azure import AzureConfig, build_filter, fetch
from pricing.errors import RecordError, SourceError, TransientSourceError
from pricing.records import PricingModel, Sharing

DATA = Path(__file__).parents[1] / "data"
NOW = datetime(2026, 11, 30, tzinfo=UTC)
BASE = "https://prices.azure.com/api/retail/prices"


def page(name: str) -> dict[str, object]:
    return json.loads((DATA / name).read_text())


def client(handler: Callable[[httpx.Request], httpx.Response]) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler))


def two_pages(request: httpx.Request) -> httpx.Response:
    if "$skip=100" in str(request.url):
        return httpx.Response(200, json=page("azure_page2.json"))
    return httpx.Response(200, json=page("azure_page1.json"))


def test_pages_are_followed_and_rows_mapped() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return two_pages(request)

    records = list(fetch(client(handler), AzureConfig(base_url=BASE), NOW))
    assert len(seen) == 2
    assert "armSkuName eq 'Standard_NC24ads_A100_v4'" in seen[0].url.params["$filter"]
    assert seen[0].url.params["currencyCode"] == "'USD'"
    by_key = {(r.instance_type, r.region, r.pricing_model): r for r in records}
    # Windows and Low Priority rows skipped, D4 (no GPU) ignored: on-demand + spot A100, H100 x8, A10 half
    assert len(records) == 4
    on_demand = by_key[("Standard_NC24ads_A100_v4", "eastus", PricingModel.ON_DEMAND)]
    assert on_demand.amount == 3.673  # the 2022 price, not the 2021 one nor the 2099 one
    assert on_demand.gpu == "A100-80GB" and on_demand.gpu_count == 1
    spot = by_key[("Standard_NC24ads_A100_v4", "eastus", PricingModel.SPOT)]
    assert spot.amount == 0.8815
    h100 = by_key[("Standard_ND96isr_H100_v5", "westeurope", PricingModel.ON_DEMAND)]
    assert (h100.gpu, h100.gpu_count) == ("H100-80GB", 8)
    assert h100.per_gpu_hour == pytest.approx(98.32 / 8)
    a10 = by_key[("Standard_NV18ads_A10_v5", "eastus", PricingModel.ON_DEMAND)]
    assert (a10.sharing, a10.gpu_count) == (Sharing.VGPU, 0.5)


def test_region_filter_is_sent() -> None:
    assert "armRegionName eq 'eastus'" in build_filter(AzureConfig(regions=("eastus",)))


def test_next_page_on_another_host_is_refused() -> None:
    body = page("azure_page1.json") | {"NextPageLink": "https://evil.example.com/api/retail/prices?$skip=100"}
    with pytest.raises(SourceError, match="another host"):
        list(fetch(client(lambda r: httpx.Response(200, json=body)), AzureConfig(base_url=BASE), NOW))


def test_page_cap() -> None:
    body = page("azure_page1.json")  # always links to a next page
    with pytest.raises(SourceError, match="more than 3 pages"):
        list(fetch(client(lambda r: httpx.Response(200, json=body)), AzureConfig(base_url=BASE, page_cap=3), NOW))


def test_empty_page_gives_no_rows() -> None:
    empty = {"BillingCurrency": "USD", "Items": [], "NextPageLink": None, "Count": 0}
    assert list(fetch(client(lambda r: httpx.Response(200, json=empty)), AzureConfig(base_url=BASE), NOW)) == []


@pytest.mark.parametrize("status", [429, 500, 503])
def test_rate_limit_and_server_errors_are_transient(status: int) -> None:
    response = httpx.Response(status, headers={"Retry-After": "7"}, text="busy")
    with pytest.raises(TransientSourceError) as caught:
        list(fetch(client(lambda r: response), AzureConfig(base_url=BASE), NOW))
    assert f"HTTP {status}" in str(caught.value)
    assert caught.value.retry_after == 7


def test_client_error_is_not_transient() -> None:
    with pytest.raises(SourceError) as caught:
        list(fetch(client(lambda r: httpx.Response(400, text="bad filter")), AzureConfig(base_url=BASE), NOW))
    assert not isinstance(caught.value, TransientSourceError)


def test_timeout_is_transient() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("slow", request=request)

    with pytest.raises(TransientSourceError, match="timed out"):
        list(fetch(client(handler), AzureConfig(base_url=BASE), NOW))


def test_malformed_json() -> None:
    with pytest.raises(SourceError, match="malformed JSON"):
        list(fetch(client(lambda r: httpx.Response(200, text="{not json")), AzureConfig(base_url=BASE), NOW))


def test_answer_without_items() -> None:
    with pytest.raises(SourceError, match="no Items list"):
        list(fetch(client(lambda r: httpx.Response(200, json={"error": "x"})), AzureConfig(base_url=BASE), NOW))


def test_insane_price_names_the_sku() -> None:
    body = page("azure_page2.json")
    body["Items"][0]["retailPrice"] = 98320.0  # type: ignore[index]
    with pytest.raises(RecordError) as caught:
        list(fetch(client(lambda r: httpx.Response(200, json=body)), AzureConfig(base_url=BASE), NOW))
    assert "Standard_ND96isr_H100_v5 in westeurope" in str(caught.value)
    assert "sane range" in str(caught.value)
