"""Which price a found instance takes: a bundled reference price of its cloud (the rate card's Alibaba Cloud A10, a
2026-09/10 snapshot) took the place of the cloud's own quote of that very instance type (¥9.74 for ¥11.62). A team's
own price of the cloud still wins; the reference is for an instance its cloud quoted nothing for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from bot.discover.run import pricer
from bot.state.discovered import Found
from pricing.offers import Offer
from pricing.records import PriceRecord

NOW = datetime(2026, 12, 7, tzinfo=UTC)


def offer(amount: float, flags: str = "", instance_type: str = "ecs.gn7i A10 24GB (pay-as-you-go)") -> Offer:
    record = PriceRecord(source="ratecard", provider="aliyun", instance_type=instance_type, gpu="A10-24GB",
                         gpu_count=1, pricing_model="on-demand", amount=amount, currency="CNY", unit="hour",
                         fetched_at=NOW, provenance="test", flags=flags)  # fmt: skip
    return Offer(record, NOW, timedelta(0), stale=False)


def a10(per_hour: float | None) -> Found:
    return Found("aliyun:i-1", "instance", "cn-hangzhou", "i-1", "running", instance_type="ecs.gn7i-c8g1.2xlarge",
                 gpu="A10-24GB", cards=1, per_hour=per_hour, currency="CNY")  # fmt: skip


def test_the_clouds_own_quote_before_a_reference_and_a_teams_price_before_both() -> None:
    reference = offer(9.74, flags="reference")
    assert reference.reference and not offer(10.5).reference

    def price(offers: list[Offer], item: Found) -> Any:
        return pricer(lambda gpu: offers)(item)

    assert price([reference], a10(11.62)) == (11.62, "hour", "CNY")  # the cloud quoted this very type
    assert price([reference], a10(None)) == (9.74, "hour", "CNY")  # it quoted nothing: the reference
    assert price([reference, offer(10.5, instance_type="team A10")], a10(11.62)) == (10.5, "hour", "CNY")
