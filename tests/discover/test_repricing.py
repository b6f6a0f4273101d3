"""A found item's price follows its source (issue 52): after Alibaba Cloud's price for ecs.gn7i-c8g1.2xlarge moved
from 9.46 to 11.73 CNY/h, the found A10 stayed at 9.46 (¥227 a day shown, ¥281.52 right). Each scan now prices it
again, the hours before billed at the price they had; a price set by hand is kept, whatever a scan finds. The fake
Alibaba Cloud answers as the real API does, through the official SDK."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from bot.discover.aliyun import Aliyun
from bot.discover.autodl import AutoDL
from bot.discover.run import discover
from bot.settings import Settings
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from bot.tls import shared_context
from pricing.offers import Freshness, as_offers
from pricing.records import PriceRecord
from rules import metering
from tests.discover.test_aliyun import GN7I, NOW, keys, run, settings, store_in
from tests.support.fake_aliyun import fake_aliyun
from tests.support.fake_autodl import TOKEN, fake_autodl

__all__ = ["keys"]  # the fixture that gives the fake's keys to the SDK


def test_each_scan_prices_a_found_item_again_and_the_hours_before_keep_their_price(tmp_path: Path) -> None:
    with fake_aliyun() as fake:
        fake.prices[("cn-hangzhou", GN7I)] = 9.46
        box = fake.add(name="a10-box")
        store = store_in(tmp_path)
        run(tmp_path, fake, store)
        fake.prices[("cn-hangzhou", GN7I)] = 11.73  # the source's price moved
        later = NOW + timedelta(hours=10)
        report = run(tmp_path, fake, store, later)
        assert report.applied.repriced == [("a10-box", 9.46, 11.73, "hour", "CNY")]
        [item] = Rentals(store).instances("T1")
        assert (item.price, item.price_since, item.price_by) == (11.73, later, None)
        assert item.provider_id == f"aliyun:{box.id}"
        end = NOW + timedelta(hours=20)
        [stretches] = PowerLog(store).timelines([item], end).values()
        assert metering.cost(item, stretches, NOW, end) == pytest.approx(10 * 9.46 + 10 * 11.73)
        assert metering.per_hour(item) * 24 == pytest.approx(281.52)  # a day at today's price
        again = run(tmp_path, fake, store, later + timedelta(hours=1))  # the same price: nothing changes
        assert again.applied.repriced == []


def test_a_price_set_by_hand_is_kept_through_every_scan(tmp_path: Path) -> None:
    with fake_aliyun() as fake:
        fake.prices[("cn-hangzhou", GN7I)] = 9.46
        fake.add(name="a10-box")
        store = store_in(tmp_path)
        run(tmp_path, fake, store)
        Rentals(store).set_price("T1", "a10-box", 1.88, "hour", "U1", NOW + timedelta(hours=2))
        fake.prices[("cn-hangzhou", GN7I)] = 11.73
        report = run(tmp_path, fake, store, NOW + timedelta(hours=4))
        [item] = Rentals(store).instances("T1")
        assert report.applied.repriced == [] and (item.price, item.price_by) == (1.88, "U1")
        [stretches] = PowerLog(store).timelines([item], NOW + timedelta(hours=4)).values()
        assert metering.cost(item, stretches, NOW, NOW + timedelta(hours=4)) == pytest.approx(2 * 9.46 + 2 * 1.88)


def test_serve_says_a_price_change_once_in_the_items_channel(tmp_path: Path) -> None:
    """The discovery job of serve tells the item's channel, through its chat (the fake Slack), once per change."""
    from bot.server.jobs import jobs_of
    from tests.support.slack_harness import running_app

    with fake_aliyun() as fake:
        fake.prices[("cn-hangzhou", GN7I)] = 9.46
        fake.add(name="a10-box")
        extra = {"aliyun_regions": "cn-hangzhou", "aliyun_endpoint": fake.url, "discover_channel": "CGPU"}
        with running_app(tmp_path, **extra) as h:
            [job] = [j for j in jobs_of(h.settings, h.deps, h.doors()) if j.id == "discover:aliyun"]
            job.work()
            fake.prices[("cn-hangzhou", GN7I)] = 11.73
            h.clock.advance(hours=10)
            job.work()
            job.work()  # the same price again: nothing more to say
            said = [p for p in h.fake.of("chat.postMessage") if "a10-box" in str(p.get("text"))]
            assert len(said) == 1 and said[0]["channel"] == "CGPU", said
            assert "a10-box：现价 ¥11.73/小时（原为 ¥9.46），来自 aliyun" in said[0]["text"]  # the channel's language


def test_a_spot_a_prepaid_and_a_vgpu_instance_each_get_the_price_of_how_they_are_billed(tmp_path: Path) -> None:
    """Issue 52: with the cache filled first, a spot T4 was priced on-demand (¥231 instead of ¥46 for 24 h), and a
    quarter-T4 vGPU at a whole T4."""

    def record(instance_type: str, model: str, amount: float, unit: str = "hour") -> PriceRecord:
        return PriceRecord(source="aliyun", provider="aliyun", region="cn-hangzhou", instance_type=instance_type,
                           gpu="T4", gpu_count=1, pricing_model=model, amount=amount, currency="CNY", unit=unit,
                           fetched_at=NOW, provenance="Alibaba Cloud DescribePrice (test)")  # fmt: skip

    t4 = "ecs.gn6i-c4g1.xlarge"
    rows = [record(t4, "on-demand", 9.63), record(t4, "spot", 1.93), record(t4, "monthly", 4600, "month")]
    cached = as_offers(rows, {"aliyun": Freshness(timedelta(days=1))}, datetime.now(UTC))
    with fake_aliyun() as fake:
        fake.add(name="t4-spot", instance_type=t4, spec="NVIDIA T4", spot="SpotAsPriceGo")
        fake.add(name="t4-monthly", instance_type=t4, spec="NVIDIA T4", charge="PrePaid")
        fake.add(name="t4-hourly", instance_type=t4, spec="NVIDIA T4")
        fake.add(name="t4-quarter", instance_type="ecs.vgn6i-m4.xlarge", spec="NVIDIA T4")
        fake.type_memory["ecs.vgn6i-m4.xlarge"] = 4.0  # a quarter of the T4's 16 GB
        store = store_in(tmp_path)
        cloud = Aliyun(("cn-hangzhou",), fake.url, sleep=lambda s: None)
        discover(settings(tmp_path, fake.url), store, "T1", NOW, offers=lambda gpu: cached, cloud=cloud)
        priced = {i.name: (i.price, i.unit) for i in Rentals(store).instances("T1")}
        assert priced["t4-spot"] == (1.93, "hour") and priced["t4-hourly"] == (9.63, "hour")
        assert priced["t4-monthly"] == (4600, "month")
        assert priced["t4-quarter"] == (round(9.63 * 0.25, 4), "hour")  # its share of a whole T4's price


def test_a_key_listed_by_two_regions_calls_is_one_item_billed_once(tmp_path: Path) -> None:
    """Issue 52: one DSW notebook became two items under one cloud key, billed twice."""
    from bot.state.discovered import Discovered, Filing, Found, Scan

    store = store_in(tmp_path)
    notebook = Found("aliyun-dsw:dsw-730f1ac9e2", "instance", "cn-hangzhou", "nb-1", "running", gpu="A10", cards=1,
                     per_hour=12.0, currency="CNY")  # fmt: skip
    again = copy.copy(notebook)
    again.region = "cn-shanghai"  # the same notebook, listed again by the next region's call
    filing = Filing("T1", "C1", lambda _: None, "channel", "owner", lambda f: (f.per_hour, "hour", f.currency))
    scan = Scan([notebook, again], ["cn-hangzhou", "cn-shanghai"], source="aliyun-dsw")
    applied = Discovered(store).apply(scan, filing, NOW)
    assert applied.new == ["nb-1"]
    [item] = Rentals(store).instances("T1")
    assert (item.provider_id, item.provider_region) == ("aliyun-dsw:dsw-730f1ac9e2", "cn-hangzhou")
    assert Discovered(store).apply(scan, filing, NOW + timedelta(hours=1)).new == []
    assert len(Rentals(store).instances("T1")) == 1


def test_a_team_rate_card_row_prices_an_autodl_instance_found_before_it(tmp_path: Path) -> None:
    """Issue 52: a team rate-card row for AutoDL's RTX 4090 never priced the Pro instance found before it (a price
    was looked up once, at the first scan); the next scan prices it, its unpriced hours before staying unpriced."""
    row = PriceRecord(source="ratecard", provider="autodl", instance_type="RTX 4090 (AutoDL list)", gpu="RTX 4090",
                      gpu_count=1, pricing_model="on-demand", amount=1.98, currency="CNY", unit="hour", fetched_at=NOW,
                      provenance="ours.csv")  # fmt: skip
    card = as_offers([row], {"ratecard": Freshness(timedelta(days=365), True)}, datetime.now(UTC))
    with fake_autodl() as fake, httpx.Client(verify=shared_context()) as client:
        fake.add("pro-1a2b3c", name="train-4090")
        store, settings = store_in(tmp_path), Settings(db=tmp_path / "bot.db", discover_channel="C1")
        discover(settings, store, "T1", NOW, offers=lambda gpu: [], cloud=AutoDL(fake.url, TOKEN, client))
        assert Rentals(store).instances("T1")[0].price is None
        later = NOW + timedelta(hours=3)
        report = discover(settings, store, "T1", later, offers=lambda gpu: card, cloud=AutoDL(fake.url, TOKEN, client))
    [item] = Rentals(store).instances("T1")
    assert report.applied.repriced == [("train-4090", None, 1.98, "hour", "CNY")]
    assert (item.price, item.provider, [p.price for p in item.earlier_prices]) == (1.98, "autodl", [None])


def test_a_prepaid_instance_is_priced_by_its_clouds_monthly_price_and_billed_every_hour(tmp_path: Path) -> None:
    """Issue 52: a prepaid instance read ¥0 while its billed hours grew (its cloud was asked only for hourly prices,
    and a prepaid one was not asked at all). Alibaba's DescribePrice is now asked for one month (PriceUnit=Month);
    the cache's hourly price of the same type does not win over it, and the month bills whether it is on or off."""
    on_demand = PriceRecord(source="aliyun", provider="aliyun", region="cn-hangzhou", instance_type=GN7I, gpu="A10",
                            gpu_count=1, pricing_model="on-demand", amount=11.73, currency="CNY", unit="hour",
                            fetched_at=NOW, provenance="Alibaba Cloud DescribePrice (test)")  # fmt: skip
    cached = as_offers([on_demand], {"aliyun": Freshness(timedelta(days=1))}, datetime.now(UTC))
    with fake_aliyun() as fake:
        fake.prices[("cn-hangzhou", GN7I)] = 11.73
        fake.monthly_prices[("cn-hangzhou", GN7I)] = 3600.0
        fake.add(name="monthly-a10", charge="PrePaid")
        fake.add(name="hourly-a10")
        for offers, name in ((lambda gpu: [], "no cache"), (lambda gpu: cached, "the cache filled first")):
            store = store_in(tmp_path / name.replace(" ", "-"))
            cloud = Aliyun(("cn-hangzhou",), fake.url, sleep=lambda s: None)
            discover(settings(tmp_path, fake.url), store, "T1", NOW, offers=offers, cloud=cloud)
            items = {i.name: i for i in Rentals(store).instances("T1")}
            prepaid = items["monthly-a10"]
            assert (prepaid.price, prepaid.unit, prepaid.billing) == (3600.0, "month", "month"), name
            assert (items["hourly-a10"].price, items["hourly-a10"].unit) == (11.73, "hour"), name
            later = NOW + timedelta(days=3)
            [stretches] = PowerLog(store).timelines([prepaid], later).values()
            bought = datetime(2026, 11, 30, 8, tzinfo=UTC)  # the fake's creation time: its month starts then
            assert prepaid.started_at == bought, name
            assert metering.cost(prepaid, stretches, bought, later) == pytest.approx(3600.0), name  # paid at once
            assert metering.accrued(prepaid, stretches, NOW, later) == pytest.approx(3600.0 / 30 * 3), name
        monthly_asks = [p for a, p in fake.calls if a == "DescribePrice" and p.get("PriceUnit") == "Month"]
        assert monthly_asks and all(p["InstanceType"] == GN7I and p["Period"] == "1" for p in monthly_asks)
