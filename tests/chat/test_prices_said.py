"""Chat's `prices`: a provider said after the GPU (`价格 4090 autodl`) was read as part of the GPU's name (refused as
an unknown GPU, or dropped by the lenient name reader: `价格 4090 阿里云` listed every provider's), and past 40
prices the rest were left out without a word."""

from __future__ import annotations

import re
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
        refused = chat.command("价格 4090 腾讯云")  # a provider without prices: named, with those that have them
        assert "没有来自“tencent”的缓存价格：有价格的平台为 aliyun, autodl" in refused, refused
        alibaba = chat.command("阿里云A10多少钱")  # the bundled card's Alibaba row (domain.md's 2026-09/10 snapshot)
        assert "缓存的价格 — A10-24GB · aliyun" in alibaba and "9.74 CNY/小时" in alibaba, alibaba
        assert "没有 aliyun 的 A100-80GB 缓存价格；它有缓存价格的卡：A10-24GB" in chat.command("阿里云A100多少钱")
        assert "1.99 USD/小时" in chat.command("价格 A100-40GB lambda")  # a provider of the cache, after the GPU
        relay = chat.command("4090 在openrelay上多少钱")  # the bundled card's provider among the words: its alone
        assert "RTX4090-24GB · openrelay" in relay and "domestic-market-range" not in relay, relay
        hour = chat.command("A100在lambda上一小时多少钱")  # none of that card there: what lambda does price, said
        assert "lambda 有价格的卡：A10-24GB, A100-40GB, H100-80GB" in hour, hour
        assert "未知的 GPU 型号“B300”" in chat.command("prices B300")  # no GPU and no provider: the GPU's error
        none = chat.command("价格 H800")  # a known GPU with no price: it said "no cached prices match" alone
        assert "暂无 H800-80GB 的价格（有价格的 GPU：A10-24GB, A100-40GB" in none, none
        lacks = chat.command("价格 4090 autodl")  # the provider has prices, none of this GPU: what it has
        assert "没有 autodl 的 RTX4090-24GB 缓存价格；它有缓存价格的卡：" in lacks and "Ascend-910B2-64GB" in lacks
        every = chat.command("价格 4090")  # each price says whose it is (最便宜的4090在哪 asks where)
        assert "· openrelay · `ratecard`" in every and "· domestic-market-range · `ratecard`" in every, every
        asked = chat.command("AutoDL上4090多少钱")  # asked in words with the provider: that provider's
        assert "缓存的价格 — RTX4090-24GB · autodl" in asked, asked


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


def test_the_cheapest_is_named_first_in_the_teams_currency_a_whole_card_and_a_slice_apart(tmp_path: Path) -> None:
    """`最便宜的H100` listed every H100 price in the cache's order, dollars and yuan unranked: $3.5 an hour read
    below ¥24. Now the cheapest whole card (by the GPU-hour, in yuan at the quote's rate) and the cheapest slice
    (by its own hour) lead the list."""
    with driving("feishu", tmp_path) as chat:
        fetched = chat.deps.now()
        offered = [
            PriceRecord(source="feed", provider=provider, instance_type=what, gpu="H100-80GB", gpu_count=count,
                        sharing=sharing, pricing_model="on-demand", amount=amount, currency=currency, unit=unit,
                        fetched_at=fetched, provenance="test")
            for provider, what, count, sharing, amount, currency, unit in (
                ("acme", "h100-usd", 1, "dedicated", 3.5, "USD", "hour"),  # ¥25 an hour at about 7.2
                ("bazaar", "h100-cny", 1, "dedicated", 24, "CNY", "hour"),
                ("bazaar", "h100-month", 1, "dedicated", 20000, "CNY", "month"),  # ¥27.8 an hour, used all month
                ("bazaar", "h100-half", 0.5, "mig", 13, "CNY", "hour"),
            )
        ]  # fmt: skip
        db = cache.open_db(chat.deps.settings.files.db)
        with cache.writing(db):
            cache.replace_source(db, "feed", offered)
        said = chat.command("最便宜的H100在哪")
        assert "最便宜的整卡：bazaar 的 h100-cny，24 CNY/小时（约 ¥24/卡时）" in said, said
        assert "最便宜的切分：bazaar 的 h100-half（1/2 卡），13 CNY/小时" in said
        assert "3.5 USD/小时" in said and "20000 CNY/月" in said  # the list follows, whole
        english = chat.command("cheapest H100")
        assert "Cheapest whole card: h100-cny at bazaar, 24 CNY/hour (about ¥24 a GPU-hour)" in english
        assert "Cheapest" not in chat.command("prices H100")  # asked for the list alone: the list alone
        with cache.writing(db):
            cache.replace_source(db, "feed", offered[2:3])
        monthly = chat.command("prices H100 cheapest")
        assert "最便宜的整卡：bazaar 的 h100-month，20000 CNY/月（包月：整月都用时约 ¥27.78/卡时）" in monthly


def test_the_cheapest_of_every_card_cheapest_first(tmp_path: Path) -> None:
    """`有没有便宜点的卡` and `最便宜的卡` were unknown sub-commands, and `prices cheapest` listed every offer unranked:
    each card's cheapest whole-card GPU-hour, in the team's currency, cheapest first."""
    import re

    with driving("wecom", tmp_path) as chat:
        said = chat.command("有没有便宜点的卡")
        assert said.startswith("**各款卡整卡每卡时的最低价**（以 CNY 计"), said
        rows = [line for line in said.splitlines() if line.startswith("• ")]
        hourly = [float(re.search(r"¥([\d,.]+)/卡时", row)[1].replace(",", "")) for row in rows]  # type: ignore[index]
        assert len(rows) >= 5 and hourly == sorted(hourly), said
        assert "A100-80GB：¥15.97/卡时 · domestic-reference（按月计费" in said  # ¥11,500 a month of 720 hours
        assert chat.command("prices cheapest") == said


def test_a_run_asked_on_a_provider_is_quoted_there(tmp_path: Path) -> None:
    """`A100 在阿里云上跑一周多少钱` gave the Alibaba prices without the run, `报价 A10 4x14 在阿里云上` refused its
    last word: the run quoted at that provider (`provider=`), in chat as in the terminal."""
    with driving("dingtalk", tmp_path) as chat:
        for asked in ("A10 在阿里云上跑一周多少钱", "报价 A10 每天24小时 7天 在阿里云上", "quote A10 24x7 on aliyun"):
            said = chat.command(asked)
            assert "A10-24GB × 1" in said and "¥1,636" in said, (asked, said)  # 168 h at Alibaba's ¥9.74
        assert "¥1,636" not in chat.command("A10 跑一周多少钱")  # the cheapest provider's: Lambda's


def test_a_card_then_words_not_read_says_what_a_card_takes_and_each_of_them_works(tmp_path: Path) -> None:
    """`4090 在autodl和openrelay哪个划算` was "unknown sub-command '4090'"; a card asked against two providers
    (`is H100 cheaper on runpod or lambda`) was not understood: its prices, the cheapest first."""
    with driving("dingtalk", tmp_path) as chat:
        said = chat.command("A100 哈哈")
        assert "A100 是卡型，但后面的“哈哈”没读懂" in said, said
        for suggested in re.findall(r"`([^`]+)`", said.split("没读懂")[1]):  # every command it suggests answers
            answered = chat.command(suggested)
            assert "没读懂" not in answered and "未知的子命令" not in answered and "无法" not in answered, suggested
        english = chat.command("A100 lol")
        for suggested in re.findall(r"`([^`]+)`", english.split("not read after it")[1]):
            answered = chat.command(suggested)
            assert "did not understand" not in answered and "unknown sub-command" not in answered, suggested
        weighed = chat.command("is H100 cheaper on runpod or lambda")
        assert "Cheapest whole card: 1x H100 SXM 80GB (on-demand) at lambda" in weighed, weighed
