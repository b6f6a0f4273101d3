"""Tencent Cloud's own prices as the price-cache source `tencent`, against the local fake of its API 3.0 (the TC3
signature checked): each configured type with its GPU, the region's cheapest zone in stock, the cheaper tiers past
96 h and 360 h named, a vGPU type as a share; a type without its GPU, or not sold there, said in the note."""

from __future__ import annotations

import math
from pathlib import Path

import httpx
import pytest

from bot.price_book import PriceBook, build_sources
from bot.settings import Settings
from bot.tls import shared_context
from pricing import cache
from pricing.quote_models import QuoteRequest
from pricing.records import Sharing
from pricing.refresh import refresh
from rules.policy import load_policy
from tests.support.fake_tencent import ENV, fake_tencent


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def test_configured_types_are_priced_from_the_clouds_cheapest_zone(tmp_path: Path) -> None:
    with fake_tencent() as fake, httpx.Client(verify=shared_context()) as client:
        fake.price("ap-guangzhou-3", "GN7.2XLARGE32", 8.68)
        fake.price("ap-guangzhou-4", "GN7.2XLARGE32", 7.9, status="SOLD_OUT")  # cheaper, but out of stock
        fake.price("ap-guangzhou-6", "GN7.2XLARGE32", 8.1)
        fake.price("ap-guangzhou-3", "GN7VW.2XLARGE32", 3.2, gpu_count=0.25)
        settings = Settings(
            db=tmp_path / "prices.db",
            tencent_regions="ap-guangzhou",
            tencent_endpoint=fake.url,
            tencent_price_types="GN7.2XLARGE32=T4,GN7VW.2XLARGE32=T4,GNV4.4XLARGE48=A10,GT4.4XLARGE96,GX9.8XLARGE=B9000",
            azure_enabled=False,
            ecb_enabled=False,
        )
        [source] = [s for s in build_sources(settings, client) if s.name == "tencent"]
        db = cache.open_db(settings.files.db)
        done = refresh(db, source)
        assert done.ok, done.error
        rows = {r.instance_type: r for r in cache.load_prices(db, source="tencent")}
    whole = rows["GN7.2XLARGE32"]
    assert (whole.gpu, whole.gpu_count, whole.amount, whole.currency, whole.sharing) == (
        "T4-16GB",
        1,
        8.1,
        "CNY",
        Sharing.DEDICATED,
    )
    assert "ap-guangzhou-6" in whole.provenance and "(past 96 h / 360 h: ¥6.48 / ¥4.05)" in whole.basis
    share = rows["GN7VW.2XLARGE32"]
    assert (share.gpu_count, share.sharing) == (0.25, Sharing.VGPU)
    note = source.note() or ""
    assert "GT4.4XLARGE96: name its GPU (GT4.4XLARGE96=T4)" in note
    assert "GNV4.4XLARGE48 in ap-guangzhou: not sold there by the hour" in note
    assert "GX9.8XLARGE: B9000 is not a GPU the catalogue knows" in note and "GX9.8XLARGE" not in rows


def test_the_types_discovery_finds_are_priced_without_the_setting_and_none_at_all_is_said(tmp_path: Path) -> None:
    """Issue 52: `prices refresh --source tencent` was refused unless GPU_ADVISOR_TENCENT_PRICE_TYPES was set, though
    discovery knows each found type's GPU (the instance's GPUInfo). Now those types are priced; with none found and
    none named, the refresh says so, naming the setting."""
    with fake_tencent() as fake, httpx.Client(verify=shared_context()) as client:
        fake.price("ap-guangzhou-3", "GN7.2XLARGE32", 8.68)
        settings = Settings(db=tmp_path / "prices.db", tencent_regions="ap-guangzhou", tencent_endpoint=fake.url,
                            azure_enabled=False, ecb_enabled=False)  # fmt: skip
        [source] = [s for s in build_sources(settings, client) if s.name == "tencent"]
        db = cache.open_db(settings.files.db)
        nothing = refresh(db, source, sleep=lambda s: None)
        assert not nothing.ok and "GPU_ADVISOR_TENCENT_PRICE_TYPES" in str(nothing.error)
        fake.add(instance_type="GN7.2XLARGE32", gpu_type="NVIDIA T4")
        done = refresh(db, source, sleep=lambda s: None)
        assert done.ok, done.error
        [row] = cache.load_prices(db, source="tencent")
    assert (row.instance_type, row.gpu, row.amount) == ("GN7.2XLARGE32", "T4-16GB", 8.68)


def test_a_round_the_clock_month_on_a_tiered_type_is_quoted_with_its_tiers(tmp_path: Path) -> None:
    """Issue 52: the cheaper tiers past 96 h and 360 h were named but not used in the arithmetic. A 24/7 month (720 h)
    of GN7.2XLARGE32 at 8.68 is 96 h at 8.68, 264 h at 6.94 and 360 h at 4.34; 10-hour runs released between them
    never pass 96 h and stay at 8.68."""
    with fake_tencent() as fake, httpx.Client(verify=shared_context()) as client:
        fake.price("ap-guangzhou-3", "GN7.2XLARGE32", 8.68)
        settings = Settings(db=tmp_path / "prices.db", tencent_regions="ap-guangzhou", tencent_endpoint=fake.url,
                            tencent_price_types="GN7.2XLARGE32=T4", azure_enabled=False, ecb_enabled=False)  # fmt: skip
        [source] = [s for s in build_sources(settings, client) if s.name == "tencent"]
        assert refresh(cache.open_db(settings.files.db), source).ok
        [row] = cache.load_prices(cache.open_db(settings.files.db), source="tencent")
        assert (row.amount_after_96h, row.amount_after_360h) == (6.94, 4.34)  # kept with the record
        book = PriceBook.open(settings, load_policy(None), client)
        month = book.quote(QuoteRequest(gpu="T4", hours_per_day=24, days=30, provider="tencent"))
        runs = book.quote(QuoteRequest(gpu="T4", hours_per_day=10, days=30, provider="tencent"))
    assert month.dedicated is not None and runs.dedicated is not None
    assert math.isclose(month.dedicated.amount, round(96 * 8.68 + 264 * 6.94 + 360 * 4.34, 2), abs_tol=0.02)
    assert math.isclose(runs.dedicated.amount, round(300 * 8.68, 2), abs_tol=0.02)
