"""Chat's `prices`: a provider said after the GPU (`价格 4090 autodl`) was read as part of the GPU's name (refused as
an unknown GPU, or dropped by the lenient name reader: `价格 4090 阿里云` listed every provider's), and past 40
prices the rest were left out without a word."""

from __future__ import annotations

from pathlib import Path

from pricing import cache
from pricing.records import PriceRecord
from tests.chat.test_both_platforms import driving


def test_a_provider_said_after_the_gpu_keeps_its_prices_alone(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        said = chat.command("价格 autodl")
        assert "缓存的价格 — autodl" in said and "`ratecard`" in said
        assert "lambda" not in said and "400 CNY/天" not in said
        assert "1.99 USD/小时" in chat.command("prices A100-40GB provider=lambda")
        assert "1.99 USD/小时" not in chat.command("prices A100-40GB provider=autodl")
        refused = chat.command("价格 4090 阿里云")  # a provider without prices: named, with those that have them
        assert "没有来自“aliyun”的缓存价格：有价格的平台为 autodl" in refused
        assert "1.99 USD/小时" in chat.command("价格 A100-40GB lambda")  # a provider of the cache, after the GPU
        assert "未知的 GPU 型号“B300”" in chat.command("prices B300")  # no GPU and no provider: the GPU's error
        none = chat.command("价格 H800")  # a known GPU with no price: it said "no cached prices match" alone
        assert "暂无 H800-80GB 的价格（有价格的 GPU：A10-24GB, A100-40GB" in none, none


def test_past_forty_prices_how_many_more_is_said(tmp_path: Path) -> None:
    with driving("slack", tmp_path) as chat:
        fetched = chat.deps.now()
        many = [
            PriceRecord(source="feed", provider="acme", instance_type=f"x{n}", gpu="A100-80GB", gpu_count=1,
                        pricing_model="on-demand", amount=10 + n, currency="CNY", unit="hour", fetched_at=fetched,
                        provenance="test")
            for n in range(45)
        ]  # fmt: skip
        db = cache.open_db(chat.deps.settings.files.db)
        with cache.writing(db):
            cache.replace_source(db, "feed", many)
        shown = len(chat.deps.prices.offers(gpu="A100-80GB"))
        said = chat.command("prices A100 acme")
        assert "x39 ·" in said and "x40 ·" not in said and "…and 5 more: name a GPU or a provider" in said
        assert shown > 45  # the bundled card's A100 prices too, which `acme` left out
