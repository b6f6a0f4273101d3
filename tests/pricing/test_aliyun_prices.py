"""Alibaba Cloud's own prices as a price-cache source `aliyun`: DescribeInstanceTypes for what GPUs a configured
type carries, DescribePrice for its pay-as-you-go price an hour in each region, DescribeSpotPriceHistory for the
cheapest zone's latest spot price, all through the official SDK against the local fake (signatures checked).
A type a region does not sell is left out and said; throttling is a transient failure the cache rides out."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from bot.price_book import PriceBook, build_sources
from bot.settings import Settings
from bot.tls import shared_context
from pricing import cache
from pricing.refresh import refresh
from rules.policy import load_policy
from tests.support.fake_aliyun import ENV, fake_aliyun

NOW = datetime(2026, 12, 2, 9, tzinfo=UTC)
GN7I, GN7E = "ecs.gn7i-c8g1.2xlarge", "ecs.gn7e-c16g1.16xlarge"


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def settings(tmp_path: Path, url: str) -> Settings:
    return Settings(
        db=tmp_path / "prices.db",
        aliyun_regions="cn-hangzhou,cn-shanghai",
        aliyun_endpoint=url,
        aliyun_price_types=f"{GN7I}, {GN7E}, ecs.g7.large",
        aliyun_retry_backoff_s=0.001,
        azure_enabled=False,
        ecb_enabled=False,
    )


def test_configured_types_are_priced_per_region_on_demand_and_spot(tmp_path: Path) -> None:
    with fake_aliyun() as fake:
        fake.types = {GN7I: ("NVIDIA A10", 1), GN7E: ("NVIDIA A800", 8), "ecs.g7.large": ("", 0)}
        fake.prices |= {("cn-hangzhou", GN7I): 11.62, ("cn-shanghai", GN7I): 12.1, ("cn-hangzhou", GN7E): 245.0}
        fake.spot_prices[("cn-hangzhou", GN7I)] = 2.3
        config = settings(tmp_path, fake.url)
        [source] = [s for s in build_sources(config, httpx.Client(verify=shared_context())) if s.name == "aliyun"]
        result = refresh(cache.open_db(config.files.db), source, now=lambda: NOW, sleep=lambda s: None)
        assert result.ok, result
        book = PriceBook.open(config, load_policy(None), httpx.Client(verify=shared_context()), now=lambda: NOW)
        found = {
            (o.record.region, o.record.instance_type, o.record.pricing_model.value): o.record
            for o in book.offers(source="aliyun")
        }
        assert set(found) == {
            ("cn-hangzhou", GN7I, "on-demand"),
            ("cn-hangzhou", GN7I, "spot"),
            ("cn-shanghai", GN7I, "on-demand"),
            ("cn-hangzhou", GN7E, "on-demand"),
        }
        a10 = found[("cn-hangzhou", GN7I, "on-demand")]
        assert (a10.gpu, a10.gpu_count, a10.amount, a10.currency, a10.unit) == ("A10-24GB", 1, 11.62, "CNY", "hour")
        assert a10.provider == "aliyun" and a10.provenance.startswith("Alibaba Cloud DescribePrice")
        assert found[("cn-hangzhou", GN7E, "on-demand")].gpu == "A800-80GB"
        assert found[("cn-hangzhou", GN7I, "spot")].amount == 2.3
        [state] = [s for s in book.status() if s.source == "aliyun"]
        assert state.note is not None
        assert "ecs.g7.large: no GPU the catalogue knows" in state.note
        assert f"{GN7E} in cn-shanghai: InvalidInstanceType.ValueNotSupported" in state.note
        asked = [p for a, p in fake.calls if a == "DescribePrice"]
        assert all((p["ResourceType"], p["PriceUnit"]) == ("instance", "Hour") for p in asked)


def test_throttled_is_retried_and_the_cache_keeps_its_last_good_prices(tmp_path: Path) -> None:
    with fake_aliyun() as fake:
        fake.types = {GN7I: ("NVIDIA A10", 1)}
        fake.prices[("cn-hangzhou", GN7I)] = 11.62
        config = settings(tmp_path, fake.url)
        [source] = [s for s in build_sources(config, httpx.Client(verify=shared_context())) if s.name == "aliyun"]
        db = cache.open_db(config.files.db)
        assert refresh(db, source, now=lambda: NOW, sleep=lambda s: None).ok
        fake.throttle["DescribeInstanceTypes"] = 99
        failed = refresh(db, source, now=lambda: NOW, sleep=lambda s: None)
        assert not failed.ok and "throttled by Alibaba Cloud (Throttling.User)" in (failed.error or "")
        book = PriceBook.open(config, load_policy(None), httpx.Client(verify=shared_context()), now=lambda: NOW)
        assert [o.record.amount for o in book.offers(source="aliyun")] == [11.62]


def test_the_types_discovery_finds_are_priced_without_the_setting_and_none_at_all_is_said(tmp_path: Path) -> None:
    """Issue 52: `prices refresh --source aliyun` was refused unless GPU_ADVISOR_ALIYUN_PRICE_TYPES was set, though
    discovery knows each found instance's type. Now the found types are priced; with none found and none set, the
    refusal names the setting."""
    with fake_aliyun() as fake:
        fake.prices[("cn-hangzhou", GN7I)] = 11.73
        config = settings(tmp_path, fake.url)
        config.discovery.aliyun_price_types = ""
        [source] = [s for s in build_sources(config, httpx.Client(verify=shared_context())) if s.name == "aliyun"]
        nothing = refresh(cache.open_db(config.files.db), source, now=lambda: NOW, sleep=lambda s: None)
        assert not nothing.ok and "GPU_ADVISOR_ALIYUN_PRICE_TYPES" in str(nothing.error)
        fake.add(name="a10-box")  # a GN7I instance running in cn-hangzhou
        found = refresh(cache.open_db(config.files.db), source, now=lambda: NOW, sleep=lambda s: None)
        assert found.ok, found
        book = PriceBook.open(config, load_policy(None), httpx.Client(verify=shared_context()), now=lambda: NOW)
        priced = {(o.record.region, o.record.instance_type): o.record.amount for o in book.offers(source="aliyun")}
        assert priced[("cn-hangzhou", GN7I)] == 11.73
