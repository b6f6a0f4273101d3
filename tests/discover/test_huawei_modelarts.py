"""Huawei Cloud ModelArts notebooks through the official SDK (huaweicloudsdkmodelarts) against the local fake (its
SDK-HMAC-SHA256 signature checked): notebooks with GPUs or Ascend NPUs found with their flavor's cards and their
lease (an IDLE lease kept as their own idle rule, a TIMING one or none flagged as 0), CPU ones not, page after page;
a stop read until the notebook has stopped; the terminal's discover keeps them on the Huawei Cloud wallet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.discover.huawei_modelarts import HuaweiModelArts, idle_lease_minutes
from bot.state.discovered import IDLE_TAG
from tests.support.cli import run_cli
from tests.support.fake_huawei import ENV, fake_huawei

REGIONS = ("cn-north-4", "cn-east-3")


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def cloud(url: str, projects: dict[str, str]) -> HuaweiModelArts:
    return HuaweiModelArts(REGIONS, url, projects, sleep=lambda s: None)


def test_gpu_and_npu_notebooks_are_found_with_their_cards_and_idle_lease() -> None:
    with fake_huawei() as fake:
        t4 = fake.notebook(name="t4-notebook", tags={"Owner": "U0456", "Project": "llm"})
        fake.notebook(name="ascend-notebook", flavor="modelarts.bm.npu.arm.8snt9b3.d",
                      lease={"type": "TIMING", "duration": 7_200_000, "enable": True})  # fmt: skip
        fake.notebook(name="cpu-notebook", flavor="modelarts.vm.cpu.8u")
        for n in range(51):  # past one page of 50
            fake.notebook(name=f"east-{n}", region="cn-east-3", lease={"type": "IDLE", "enable": False})
        for n in range(55):  # flavors past one page of 50 too: the T4 flavor listed first, Ascend's on the second page
            fake.notebook_flavors[f"modelarts.vm.cpu.{n}u"] = ("gpu", "", 0)
        fake.notebook_flavors["modelarts.bm.npu.arm.8snt9b3.d"] = fake.notebook_flavors.pop(
            "modelarts.bm.npu.arm.8snt9b3.d"
        )
        scan = cloud(fake.url, dict(fake.projects)).scan()
    assert scan.problems == {}
    found = {f.name: f for f in scan.found}
    assert "cpu-notebook" not in found and len(found) == 53
    mine = found["t4-notebook"]
    assert (mine.key, mine.state, mine.gpu, mine.cards, mine.instance_type) == (
        f"huawei-modelarts:{t4.id}",
        "running",
        "T4-16GB",
        1,
        "ModelArts modelarts.vm.gpu.t4u8",
    )
    assert (mine.tags[IDLE_TAG], mine.tags["Owner"], mine.tags["Creator"], mine.currency) == (
        "60",
        "U0456",
        "zhang.san",
        "CNY",
    )
    ascend = found["ascend-notebook"]
    assert (ascend.gpu, ascend.cards, ascend.tags[IDLE_TAG]) == ("Ascend-910B-64GB", 8, "0")  # a TIMING stop: not idle
    assert found["east-0"].tags[IDLE_TAG] == "0"  # its idle stop off: flagged
    assert fake.paths().count(f"/v1/{fake.projects['cn-north-4']}/notebooks/flavors") == 2  # two pages, once a region


@pytest.mark.parametrize(
    ("lease", "minutes"),
    [
        ({"type": "IDLE", "duration": 3_600_000, "enable": True}, 60),
        ({"type": "IDLE", "duration": 5_400_000}, 90),
        ({"type": "IDLE", "duration": 3_600_000, "enable": False}, 0),
        ({"type": "TIMING", "duration": 3_600_000, "enable": True}, 0),
        (None, 0),
    ],
)
def test_only_an_idle_lease_that_is_on_is_an_idle_rule(lease: dict[str, object] | None, minutes: int) -> None:
    assert idle_lease_minutes(lease) == minutes


@pytest.mark.parametrize("takes_s", [0.0, 0.3], ids=["at_once", "stopping_for_a_while"])
def test_a_stop_is_read_until_the_notebook_has_stopped(takes_s: float) -> None:
    with fake_huawei() as fake:
        fake.stop_takes_s = takes_s
        box = fake.notebook(name="idle-t4")
        done = cloud(fake.url, dict(fake.projects)).stop("cn-north-4", box.id)
    assert (done.state, done.charging, done.how) == ("stopped", False, "StopNotebook")
    assert box.status == "STOPPED"


def test_discover_keeps_them_with_their_lease_on_the_huawei_wallet(tmp_path: Path) -> None:
    with fake_huawei() as fake:
        fake.notebook(name="t4-notebook")
        fake.add(name="v100-server")
        env = {
            **ENV,
            "GPU_ADVISOR_HUAWEI_REGIONS": "cn-north-4",
            "GPU_ADVISOR_HUAWEI_ENDPOINT": fake.url,
            "GPU_ADVISOR_DISCOVER_TEAM": "T1",
            "GPU_ADVISOR_DISCOVER_CHANNEL": "C1",
        }
        alone = run_cli("discover", "--source", "huawei-modelarts", "--json", env=env, tmp=tmp_path)
        family = run_cli("discover", "--source", "huawei", "--json", env=env, tmp=tmp_path)
        off = run_cli("discover", "--source", "huawei-modelarts",
                      env=env | {"GPU_ADVISOR_HUAWEI_MODELARTS": "false"}, tmp=tmp_path)  # fmt: skip
        balance = run_cli("balance", "--team", "T1", "--json", env=env, tmp=tmp_path)
    assert alone.returncode == 0, alone.stderr
    [item] = json.loads(alone.stdout)["items"]
    assert (item["source"], item["gpu"], item["idle_shutdown_minutes"]) == ("huawei-modelarts", "T4-16GB", 60)
    assert {i["source"] for i in json.loads(family.stdout)["items"]} == {"huawei", "huawei-modelarts"}
    assert off.returncode == 2 and "GPU_ADVISOR_HUAWEI_MODELARTS" in off.stderr
    [wallet] = json.loads(balance.stdout)  # one Huawei Cloud account: one balance for ECS and ModelArts
    assert (wallet["provider"], wallet["balance"]) == ("huawei", 8765.43)


def test_the_digest_says_each_notebooks_own_rule_and_flags_one_without(tmp_path: Path) -> None:
    """Issue 49: a ModelArts notebook's IDLE lease, and a Volcengine ML Platform queue's rule, beside the item as
    DSW's is; a notebook whose lease is a TIMING one is flagged as having no idle stop of its own."""
    from datetime import UTC, datetime

    from bot.chat.digest_messages import found_line
    from bot.discover.run import discover
    from bot.discover.volcengine_mlp import VolcengineMlp
    from bot.settings import Settings
    from bot.state import Store
    from bot.state.rentals import Rentals
    from bot.text import Lang
    from rules.digest import compose
    from rules.policy import Idle
    from tests.support.fake_volcengine import ENV as VOLCENGINE_ENV
    from tests.support.fake_volcengine import fake_volcengine, idle_rules
    from tests.support.state_template import migrated_state_db

    now = datetime(2026, 12, 5, 8, 0, tzinfo=UTC)
    store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
    settings = Settings(db=tmp_path / "bot.db", discover_channel="C1")
    with fake_huawei() as fake:
        fake.notebook(name="idle-lease")
        fake.notebook(name="timing-lease", lease={"type": "TIMING", "duration": 7_200_000, "enable": True})
        discover(settings, store, "T1", now, offers=lambda gpu: [], cloud=cloud(fake.url, dict(fake.projects)))
    with pytest.MonkeyPatch.context() as env, fake_volcengine() as volc:
        for key, value in VOLCENGINE_ENV.items():
            env.setenv(key, value)
        volc.queues["q-low-use"] = ("PostPaid", idle_rules(low_use=45))
        volc.add_dev(name="dev-box", queue="q-low-use")
        mlp = VolcengineMlp(("cn-beijing",), volc.url, sleep=lambda s: None)
        discover(settings, store, "T1", now, offers=lambda gpu: [], cloud=mlp)
    kept = Rentals(store).instances("T1")
    found = {f.name: f for f in compose(kept, [], {}, now=now, rules=Idle()).found}
    assert found_line(found["idle-lease"], Lang.EN).endswith("(the platform stops it by itself after 60 min idle)")
    assert found_line(found["dev-box"], Lang.EN).endswith("(the platform stops it by itself after 75 min idle)")
    assert "闲置 75 分钟后自动停机" in found_line(found["dev-box"], Lang.ZH)
    assert found_line(found["timing-lease"], Lang.EN).endswith(
        "(its platform's own idle shutdown is off: turn it on there to have it stop by itself when idle)"
    )
