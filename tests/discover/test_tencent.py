"""Tencent Cloud discovery against a local fake of its API 3.0 (tests/support/fake_tencent.py), with the official
SDK pointed at it and every request's TC3 signature checked: CVM instances with GPUs (a vGPU share, prepaid, spot)
with the first-tier hourly price the cloud quotes (its cheaper tiers past 96 h and 360 h kept), Cloud Monitor's
GPU metrics ten instances a call, and the faults said in one line each."""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.discover.run import discover
from bot.discover.tencent import Tencent
from bot.settings import Settings
from bot.state import Store
from bot.state.discovered import Discovered
from bot.state.rentals import Rentals
from tests.support.fake_tencent import ENV, KEY_SECRET, FakeTencent, fake_tencent
from tests.support.state_template import migrated_state_db

NOW = datetime.now(UTC).replace(second=0, microsecond=0)  # the fake refuses signatures 5 minutes off the clock


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def settings(tmp_path: Path, url: str) -> Settings:
    return Settings(
        db=tmp_path / "bot.db",
        tencent_regions="ap-guangzhou,ap-shanghai",
        tencent_endpoint=url,
        azure_enabled=False,
        ecb_enabled=False,
        discover_channel="CGPU",
    )


def no_offers(gpu: str) -> list[Any]:
    return []


class Ticking:
    """A monotonic clock that moves only when the cloud sleeps (its back-off and its pacing), keeping each wait."""

    def __init__(self, waits: list[float]) -> None:
        self.now, self.waits, self.lock = 100.0, waits, threading.Lock()

    def sleep(self, seconds: float) -> None:
        with self.lock:
            self.waits.append(seconds)
            self.now += seconds

    def clock(self) -> float:
        return self.now


def run(tmp_path: Path, fake: FakeTencent, store: Store, at: datetime = NOW, sleeps: list[float] | None = None):  # type: ignore[no-untyped-def]
    ticking = Ticking(sleeps if sleeps is not None else [])
    cloud = Tencent(("ap-guangzhou", "ap-shanghai"), fake.url, sleep=ticking.sleep, clock=ticking.clock)
    return discover(settings(tmp_path, fake.url), store, "T1", at, offers=no_offers, cloud=cloud)


def store_in(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")


def test_gpu_instances_become_items_with_the_clouds_first_tier_hourly_price(tmp_path: Path) -> None:
    with fake_tencent() as fake:
        fake.price("ap-guangzhou-3", "GN7.2XLARGE32", 8.68)
        fake.price("ap-shanghai-2", "GT4.41XLARGE948", 240.0)
        bare = fake.add()
        big = fake.add(
            "ap-shanghai",
            instance_type="GT4.41XLARGE948",
            gpus=8,
            gpu_type="NVIDIA A100",
            zone="ap-shanghai-2",
            name="pretrain-8x",
            tags={"Owner": "U0456", "SlackChannel": "C9"},
        )
        share = fake.add(instance_type="GN7vw.2XLARGE32", gpus=0.25, gpu_type="NVIDIA T4", name="vgpu-quarter")
        spot = fake.add(charge="SPOTPAID", name="spot-t4")
        prepaid = fake.add(charge="PREPAID", name="monthly-t4")
        fake.add(instance_type="S5.LARGE8", gpus=0)  # no GPU: never an item
        store = store_in(tmp_path)
        report = run(tmp_path, fake, store)
        assert report.problems == {}
        items = {i.provider_id: i for i in Rentals(store).instances("T1")}
        first = items[f"tencent:{bare.id}"]
        assert (first.name, first.source, first.gpu, first.cards) == (bare.id, "tencent", "T4-16GB", 1)
        assert (first.price, first.unit, first.currency, first.billing) == (8.68, "hour", "CNY", "hourly")
        assert (first.channel, first.owner) == ("CGPU", "")
        eight = items[f"tencent:{big.id}"]
        assert (eight.name, eight.gpu, eight.cards, eight.price, eight.owner, eight.channel) == (
            "pretrain-8x",
            "A100-80GB",
            8,
            240.0,
            "U0456",
            "C9",
        )
        assert items[f"tencent:{share.id}"].cards == 1  # a quarter of a T4: one card, a share
        assert items[f"tencent:{spot.id}"].spot
        assert items[f"tencent:{prepaid.id}"].billing == "month"
        assert len(items) == 5
        quote = Tencent(("ap-guangzhou",), fake.url).quote("ap-guangzhou", "ap-guangzhou-3", "GN7.2XLARGE32")
        assert quote is not None and (quote["UnitPriceSecondStep"], quote["UnitPriceThirdStep"]) == (6.94, 4.34)
        assert quote["Status"] == "SELL"
        assert Discovered(store).runs()["tencent"].error is None


def test_cloud_monitor_gpu_metrics_come_ten_instances_a_call_paced(tmp_path: Path) -> None:
    with fake_tencent() as fake:
        boxes = [fake.add(name=f"t4-{n}") for n in range(12)]
        at = int((NOW - timedelta(minutes=5)).timestamp())
        fake.series = {
            "GpuUtil": {b.id: [(at, 3.0)] for b in boxes},
            "GpuMemUsed": {b.id: [(at, 1200.0)] for b in boxes},
            "GpuMemTotal": {b.id: [(at, 15360.0)] for b in boxes},
        }
        store = store_in(tmp_path)
        waits: list[float] = []
        run(tmp_path, fake, store, sleeps=waits)
        asked = [p for a, p in fake.calls if a == "GetMonitorData"]
        assert len(asked) == 6 and max(len(p["Instances"]) for p in asked) == 10  # 12 instances: 10 + 2, 3 metrics
        paced = [w for w in waits if w == pytest.approx(1 / 20)]
        assert len(paced) == 5  # paced to its 20 calls a second: each call after the first waits for its moment
        rentals = Rentals(store)
        [one] = [i for i in rentals.instances("T1") if i.name == "t4-0"]
        [sample] = rentals.recent([one.id], NOW - timedelta(hours=1))[one.id]
        assert (sample.utilization_pct, sample.memory_used_mib, sample.memory_total_mib) == (3.0, 1200.0, 15360.0)


def test_faults_are_one_line_and_change_nothing_known(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with fake_tencent() as fake:
        fake.add()
        store = store_in(tmp_path)
        caplog.set_level(logging.DEBUG)
        fake.throttle["DescribeInstances"] = 2
        waits: list[float] = []
        ticking = Ticking(waits)
        one_region = Tencent(("ap-guangzhou",), fake.url, sleep=ticking.sleep, clock=ticking.clock)
        assert one_region.scan().problems == {}
        assert waits == [0.5, 1.0]  # backed off, doubling
        fake.throttle["DescribeInstances"] = 2  # both regions read at once, throttled on the way: retried through
        assert run(tmp_path, fake, store).problems == {}
        fake.throttle["DescribeInstances"] = 99
        throttled = run(tmp_path, fake, store).problems["ap-guangzhou"]
        assert throttled == "throttled by Tencent Cloud (RequestLimitExceeded) after retries: the next run tries again"
        fake.throttle.clear()
        fake.deny.add("DescribeInstances")
        denied = run(tmp_path, fake, store).problems["ap-guangzhou"]
        assert denied.startswith("access denied (UnauthorizedOperation): the CAM policy lacks cvm:DescribeInstances")
        fake.deny.clear()
        monkeypatch.setenv("TENCENTCLOUD_SECRET_KEY", "not-the-secret-key")
        refused = run(tmp_path, fake, store).problems["ap-guangzhou"]
        assert (
            refused
            == "Tencent Cloud refused the credentials (AuthFailure.SignatureFailure): check the SecretId and SecretKey"
        )
        monkeypatch.setenv("TENCENTCLOUD_SECRET_KEY", KEY_SECRET)
        nowhere = Tencent(("ap-nowhere",), fake.url).scan().problems
        assert nowhere == {"ap-nowhere": "unknown region ap-nowhere (InvalidRegion): check GPU_ADVISOR_TENCENT_REGIONS"}
        [kept] = Rentals(store).instances("T1")
        assert kept.released_at is None  # no failed run released it
        assert KEY_SECRET not in caplog.text and "not-the-secret-key" not in caplog.text


def test_unattached_cbs_disks_become_storage_with_their_size_type_price_and_age(tmp_path: Path) -> None:
    """Issue 31.2: CBS disks attached to nothing bill with no instance; they are found (disk-state UNATTACHED,
    page by page), priced by their type's list price a GB-month, their age from CBS's Beijing-time CreateTime."""
    with fake_tencent() as fake:
        fake.add()  # a GPU instance beside them
        old = fake.disk(size_gb=500, name="old-ckpt", tags={"Owner": "U0456", "SlackChannel": "C9"})
        ssd = fake.disk("ap-shanghai", size_gb=200, disk_type="CLOUD_SSD", created="2026-11-01 08:00:00")
        fake.disk(size_gb=50, state="ATTACHED")  # a system disk in use: not news
        for n in range(120):  # more than a page of 100
            fake.disk("ap-shanghai", size_gb=10, name=f"scratch-{n}")
        store = store_in(tmp_path)
        result = run(tmp_path, fake, store)
        kept = {s.provider_id: s for s in Rentals(store).storage("T1")}
        assert len(kept) == 122 and f"tencent:{old.id}" in kept
        first = kept[f"tencent:{old.id}"]
        assert (first.name, first.size_gb, first.price_gb_month, first.currency) == ("old-ckpt", 500, 0.35, "CNY")
        assert (first.owner, first.channel) == ("U0456", "C9")
        assert kept[f"tencent:{ssd.id}"].price_gb_month == 1.0
        assert kept[f"tencent:{ssd.id}"].created_at == datetime(2026, 11, 1, 0, 0, tzinfo=UTC)  # 08:00 in Beijing
        pages = [p for a, p in fake.calls if a == "DescribeDisks"]
        assert all(p["Filters"] == [{"Name": "disk-state", "Values": ["UNATTACHED"]}] for p in pages)
        assert len(pages) == 3  # Guangzhou's one page, Shanghai's two
        assert Discovered(store).runs()["tencent"].error is None and result is not None


def test_regions_read_at_once_give_what_regions_in_turn_give_in_the_same_order() -> None:
    """A scan reads its regions at once (a thread each): the items are the same, in the regions' order, pages and
    all, as reading them one after another; a region that fails is said and the others are kept."""
    regions = ("ap-guangzhou", "ap-shanghai", "ap-beijing")
    with fake_tencent() as fake:
        for n in range(3 * 230):  # three pages a region
            fake.add(regions[n % 3], tags={"Owner": f"U{n:04d}"})
        in_turn = Tencent(regions, fake.url, at_once=1).scan()
        at_once = Tencent(regions, fake.url).scan()
        with_a_bad_one = Tencent((*regions[:2], "ap-nowhere"), fake.url).scan()
    assert [f.key for f in at_once.found] == [f.key for f in in_turn.found]
    assert len(at_once.found) == 690 and at_once.regions_ok == list(regions)
    assert [f.region for f in at_once.found] == sorted((f.region for f in at_once.found), key=regions.index)
    assert with_a_bad_one.regions_ok == list(regions[:2]) and len(with_a_bad_one.found) == 460
    assert list(with_a_bad_one.problems) == ["ap-nowhere"]


def test_a_tencent_prepaid_instance_is_priced_by_its_monthly_price(tmp_path: Path) -> None:
    """The same on Tencent Cloud: DescribeZoneInstanceConfigInfos under PREPAID gives the month's price (what the
    account pays after its discount)."""
    with fake_tencent() as fake:
        fake.price("ap-guangzhou-3", "GN7.2XLARGE32", 8.68)
        fake.price_month("ap-guangzhou-3", "GN7.2XLARGE32", 3200.0, discount=80.0)
        fake.add(charge="PREPAID", name="monthly-t4")
        store = store_in(tmp_path)
        run(tmp_path, fake, store)
        [item] = Rentals(store).instances("T1")
        assert (item.name, item.price, item.unit, item.billing) == ("monthly-t4", 2560.0, "month", "month")
