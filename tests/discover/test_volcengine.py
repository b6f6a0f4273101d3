"""Volcengine (火山引擎) ECS through its official SDK against the local fake (tests/support/fake_volcengine.py, the
HMAC-SHA256 signature checked as the SDK signs): GPU instances found with their type's GPUs and their tags' owner,
CPU ones ignored, page after page; a stop asked StopCharging and read again until it has stopped, one that stops
billed said so, one refused said refused; throttling retried; a wrong key one line; the account's balance read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.discover.cloud import CloudError
from bot.discover.volcengine import Volcengine
from tests.support.cli import run_cli
from tests.support.fake_volcengine import ENV, fake_volcengine

REGIONS = ("cn-beijing", "cn-shanghai")


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def cloud(url: str, waits: list[float] | None = None) -> Volcengine:
    return Volcengine(REGIONS, url, sleep=(waits if waits is not None else []).append)


def test_gpu_instances_are_found_with_their_cards_and_owner_cpu_ones_are_not_page_after_page() -> None:
    with fake_volcengine() as fake:
        fake.types["ecs.g3il.8xlarge"] = ("NVIDIA A800-SXM4-80GB", 8)
        fake.types.pop("ecs.g3i.large", None)  # a CPU type: not in the GPU table
        trainer = fake.add(name="llm-train", instance_type="ecs.g3il.8xlarge",
                           tags={"Owner": "U0456", "Project": "llm", "SlackChannel": "C1"})  # fmt: skip
        fake.add(name="web", instance_type="ecs.g3i.large")  # CPU only
        for n in range(101):  # past one page of 100
            fake.add(name=f"a10-{n}", region="cn-shanghai")
        scan = cloud(fake.url).scan()
    assert scan.problems == {}
    found = {f.name: f for f in scan.found}
    assert "web" not in found and len(found) == 102
    big = found["llm-train"]
    assert (big.key, big.region, big.state, big.gpu, big.cards) == (
        f"volcengine:{trainer.id}",
        "cn-beijing",
        "running",
        "A800-80GB",
        8,
    )
    assert (big.tags["Owner"], big.currency, big.billing, big.per_hour) == ("U0456", "CNY", "hourly", None)
    assert found["a10-0"].gpu == "A10-24GB" and found["a10-0"].cards == 1
    assert fake.actions().count("DescribeInstanceTypes") == 2  # once a region for the types it met, not per page


@pytest.mark.parametrize("takes_s", [0.0, 0.3], ids=["at_once", "stopping_for_a_while"])
def test_a_stop_asks_stop_charging_and_is_read_until_it_has_stopped(takes_s: float) -> None:
    with fake_volcengine() as fake:
        fake.stop_takes_s = takes_s
        box = fake.add(name="idle-a10")
        done = cloud(fake.url).stop("cn-beijing", box.id)
        [asked] = [p for a, p in fake.calls if a == "StopInstance"]
    assert asked["StoppedMode"] == "StopCharging"
    assert (done.state, done.charging, done.how) == ("stopped", False, "StopInstance(StoppedMode=StopCharging)")


def test_an_instance_that_cannot_stop_free_is_said_still_billed_and_a_refused_stop_is_final() -> None:
    with fake_volcengine() as fake:
        billed = fake.add(name="local-disk", can_stop_charging=False)
        fake.types["ecs.ebmgni2.28xlarge"] = ("NVIDIA A10", 4)
        fake.refuse_stop["ecs.ebmgni2.28xlarge"] = ("OperationDenied.StoppedMode", "StopCharging is not supported.")
        bare = fake.add(name="bare-metal", instance_type="ecs.ebmgni2.28xlarge")
        volc = cloud(fake.url)
        done = volc.stop("cn-beijing", billed.id)
        with pytest.raises(CloudError) as refused:
            volc.stop("cn-beijing", bare.id)
    assert (done.state, done.charging) == ("stopped", True)  # KeepCharging: kept, said still billed, never saved
    assert refused.value.final and "OperationDenied.StoppedMode" in str(refused.value)
    assert bare.status == "RUNNING"


def test_a_stop_that_fails_for_a_passing_fault_or_a_missing_permission_is_tried_again_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not final: a 5xx passes, and a key or a policy is fixed by people; only what the instance cannot do is."""
    with fake_volcengine() as fake:
        box = fake.add(name="a10")
        fake.failing["StopInstance"] = 1
        with pytest.raises(CloudError) as failed:
            cloud(fake.url).stop("cn-beijing", box.id)
        assert not failed.value.final and "InternalError" in str(failed.value)
        monkeypatch.setenv("VOLCENGINE_SECRET_KEY", "not-the-secret")
        with pytest.raises(CloudError) as unsigned:
            cloud(fake.url).stop("cn-beijing", box.id)
        assert not unsigned.value.final and "SignatureDoesNotMatch" in str(unsigned.value)
    assert box.status == "RUNNING"


def test_throttling_is_retried_with_back_off_and_a_wrong_key_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_volcengine() as fake:
        fake.add()
        fake.throttle["DescribeInstances"] = 2
        waits: list[float] = []
        one = Volcengine(("cn-beijing",), fake.url, sleep=waits.append)
        assert one.scan().problems == {} and waits == [0.5, 1.0]
        fake.throttle["DescribeInstances"] = 99
        assert "throttled by Volcengine (RequestLimitExceeded)" in one.scan().problems["cn-beijing"]
        monkeypatch.setenv("VOLCENGINE_SECRET_KEY", "not-the-secret")
        wrong = Volcengine(("cn-beijing",), fake.url).scan().problems["cn-beijing"]
    assert "SignatureDoesNotMatch" in wrong and "not-the-secret" not in wrong and "\n" not in wrong


def test_cloudmonitor_gpu_points_become_samples_a_card_per_device() -> None:
    from datetime import UTC, datetime, timedelta

    now = datetime(2026, 12, 5, 8, 0, tzinfo=UTC)
    at = int((now - timedelta(minutes=5)).timestamp())
    with fake_volcengine() as fake:
        fake.types["ecs.gni2.6xlarge"] = ("NVIDIA A10", 2)
        two = fake.add(name="two-a10", instance_type="ecs.gni2.6xlarge")
        quiet = fake.add(name="no-agent")  # CloudMonitor's agent not installed: no points
        for device, (util, used_gib) in {"gpu1": (0.0, 0.5), "gpu0": (87.0, 20.0)}.items():
            fake.series[("GpuUsedUtilization", two.id, device)] = [(at, util)]
            fake.series[("GpuMemoryUsedSpace", two.id, device)] = [(at, used_gib * 2**30)]
        got = cloud(fake.url).gpu_samples("cn-beijing", [two.id, quiet.id], now - timedelta(minutes=10), now)
    assert got[quiet.id] == []
    by_card = {s.gpu: s for s in got[two.id]}
    assert sorted(by_card) == [0, 1] and by_card[0].at == now - timedelta(minutes=5)
    assert (by_card[0].utilization_pct, by_card[0].memory_used_mib, by_card[0].memory_total_mib) == (
        87.0,
        20480.0,
        24576.0,
    )
    assert (by_card[1].utilization_pct, by_card[1].memory_used_mib) == (0.0, 512.0)


def test_a_discovery_run_keeps_the_gpu_points_as_the_instances_samples(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    from bot.discover.run import discover
    from bot.settings import Settings
    from bot.state import Store
    from bot.state.rentals import Rentals
    from tests.support.state_template import migrated_state_db

    now = datetime(2026, 12, 5, 8, 0, tzinfo=UTC)
    with fake_volcengine() as fake:
        box = fake.add(name="idle-a10", tags={"Owner": "U0456"})
        fake.series[("GpuUsedUtilization", box.id, "gpu0")] = [(int((now - timedelta(minutes=m)).timestamp()), 0.0)
                                                               for m in range(10)]  # fmt: skip
        settings = Settings(db=tmp_path / "bot.db", volcengine_regions="cn-beijing", volcengine_endpoint=fake.url)
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        report = discover(settings, store, "T1", now, offers=lambda gpu: [], cloud=cloud(fake.url))
    assert report.problems == {} and report.activity_problem is None
    [inst] = Rentals(store).instances("T1")
    kept = Rentals(store).recent([inst.id], now - timedelta(hours=1))[inst.id]
    assert len(kept) == 10 and {s.utilization_pct for s in kept} == {0.0}


def test_an_unreachable_endpoint_is_one_line_for_the_scan_and_the_balance() -> None:
    gone = Volcengine(("cn-beijing",), "http://127.0.0.1:9")  # nothing listens on the discard port
    problem = gone.scan().problems["cn-beijing"]
    assert "Volcengine" in problem and "\n" not in problem
    with pytest.raises(CloudError) as unread:
        gone.balance()
    assert "Volcengine" in str(unread.value)


def test_no_keys_or_a_page_that_is_not_volcengines_is_one_line_naming_what_to_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with fake_volcengine() as fake:
        fake.add()
        monkeypatch.delenv("VOLCENGINE_SECRET_KEY")
        keyless = cloud(fake.url).scan().problems["cn-beijing"]
        monkeypatch.setenv("VOLCENGINE_SECRET_KEY", ENV["VOLCENGINE_SECRET_KEY"])
        fake.gateway_down = True
        proxied = cloud(fake.url).scan().problems["cn-beijing"]
    assert "VOLCENGINE_ACCESS_KEY and VOLCENGINE_SECRET_KEY" in keyless and "\n" not in keyless
    assert "Volcengine" in proxied and "Bad Gateway" in proxied and "\n" not in proxied


def test_the_gpu_points_of_more_instances_than_one_call_names_are_all_read() -> None:
    from datetime import UTC, datetime, timedelta

    now = datetime(2026, 12, 5, 8, 0, tzinfo=UTC)
    with fake_volcengine() as fake:
        boxes = [fake.add(name=f"a10-{n}") for n in range(105)]
        for box in boxes:
            fake.series[("GpuUsedUtilization", box.id, "gpu0")] = [(int(now.timestamp()) - 60, 1.0)]
        got = cloud(fake.url).gpu_samples("cn-beijing", [b.id for b in boxes], now - timedelta(minutes=5), now)
        asked = [p for a, p in fake.calls if a == "DescribeInstances"]
    assert all(len(s) == 1 and s[0].memory_total_mib == 24576.0 for s in got.values()) and len(got) == 105
    assert max(sum(k.startswith("InstanceIds.") for k in p) for p in asked) <= 100  # a call names 100 at most


def test_the_accounts_balance_is_read_and_one_that_is_not_a_number_is_said_so() -> None:
    with fake_volcengine() as fake:
        fake.balance = "8,800.50"
        assert cloud(fake.url).balance() == (8800.5, "CNY")
        assert "QueryBalanceAcct" in fake.actions()
        fake.balance, fake.arrears = "0.00", "1,204.30"  # in arrears: it owes that much
        assert cloud(fake.url).balance() == (-1204.3, "CNY")
        fake.balance, fake.arrears = "n/a", "0.00"
        with pytest.raises(CloudError) as bad:
            cloud(fake.url).balance()
    assert str(bad.value) == "QueryBalanceAcct answered a balance that is not a number: 'n/a'"
    assert bad.value.problem.said("zh") == "QueryBalanceAcct 返回的余额不是数字：'n/a'"  # type: ignore[union-attr]


def test_discover_from_the_terminal_keeps_them_and_says_them(tmp_path: Path) -> None:
    with fake_volcengine() as fake:
        fake.add(name="a10-box", tags={"Owner": "U0456"})
        env = {
            **ENV,
            "GPU_ADVISOR_VOLCENGINE_REGIONS": "cn-beijing",
            "GPU_ADVISOR_VOLCENGINE_ENDPOINT": fake.url,
            "GPU_ADVISOR_DISCOVER_TEAM": "T1",
            "GPU_ADVISOR_DISCOVER_CHANNEL": "C1",
        }
        done = run_cli("discover", "--source", "volcengine", "--json", env=env, tmp=tmp_path)
        balance = run_cli("balance", "--team", "T1", "--json", env=env, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "QueryBalanceAcct" in fake.actions()  # each run reads the account's balance too
    assert "volcengine" in balance.stdout and "12345.6" in balance.stdout, balance.stdout
    [item] = json.loads(done.stdout)["items"]
    assert (item["source"], item["name"], item["gpu"]) == ("volcengine", "a10-box", "A10-24GB")
