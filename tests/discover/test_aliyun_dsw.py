"""Alibaba Cloud's PAI-DSW notebooks against the local fake (tests/support/fake_aliyun.py, REST paths and the ACS3
signature checked as for ECS): notebooks with GPUs found with the card their ECS type carries and their own
idle-shutdown rule, nobody's unless tagged, never priced at the ECS type's price; their GPU metrics as samples;
a stop read back as stopped."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.discover.aliyun_dsw import AliyunDsw
from bot.discover.run import discover
from bot.settings import Settings
from bot.state import Store
from bot.state.discovered import IDLE_TAG, IDLE_THRESHOLD_TAG
from bot.state.rentals import Rentals
from bot.text import Lang
from tests.support.cli import run_cli
from tests.support.fake_aliyun import ENV, fake_aliyun
from tests.support.state_template import migrated_state_db

NOW = datetime(2026, 12, 3, 8, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def no_offers(gpu: str) -> list[Any]:
    return []


def test_gpu_notebooks_are_found_with_their_card_and_idle_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.discover.aliyun_dsw.PAGE", 1)
    with fake_aliyun() as fake:
        fake.types["ecs.gn7i-c8g1.2xlarge"] = ("NVIDIA A10", 1)
        fake.types["ecs.gn7e-c16g1.4xlarge"] = ("NVIDIA A800", 1)
        mine = fake.notebook(name="llm-notebook", idle_minutes=60, tags={"Owner": "U0456"})
        fake.notebook(ecs_spec="ecs.gn7e-c16g1.4xlarge", status="Stopped", payment="Subscription")
        cloud = AliyunDsw(("cn-hangzhou",), fake.url, sleep=lambda s: None)
        scan = cloud.scan()
        assert scan.problems == {} and scan.regions_ok == ["cn-hangzhou"]
        found = {f.key: f for f in scan.found}
        notebook = found[f"aliyun-dsw:{mine.id}"]
        assert (notebook.name, notebook.gpu, notebook.cards, notebook.state) == (
            "llm-notebook",
            "A10-24GB",
            1,
            "running",
        )
        assert notebook.tags == {"Owner": "U0456", IDLE_TAG: "60", IDLE_THRESHOLD_TAG: "5"}  # idle under 5 % GPU
        assert notebook.instance_type == "PAI-DSW ecs.gn7i-c8g1.2xlarge"  # DSW's price list, not the ECS type's
        assert notebook.launched_at == datetime(2026, 12, 1, 1, 0, tzinfo=UTC)
        other = next(f for f in found.values() if f.key != notebook.key)
        assert (other.gpu, other.state, other.billing, other.charging) == ("A800-80GB", "stopped", "month", False)
        assert fake.actions().count("DescribeInstanceTypes") == 2  # once a type


def test_notebook_metrics_become_samples_and_a_stop_is_read_back(tmp_path: Path) -> None:
    with fake_aliyun() as fake:
        fake.types["ecs.gn7i-c8g1.2xlarge"] = ("NVIDIA A10", 1)
        idle = fake.notebook(name="idle-notebook", gpu_usage=0.0, memory_usage=25.0)
        cloud = AliyunDsw(("cn-hangzhou",), fake.url, sleep=lambda s: None)
        got = cloud.gpu_samples("cn-hangzhou", [idle.id], NOW - timedelta(minutes=10), NOW)
        samples = got[idle.id]
        assert len(samples) == 11 and samples[-1].at == NOW
        assert (samples[0].utilization_pct, samples[0].memory_used_mib, samples[0].memory_total_mib) == (
            0.0,
            6144.0,
            24576.0,
        )
        stopped = cloud.stop("cn-hangzhou", idle.id)
        assert (stopped.state, stopped.charging, stopped.how) == ("stopped", False, "StopInstance")
        settings = Settings(
            db=tmp_path / "bot.db", aliyun_regions="cn-hangzhou", aliyun_endpoint=fake.url, discover_channel="C1"
        )
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        fake.notebooks[0].status = "Running"
        report = discover(settings, store, "T1", NOW, offers=no_offers, cloud=cloud)
        assert report.problems == {} and report.activity_problem is None
        [inst] = Rentals(store).instances("T1")
        assert (inst.source, inst.gpu, inst.price) == ("aliyun-dsw", "A10-24GB", None)
        assert Rentals(store).samples(inst.id, NOW - timedelta(hours=1))  # the metrics were kept as its samples


def test_discover_says_a_notebooks_own_idle_rule(tmp_path: Path) -> None:
    with fake_aliyun() as fake:
        fake.types["ecs.gn7i-c8g1.2xlarge"] = ("NVIDIA A10", 1)
        fake.notebook(name="llm-notebook", idle_minutes=60)
        fake.notebook(name="always-on")  # DSW's idle culler off for it
        env = {
            **ENV,
            "GPU_ADVISOR_ALIYUN_REGIONS": "cn-hangzhou",
            "GPU_ADVISOR_ALIYUN_ENDPOINT": fake.url,
            "GPU_ADVISOR_DISCOVER_TEAM": "T1",
            "GPU_ADVISOR_DISCOVER_CHANNEL": "C1",
        }
        done = run_cli("discover", "--source", "aliyun-dsw", "--json", env=env, tmp=tmp_path)
        assert done.returncode == 0, done.stderr
        item, off = sorted(json.loads(done.stdout)["items"], key=lambda i: i["name"] == "always-on")
        assert (item["source"], item["gpu"], item["idle_shutdown_minutes"]) == ("aliyun-dsw", "A10-24GB", 60)
        assert (off["name"], off["idle_shutdown_minutes"]) == ("always-on", 0)  # 0: the rule is off
        assert (item["idle_threshold_pct"], off["idle_threshold_pct"]) == (5.0, None)  # idle under 5 % GPU
        family = run_cli("discover", "--source", "aliyun", "--json", env=env, tmp=tmp_path)
        assert {i["source"] for i in json.loads(family.stdout)["items"]} == {"aliyun-dsw"}  # --source aliyun: DSW too
        zh = run_cli("discover", "--source", "aliyun-dsw", "--lang", "zh", env=env, tmp=tmp_path)
        assert "GPU 利用率低于 5% 达 60 分钟后自动停止" in zh.stdout and "未开启闲置自动停止" in zh.stdout
        en = run_cli("discover", "--source", "aliyun-dsw", env=env, tmp=tmp_path)
        assert "stops itself after 60 min under 5% GPU" in en.stdout and "its own idle shutdown is off" in en.stdout


def test_a_notebooks_own_idle_rule_is_kept_and_said_in_the_digest(tmp_path: Path) -> None:
    """Issue 31.1: DSW stops a notebook by itself after its idle time; the digest says so beside it (found or
    claimed), in the channel's language. Issue 49: a notebook whose own rule is off is flagged so (turn it on)."""
    from bot.chat.digest_messages import found_line, instance_line
    from rules.digest import compose
    from rules.policy import Idle

    with fake_aliyun() as fake:
        fake.types["ecs.gn7i-c8g1.2xlarge"] = ("NVIDIA A10", 1)
        fake.notebook(name="self-stopping", idle_minutes=45)
        fake.notebook(name="runs-on")
        cloud = AliyunDsw(("cn-hangzhou",), fake.url, sleep=lambda s: None)
        settings = Settings(
            db=tmp_path / "bot.db", aliyun_regions="cn-hangzhou", aliyun_endpoint=fake.url, discover_channel="C1"
        )
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        discover(settings, store, "T1", NOW, offers=no_offers, cloud=cloud)
        fake.notebooks[0].idle_minutes = 30  # changed in the console: the next scan keeps the new rule
        discover(settings, store, "T1", NOW, offers=no_offers, cloud=cloud)
    kept = {i.name: i for i in Rentals(store).instances("T1")}
    assert (kept["self-stopping"].idle_rule_minutes, kept["runs-on"].idle_rule_minutes) == (30, 0)
    found = {f.name: f for f in compose(kept.values(), [], {}, now=NOW, rules=Idle()).found}
    assert found_line(found["self-stopping"], Lang.EN).endswith("(the platform stops it by itself after 30 min idle)")
    assert "闲置 30 分钟后自动停机" in found_line(found["self-stopping"], Lang.ZH)
    assert "stops it by itself after" not in found_line(found["runs-on"], Lang.EN)
    assert found_line(found["runs-on"], Lang.EN).endswith(
        "(its platform's own idle shutdown is off: turn it on there to have it stop by itself when idle)"
    )
    assert "平台自带的闲置自动停机未开启" in found_line(found["runs-on"], Lang.ZH)
    claimed = replace(kept["self-stopping"], owner="U0456")  # claimed: judged, and with no activity yet unknown
    [news] = compose([claimed], [], {}, now=NOW, rules=Idle()).instances
    assert "(the platform stops it by itself after 30 min idle)" in instance_line(news, Lang.EN, ZoneInfo("UTC"))


def test_a_notebook_and_an_ecs_instance_draw_on_one_alibaba_cloud_wallet(tmp_path: Path) -> None:
    """Issue 52: one Alibaba account showed as `aliyun` and `aliyun-dsw`, ¥4,321.50 each, each with its own runway."""
    from bot.discover.aliyun import Aliyun
    from bot.state.balances import Balances

    with fake_aliyun() as fake:
        fake.types["ecs.gn7i-c8g1.2xlarge"] = ("NVIDIA A10", 1)
        fake.notebook(name="llm-notebook")
        fake.add(name="ecs-a10")
        fake.balance = "4,321.50"
        settings = Settings(
            db=tmp_path / "bot.db", aliyun_regions="cn-hangzhou", aliyun_endpoint=fake.url, discover_channel="C1"
        )
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        for cloud in (Aliyun(("cn-hangzhou",), fake.url, sleep=lambda s: None),
                      AliyunDsw(("cn-hangzhou",), fake.url, sleep=lambda s: None)):  # fmt: skip
            assert discover(settings, store, "T1", NOW, offers=no_offers, cloud=cloud).balance_problem is None
        fake.balance = "300.00"
        discover(settings, store, "T1", NOW + timedelta(minutes=5), offers=no_offers, cloud=cloud)  # DSW's read
        [wallet] = Balances(store).latest("T1")
        assert (wallet.provider, wallet.amount) == ("aliyun", 300.0)  # one balance, updated by either read
        providers = {i.name: (i.source, i.provider) for i in Rentals(store).instances("T1")}
        assert providers == {"llm-notebook": ("aliyun-dsw", "aliyun"), "ecs-a10": ("aliyun", "aliyun")}
