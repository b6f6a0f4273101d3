"""Huawei Cloud ECS through its official SDKs against the local fake (tests/support/fake_huawei.py, the SDK-HMAC-SHA256
signature checked as the SDK signs): servers with GPUs or Ascend NPUs found with their flavor's cards and their
tags, CPU ones not, page after page, each region's project asked of IAM once (or taken from the setting); a stop read
until the server is off, a flavor that bills while stopped said still billed, a refused stop final; Cloud Eye's agent
points as samples per card; throttling retried, a wrong key one line; the terminal's discover and the balance."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.discover import huawei as huawei_module
from bot.discover.cloud import CloudError
from bot.discover.huawei import Huawei
from tests.support.cli import run_cli
from tests.support.fake_huawei import ENV, fake_huawei

REGIONS = ("cn-north-4", "cn-east-3")
NOW = datetime(2026, 12, 5, 4, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def cloud(url: str, waits: list[float] | None = None, projects: dict[str, str] | None = None) -> Huawei:
    return Huawei(REGIONS, url, projects, sleep=(waits if waits is not None else []).append)


def test_gpu_and_npu_servers_are_found_with_their_cards_and_tags_cpu_ones_are_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(huawei_module, "PAGE", 2)  # pages of 2: three servers of GPUs in cn-north-4 take two
    with fake_huawei() as fake:
        fake.flavors["kat2ne.48xlarge.8"] = ("asic_accelerators", "Ascend-910B", 8, 65536, False)
        ascend = fake.add(name="pangu-train", flavor="kat2ne.48xlarge.8", charging_mode="1",
                          tags={"Owner": "U0456", "Project": "llm", "ChatChannel": "C1"})  # fmt: skip
        fake.add(name="web", flavor="s6.large.2")  # CPU only
        fake.add(name="spot-v100", charging_mode="2")
        fake.add(name="v100-b")
        fake.add(name="east-v100", region="cn-east-3")
        scan = cloud(fake.url).scan()
    assert scan.problems == {}
    found = {f.name: f for f in scan.found}
    assert set(found) == {"pangu-train", "spot-v100", "v100-b", "east-v100"}
    big = found["pangu-train"]
    assert (big.key, big.region, big.state, big.gpu, big.cards, big.instance_type) == (
        f"huawei:{ascend.id}",
        "cn-north-4",
        "running",
        "Ascend-910B-64GB",
        8,
        "kat2ne.48xlarge.8",
    )
    assert (big.tags["Owner"], big.currency, big.billing, big.per_hour, big.spot) == (
        "U0456",
        "CNY",
        "month",
        None,
        False,
    )
    assert found["spot-v100"].spot and found["v100-b"].gpu == "V100-32GB"
    assert fake.paths().count("/v3/projects") == 2  # each region's project asked of IAM once


def test_configured_projects_are_not_asked_of_iam() -> None:
    with fake_huawei() as fake:
        fake.add(name="v100")
        scan = cloud(fake.url, projects=dict(fake.projects)).scan()
    assert [f.name for f in scan.found] == ["v100"]
    assert "/v3/projects" not in fake.paths()


@pytest.mark.parametrize("takes_s", [0.0, 0.3], ids=["at_once", "powering_off_for_a_while"])
def test_a_stop_is_soft_and_read_until_the_server_is_off(takes_s: float) -> None:
    with fake_huawei() as fake:
        fake.stop_takes_s = takes_s
        box = fake.add(name="idle-v100")
        done = cloud(fake.url).stop("cn-north-4", box.id)
        [asked] = [p for m, p, _ in fake.calls if m == "POST" and p.endswith("/cloudservers/action")]
    assert (done.state, done.charging, done.how) == ("stopped", False, "BatchStopServers(os-stop, SOFT)")
    assert box.status == "SHUTOFF" and asked


def test_a_flavor_that_bills_while_stopped_is_said_so_and_a_refused_stop_is_final() -> None:
    with fake_huawei() as fake:
        fake.flavors["pi2.4xlarge.4"] = ("gpus", "NVIDIA T4", 1, 16384, True)  # a local-disk family: charged stopped
        billed = fake.add(name="local-disk-t4", flavor="pi2.4xlarge.4")
        already = fake.add(name="off-t4", flavor="pi2.4xlarge.4", status="SHUTOFF")
        refused = fake.add(name="locked")
        fake.refuse_stop[refused.id] = ("Ecs.0051", "The server is locked.")
        huawei = cloud(fake.url)
        done = huawei.stop("cn-north-4", billed.id)
        found = {f.name: f for f in huawei.scan().found}
        with pytest.raises(CloudError) as said:
            huawei.stop("cn-north-4", refused.id)
    assert (done.state, done.charging) == ("stopped", True)  # kept, said still billed, never saved
    assert found["off-t4"].charging is True and found["off-t4"].key == f"huawei:{already.id}"
    assert found["off-t4"].stop_billing == "keeps"  # known from its flavor before any stop: its money follows it
    assert found["locked"].stop_billing == "stops"
    assert said.value.final and "Huawei Cloud refused to stop" in str(said.value) and "Ecs.0051" in str(said.value)


def test_cloud_eyes_agent_points_become_samples_per_card_and_none_is_unknown() -> None:
    with fake_huawei() as fake:
        fake.flavors["kat2ne.48xlarge.8"] = ("asic_accelerators", "Ascend-910B", 8, 65536, False)
        gpu_box, npu_box, quiet = fake.add(name="v100"), fake.add(name="ascend", flavor="kat2ne.48xlarge.8"), fake.add()
        at = int((NOW - timedelta(minutes=5)).timestamp() * 1000)
        for card, busy in (("slot0", 2.0), ("slot1", 90.0)):
            fake.series[("gpu_usage_gpu", gpu_box.id, "gpu", card)] = [(at, busy)]
            fake.series[("gpu_usage_mem", gpu_box.id, "gpu", card)] = [(at, 25.0)]
        fake.series[("npu_util_rate_ai_core", npu_box.id, "npu", "0")] = [(at, 0.0)]
        samples = cloud(fake.url).gpu_samples(
            "cn-north-4", [gpu_box.id, npu_box.id, quiet.id], NOW - timedelta(hours=1), NOW
        )
    slot0, slot1 = samples[gpu_box.id]
    assert (slot0.gpu, slot0.utilization_pct, slot0.memory_used_mib, slot0.memory_total_mib) == (
        0,
        2.0,
        8192.0,
        32768.0,
    )
    assert (slot1.gpu, slot1.utilization_pct) == (1, 90.0)
    [npu] = samples[npu_box.id]
    assert (npu.utilization_pct, npu.memory_total_mib, npu.at) == (0.0, 65536.0, NOW - timedelta(minutes=5))
    assert samples[quiet.id] == []  # no agent: no points, so unknown, never idle


def test_throttling_is_retried_and_a_wrong_key_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_huawei() as fake:
        fake.add(name="v100")
        fake.throttle["detail"] = 2  # the two regions are read at once: which of them is throttled twice is chance
        waits: list[float] = []
        scan = cloud(fake.url, waits, projects=dict(fake.projects)).scan()
        assert scan.problems == {} and len(scan.found) == 1
        assert sorted(waits) in ([0.5, 0.5], [0.5, 1.0])  # each region's retries wait 0.5 s, then twice as long
        monkeypatch.setenv("HUAWEICLOUD_SDK_SK", "not-the-secret")
        wrong = cloud(fake.url, projects=dict(fake.projects)).scan()
        monkeypatch.delenv("HUAWEICLOUD_SDK_AK")
        unset = cloud(fake.url, projects=dict(fake.projects)).scan()
    assert set(wrong.problems) == set(REGIONS)
    assert all(p.splitlines() == [p] and "APIGW.0301" in p for p in wrong.problems.values())
    assert "not-the-secret" not in " ".join(wrong.problems.values())
    assert all("HUAWEICLOUD_SDK_AK and HUAWEICLOUD_SDK_SK" in p for p in unset.problems.values())


def test_discover_from_the_terminal_keeps_them_and_reads_the_balance(tmp_path: Path) -> None:
    with fake_huawei() as fake:
        fake.add(name="v100-box", tags={"Owner": "U0456"})
        fake.balance = 8765.43
        env = {
            **ENV,
            "GPU_ADVISOR_HUAWEI_REGIONS": "cn-north-4",
            "GPU_ADVISOR_HUAWEI_ENDPOINT": fake.url,
            "GPU_ADVISOR_HUAWEI_PROJECT_IDS": f"cn-north-4={fake.projects['cn-north-4']}",
            "GPU_ADVISOR_DISCOVER_TEAM": "T1",
            "GPU_ADVISOR_DISCOVER_CHANNEL": "C1",
        }
        done = run_cli("discover", "--source", "huawei", "--json", env=env, tmp=tmp_path)
        balance = run_cli("balance", "--team", "T1", "--json", env=env, tmp=tmp_path)
        off = run_cli("discover", "--source", "huawei", env={**ENV}, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    [item] = json.loads(done.stdout)["items"]
    assert (item["source"], item["name"], item["gpu"]) == ("huawei", "v100-box", "V100-32GB")
    [wallet] = json.loads(balance.stdout)
    assert (wallet["provider"], wallet["balance"], wallet["currency"]) == ("huawei", 8765.43, "CNY")
    assert off.returncode == 2 and "GPU_ADVISOR_HUAWEI_REGIONS" in off.stderr
    assert "/v3/projects" not in fake.paths()  # the project given by GPU_ADVISOR_HUAWEI_PROJECT_IDS


def test_a_discovery_run_keeps_cloud_eyes_points_as_the_servers_samples(tmp_path: Path) -> None:
    from bot.discover.run import discover
    from bot.settings import Settings
    from bot.state import Store
    from bot.state.rentals import Rentals
    from tests.support.state_template import migrated_state_db

    with fake_huawei() as fake:
        box = fake.add(name="idle-v100", tags={"Owner": "U0456"})
        minutes = [int((NOW - timedelta(minutes=m)).timestamp() * 1000) for m in range(10)]
        fake.series[("gpu_usage_gpu", box.id, "gpu", "slot0")] = [(t, 0.0) for t in minutes]
        settings = Settings(db=tmp_path / "bot.db", huawei_regions="cn-north-4", huawei_endpoint=fake.url)
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        huawei = Huawei(("cn-north-4",), fake.url, dict(fake.projects), sleep=lambda s: None)
        report = discover(settings, store, "T1", NOW, offers=lambda gpu: [], cloud=huawei)
    assert report.problems == {} and report.activity_problem is None
    [inst] = Rentals(store).instances("T1")
    kept = Rentals(store).recent([inst.id], NOW - timedelta(hours=1))[inst.id]
    assert len(kept) == 10 and {s.utilization_pct for s in kept} == {0.0}  # 0 %: idle, as the digest judges it


def test_the_balance_is_cash_and_credit_left_less_debt_and_a_bad_one_is_said_so() -> None:
    with fake_huawei() as fake:
        huawei = cloud(fake.url)
        assert huawei.balance() == (8765.43, "CNY")
        fake.credit_left = 1000.0  # a credit line: spendable before the account is frozen
        assert huawei.balance() == (9765.43, "CNY")
        fake.balance, fake.credit_left, fake.debt = 0, None, 250.5  # owes: reads as owing
        assert huawei.balance() == (-250.5, "CNY")
        fake.balance = "n/a"
        with pytest.raises(CloudError) as bad:
            huawei.balance()
    assert str(bad.value) == "ShowCustomerAccountBalances answered a balance that is not a number: 'n/a'"


def test_an_unreachable_endpoint_is_one_line_for_each_region_and_for_the_balance() -> None:
    import socket

    with socket.socket() as free:  # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{free.getsockname()[1]}"
    huawei = Huawei(REGIONS, url, {"cn-north-4": "p1", "cn-east-3": "p2"}, sleep=lambda s: None)
    scan = huawei.scan()
    with pytest.raises(CloudError) as balance:
        huawei.balance()
    assert scan.found == [] and set(scan.problems) == set(REGIONS)
    for said in [*scan.problems.values(), str(balance.value)]:
        assert said.splitlines() == [said] and said.startswith("Huawei Cloud unreachable: "), said
        assert "Connection refused" in said


def test_whether_a_stop_keeps_it_billed_follows_its_flavor_from_scan_to_scan(tmp_path: Path) -> None:
    from bot.discover.run import discover
    from bot.settings import Settings
    from bot.state import Store
    from bot.state.rentals import Rentals
    from tests.support.state_template import migrated_state_db

    with fake_huawei() as fake:
        fake.flavors["pi2.4xlarge.4"] = ("gpus", "NVIDIA T4", 1, 16384, True)  # billed while stopped
        box = fake.add(name="t4", flavor="pi2.4xlarge.4")
        settings = Settings(db=tmp_path / "bot.db", huawei_regions="cn-north-4", huawei_endpoint=fake.url)
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        huawei = Huawei(("cn-north-4",), fake.url, dict(fake.projects), sleep=lambda s: None)
        discover(settings, store, "T1", NOW, offers=lambda gpu: [], cloud=huawei)
        [before] = Rentals(store).instances("T1")
        box.flavor = "p2s.2xlarge.8"  # resized to a flavor that stops billing when stopped
        discover(settings, store, "T1", NOW + timedelta(hours=1), offers=lambda gpu: [], cloud=huawei)
        [after] = Rentals(store).instances("T1")
    assert (before.stop_billing, after.stop_billing) == ("keeps", "stops")
