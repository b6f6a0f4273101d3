"""Alibaba Cloud discovery against a local fake of its OpenAPI (tests/support/fake_aliyun.py), with the official
SDKs pointed at it and every request's ACS3 signature checked: GPU instances (untagged, tagged, prepaid, spot)
with the cloud's own hourly price, unattached disks, CloudMonitor's GPU metrics as samples, the account balance,
re-runs, and the faults (throttled, denied, refused keys, an unknown region) said in one line each."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.discover.aliyun import Aliyun
from bot.discover.run import discover
from bot.settings import Settings
from bot.state import Store
from bot.state.balances import Balances
from bot.state.discovered import Discovered
from bot.state.rentals import Rentals
from tests.support.fake_aliyun import ENV, KEY_SECRET, FakeAliyun, fake_aliyun
from tests.support.state_template import migrated_state_db

NOW = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)
GN7I = "ecs.gn7i-c8g1.2xlarge"  # one NVIDIA A10


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def settings(tmp_path: Path, url: str, **extra: Any) -> Settings:
    return Settings(
        db=tmp_path / "bot.db",
        aliyun_regions="cn-hangzhou,cn-shanghai",
        aliyun_endpoint=url,
        azure_enabled=False,
        ecb_enabled=False,
        discover_channel="CGPU",
        **extra,
    )


def no_offers(gpu: str) -> list[Any]:
    return []


def store_in(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")


def run(tmp_path: Path, fake: FakeAliyun, store: Store, at: datetime = NOW):  # type: ignore[no-untyped-def]
    cloud = Aliyun(("cn-hangzhou", "cn-shanghai"), fake.url, sleep=lambda s: None)
    return discover(settings(tmp_path, fake.url), store, "T1", at, offers=no_offers, cloud=cloud)


def test_gpu_instances_and_free_disks_become_items_priced_by_the_cloud(tmp_path: Path) -> None:
    with fake_aliyun() as fake:
        fake.prices[("cn-hangzhou", GN7I)] = 11.62
        fake.prices[("cn-shanghai", "ecs.gn7e-c16g1.4xlarge")] = 34.5
        fake.spot_prices[("cn-hangzhou", GN7I)] = 2.3
        bare = fake.add()  # untagged: found, nobody's, in the default channel
        tagged = fake.add(
            "cn-shanghai",
            instance_type="ecs.gn7e-c16g1.4xlarge",
            spec="NVIDIA A800",
            gpus=1,
            name="finetune-a800",
            tags={"Owner": "U0456", "SlackChannel": "#C9", "Project": "llm"},
        )
        spot = fake.add(spot="SpotAsPriceGo", name="hpo-spot")
        prepaid = fake.add(charge="PrePaid", name="monthly-box")
        fake.add(instance_type="ecs.g7.large", gpus=0, spec="")  # no GPU: never an item
        disk = fake.add_disk(size=500, name="old-ckpt")
        fake.add_disk(size=40, status="In_use")
        store = store_in(tmp_path)
        report = run(tmp_path, fake, store)
        assert report.problems == {}
        items = {i.provider_id: i for i in Rentals(store).instances("T1")}
        first = items[f"aliyun:{bare.id}"]
        assert (first.source, first.provider, first.gpu, first.cards) == ("aliyun", "aliyun", "A10-24GB", 1)
        assert (first.price, first.unit, first.currency, first.billing) == (11.62, "hour", "CNY", "hourly")
        assert (first.owner, first.channel, first.cloud_state, first.provider_region) == (
            "",
            "CGPU",
            "running",
            "cn-hangzhou",
        )
        other = items[f"aliyun:{tagged.id}"]
        assert (other.name, other.owner, other.channel, other.project) == ("finetune-a800", "U0456", "C9", "llm")
        assert (other.gpu, other.price) == ("A800-80GB", 34.5)
        assert items[f"aliyun:{spot.id}"].spot and items[f"aliyun:{spot.id}"].price == 2.3  # the spot price
        assert items[f"aliyun:{prepaid.id}"].billing == "month"  # prepaid: billed by the month, stopped or not
        [kept] = Rentals(store).storage("T1")
        assert (kept.provider_id, kept.name, kept.size_gb) == (f"aliyun:{disk}", "old-ckpt", 500)
        assert (kept.price_gb_month, kept.currency) == (0.5, "CNY")
        assert len(items) == 4
        assert Discovered(store).runs()["aliyun"].error is None
        # a re-run updates, never duplicates; a released instance is released by the cloud
        fake.instances.remove(bare)
        tagged.status = "Stopped"
        again = run(tmp_path, fake, store, NOW + timedelta(minutes=30))
        assert again.applied.new == [] and again.applied.released == [first.name]
        gone = Rentals(store).by_id(first.id)
        assert gone is not None and gone.released_by == "cloud"
        assert len(Rentals(store).instances("T1")) == 4


def test_a_stopped_instance_says_whether_its_meter_runs(tmp_path: Path) -> None:
    """KeepCharging: stopped, still billed; StopCharging: its compute stopped billing."""
    from bot.state.power import PowerLog

    with fake_aliyun() as fake:
        keeps = fake.add(status="Stopped", stopped_mode="KeepCharging", name="keeps")
        stops = fake.add(status="Stopped", stopped_mode="StopCharging", name="stops")
        store = store_in(tmp_path)
        run(tmp_path, fake, store)
        rentals = Rentals(store)
        ids = {i.name: i.id for i in rentals.instances("T1")}
        reports = PowerLog(store).reports(list(ids.values()))
        assert [(r.state.value, r.charging) for r in reports[ids["keeps"]]][-1] == ("off", True)
        assert [(r.state.value, r.charging) for r in reports[ids["stops"]]][-1] == ("off", False)
        assert keeps.id != stops.id


def test_cloudmonitor_gpu_metrics_become_samples(tmp_path: Path) -> None:
    with fake_aliyun() as fake:
        box = fake.add()
        minute = int((NOW - timedelta(minutes=10)).timestamp() * 1000)
        point = {"instanceId": box.id, "gpuId": "0", "timestamp": minute, "userId": "1"}
        fake.datapoints = {
            "gpu_gpu_usedutilization": [point | {"Maximum": 87.5, "Average": 80.0, "Minimum": 70.0}],
            "gpu_memory_usedspace": [point | {"Maximum": 20 * 1024**3}],
            "gpu_memory_freespace": [point | {"Maximum": 4 * 1024**3}],
        }
        store = store_in(tmp_path)
        run(tmp_path, fake, store)
        [inst] = Rentals(store).instances("T1")
        [sample] = Rentals(store).recent([inst.id], NOW - timedelta(hours=1))[inst.id]
        assert (sample.utilization_pct, sample.memory_used_mib, sample.memory_total_mib) == (87.5, 20480, 24576)
        assert "DescribeMetricList" in fake.actions()


def test_the_account_balance_is_kept_as_the_prepaid_balance(tmp_path: Path) -> None:
    with fake_aliyun() as fake:
        fake.add()
        fake.balance = "12,345.60"
        store = store_in(tmp_path)
        run(tmp_path, fake, store)
        [balance] = Balances(store).latest("T1")
        assert (balance.provider, balance.amount, balance.currency, balance.source) == (
            "aliyun",
            12345.6,
            "CNY",
            "aliyun-api",
        )
        assert Balances(store).claim_alert(balance.id, 48)
        fake.balance = "12,000.00"  # spent, not topped up: the alert already told stays told
        run(tmp_path, fake, store, NOW + timedelta(minutes=30))
        [lower] = Balances(store).latest("T1")
        assert lower.amount == 12000 and lower.alerted_below_h == 48
        fake.balance = "50,000.00"  # a top-up starts the alerts afresh
        run(tmp_path, fake, store, NOW + timedelta(hours=1))
        [topped] = Balances(store).latest("T1")
        assert topped.amount == 50000 and topped.alerted_below_h is None


def test_throttling_is_retried_through_and_always_throttled_is_one_line(tmp_path: Path) -> None:
    with fake_aliyun() as fake:
        fake.add()
        fake.throttle["DescribeInstances"] = 2  # twice, then through
        store = store_in(tmp_path)
        assert run(tmp_path, fake, store).problems == {}
        assert len(Rentals(store).instances("T1")) == 1
        fake.throttle["DescribeInstances"] = 99
        problems = run(tmp_path, fake, store, NOW + timedelta(minutes=30)).problems
        assert problems == {
            region: "throttled by Alibaba Cloud (Throttling.User) after retries: the next run tries again"
            for region in ("cn-hangzhou", "cn-shanghai")
        }
        [still] = Rentals(store).instances("T1")
        assert still.released_at is None  # a failed scan changes nothing known
        assert Discovered(store).runs()["aliyun"].error.startswith("cn-hangzhou: throttled")  # type: ignore[union-attr]


def test_denied_refused_and_unknown_regions_are_each_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with fake_aliyun() as fake:
        fake.add()
        fake.deny.add("DescribeDisks")
        store = store_in(tmp_path)
        caplog.set_level(logging.DEBUG)
        denied = run(tmp_path, fake, store).problems["cn-hangzhou"]
        assert denied.startswith("access denied (Forbidden.RAM): the RAM policy lacks ecs:DescribeInstances")
        # issue 34.9: the pages read before the failure are kept (the instance), the region is not complete
        assert "(1 found before it, kept; the next run reads the rest)" in denied
        assert [i.cloud_state for i in Rentals(store).instances("T1")] == ["running"]
        fake.deny.clear()
        monkeypatch.setenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET", "not-the-secret")
        refused = run(tmp_path, fake, store).problems["cn-hangzhou"]
        assert refused == "Alibaba Cloud refused the credentials (SignatureDoesNotMatch): check the AccessKey pair"
        monkeypatch.setenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET", KEY_SECRET)
        cloud = Aliyun(("cn-nowhere",), fake.url)
        scan = cloud.scan()
        assert scan.problems == {
            "cn-nowhere": "unknown region cn-nowhere (InvalidRegionId.NotFound): check GPU_ADVISOR_ALIYUN_REGIONS"
        }
        assert all("\n" not in p for p in (denied, refused))
        assert KEY_SECRET not in caplog.text and "not-the-secret" not in caplog.text


def test_an_unreachable_endpoint_is_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:  # bound, never listening: refused, and no other test can take the port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        scan = Aliyun(("cn-hangzhou",), f"http://127.0.0.1:{port}").scan()
    assert scan.problems["cn-hangzhou"].startswith("Alibaba Cloud unreachable")
    assert scan.regions_ok == []


def test_a_vgpu_type_is_kept_as_its_share_of_the_card(tmp_path: Path) -> None:
    """ecs.vgn6i-m4.xlarge: one NVIDIA T4 as DescribeInstances says it, 4 GiB of its 16 as DescribeInstanceTypes
    says: a quarter of a T4. A whole-card type keeps no share."""
    with fake_aliyun() as fake:
        fake.type_memory["ecs.vgn6i-m4.xlarge"] = 4.0
        vgpu = fake.add(instance_type="ecs.vgn6i-m4.xlarge", spec="NVIDIA T4", name="tiny-infer")
        whole = fake.add(name="a10-box")
        store = store_in(tmp_path)
        report = run(tmp_path, fake, store)
        assert report.problems == {}
        items = {i.provider_id: i for i in Rentals(store).instances("T1")}
        shared = items[f"aliyun:{vgpu.id}"]
        assert (shared.gpu, shared.cards, shared.share) == ("T4-16GB", 1, 0.25)
        assert items[f"aliyun:{whole.id}"].share is None


def test_a_free_disk_is_priced_by_its_class_from_the_cloud(tmp_path: Path) -> None:
    """Issue 52: an unattached ESSD PL1 disk was priced at PL0's reference (0.5 CNY a GB-month). DescribePrice prices
    a disk of its category, performance level and size by the hour; a class the cloud will not price keeps the
    reference, said in the log."""
    with fake_aliyun() as fake:
        fake.disk_prices[("cn-hangzhou", "cloud_essd", "PL1")] = 0.0014  # CNY a GB an hour: 1.008 a GB-month
        fake.disk_prices[("cn-hangzhou", "cloud_essd", "PL0")] = 0.000694
        pl1 = fake.add_disk(size=500, name="pl1-ckpt", PerformanceLevel="PL1")
        pl0 = fake.add_disk(size=200, name="pl0-data")
        odd = fake.add_disk(size=100, name="auto-pl", Category="cloud_auto", PerformanceLevel="")
        store = store_in(tmp_path)
        run(tmp_path, fake, store)
        priced = {s.provider_id: s.price_gb_month for s in Rentals(store).storage("T1")}
    assert priced[f"aliyun:{pl1}"] == pytest.approx(1.008)
    assert priced[f"aliyun:{pl0}"] == pytest.approx(0.4997, abs=1e-3)
    assert priced[f"aliyun:{odd}"] == 0.5  # no price for its class: the reference, as before
