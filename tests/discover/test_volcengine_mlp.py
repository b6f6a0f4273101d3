"""Volcengine's ML Platform dev instances through the official SDK (volcenginesdk-mlplatform20240701) against the
local fake (tests/support/fake_volcengine.py, its HMAC-SHA256 signature checked): dev instances with GPUs found with
their type's card and price an hour and their queue's own idle-shutdown rule, CPU ones not, page after page; a
prepaid queue's instance billed by the month; a stop read until it has stopped; a refused stop said refused, in both
languages; the terminal's discover keeps them on the Volcengine account's one wallet."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.discover.cloud import CloudError
from bot.discover.volcengine_mlp import VolcengineMlp, idle_rule
from bot.state.discovered import IDLE_TAG
from bot.text.problem import said
from tests.support.cli import run_cli
from tests.support.fake_volcengine import ENV, fake_volcengine, idle_rules

REGIONS = ("cn-beijing", "cn-shanghai")


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def cloud(url: str) -> VolcengineMlp:
    return VolcengineMlp(REGIONS, url, sleep=lambda s: None)


def test_gpu_dev_instances_are_found_with_card_price_and_their_queues_idle_rule() -> None:
    with fake_volcengine() as fake:
        fake.ml_types["ml.hpcpni2.28xlarge"] = ("NVIDIA A800-SXM4-80GB", 8, 198.4)
        trainer = fake.add_dev(name="llm-dev", instance_type="ml.hpcpni2.28xlarge")
        fake.add_dev(name="cpu-dev", instance_type="ml.g3i.large")  # no GPUs: not the product's business
        fake.add_dev(name="flexible", instance_type="", gpus=2, gpu_type="NVIDIA A800-SXM4-80GB", queue="q-prepaid")
        for n in range(101):  # past one page of 100
            fake.add_dev(name=f"a10-{n}", region="cn-shanghai")
        scan = cloud(fake.url).scan()
    assert scan.problems == {}
    found = {f.name: f for f in scan.found}
    assert "cpu-dev" not in found and len(found) == 103
    big = found["llm-dev"]
    assert (big.key, big.region, big.state, big.gpu, big.cards) == (
        f"volcengine-mlp:{trainer.id}",
        "cn-beijing",
        "running",
        "A800-80GB",
        8,
    )
    assert (big.per_hour, big.currency, big.billing, big.instance_type) == (
        198.4,
        "CNY",
        "hourly",
        "ML Platform ml.hpcpni2.28xlarge",
    )
    assert (big.tags[IDLE_TAG], big.tags["Creator"]) == ("60", "alice")  # the pay-as-you-go queue's idle rule
    assert big.launched_at == datetime(2026, 12, 1, 1, 0, tzinfo=UTC)
    prepaid = found["flexible"]  # a prepaid queue: paid by the month, its rules off
    assert (prepaid.cards, prepaid.gpu, prepaid.billing, prepaid.per_hour) == (2, "A800-80GB", "month", None)
    assert prepaid.tags[IDLE_TAG] == "0"
    assert found["a10-0"].gpu == "A10-24GB" and found["a10-0"].per_hour == 10.36
    assert fake.actions().count("GetInstanceType") == 3  # once a type a region (2 + 1), not once an instance


@pytest.mark.parametrize(
    ("rules", "minutes", "threshold"),
    [
        (idle_rules(general=60), 60, None),
        (idle_rules(low_use=45), 75, 5.0),  # the low-utilization rule's notice: half an hour more before the stop
        (idle_rules(general=120, low_use=20), 50, 5.0),
        (idle_rules(general=30, low_use=20), 30, None),  # the idle rule (no command, no connection) comes first
        (idle_rules(general=30, kinds=("CPU",)), 0, None),  # a rule for CPU dev instances only
        (idle_rules(general=30, kinds=("GPU", "CPU")), 30, None),
        (idle_rules(), 0, None),
        (None, 0, None),
    ],
)
def test_a_queues_idle_rule_is_its_shortest_rule_on_for_gpu_dev_instances(
    rules: object, minutes: int, threshold: float | None
) -> None:
    plain = None if rules is None else _snake(rules)
    assert idle_rule(plain) == (minutes, threshold)  # type: ignore[arg-type]


def _snake(value: object) -> object:
    """The fake's JSON as the SDK gives it back (snake_case keys)."""
    if isinstance(value, dict):
        return {"".join(f"_{c.lower()}" if c.isupper() else c for c in k).lstrip("_"): _snake(v)
                for k, v in value.items()}  # fmt: skip
    return value


@pytest.mark.parametrize("takes_s", [0.0, 0.3], ids=["at_once", "stopping_for_a_while"])
def test_a_stop_is_read_until_the_dev_instance_has_stopped(takes_s: float) -> None:
    with fake_volcengine() as fake:
        fake.stop_takes_s = takes_s
        box = fake.add_dev(name="idle-a10")
        done = cloud(fake.url).stop("cn-beijing", box.id)
    assert (done.state, done.charging, done.how) == ("stopped", False, "StopDevInstance")
    assert fake.actions().count("StopDevInstance") == 1


def test_a_refused_stop_is_final_and_said_in_both_languages() -> None:
    with fake_volcengine() as fake:
        box = fake.add_dev(name="saving-image")
        fake.refuse_dev_stop[box.id] = ("OperationDenied.InstanceBuildingImage", "The instance is building an image.")
        with pytest.raises(CloudError) as refused:
            cloud(fake.url).stop("cn-beijing", box.id)
    assert refused.value.final and box.state == "Running"
    assert str(refused.value).startswith(f"Volcengine ML Platform refused to stop {box.id} (OperationDenied.")
    assert said(refused.value.problem, "zh").startswith(f"火山引擎机器学习平台拒绝停止 {box.id}（OperationDenied.")


def test_a_wrong_secret_is_one_line_for_each_region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VOLCENGINE_SECRET_KEY", "not-the-secret")
    with fake_volcengine() as fake:
        fake.add_dev(name="a10")
        scan = cloud(fake.url).scan()
    assert scan.found == [] and set(scan.problems) == set(REGIONS)
    assert all(p.splitlines() == [p] and "SignatureDoesNotMatch" in p for p in scan.problems.values())
    assert "not-the-secret" not in " ".join(scan.problems.values())


def test_discover_keeps_them_with_their_idle_rule_on_the_volcengine_wallet(tmp_path: Path) -> None:
    with fake_volcengine() as fake:
        fake.add_dev(name="notebook-a10")
        fake.queues["q-low-use"] = ("PostPaid", idle_rules(low_use=45))
        fake.add_dev(name="low-use", queue="q-low-use")
        fake.add(name="ecs-a10")
        env = {
            **ENV,
            "GPU_ADVISOR_VOLCENGINE_REGIONS": "cn-beijing",
            "GPU_ADVISOR_VOLCENGINE_ENDPOINT": fake.url,
            "GPU_ADVISOR_DISCOVER_TEAM": "T1",
            "GPU_ADVISOR_DISCOVER_CHANNEL": "C1",
        }
        alone = run_cli("discover", "--source", "volcengine-mlp", "--json", env=env, tmp=tmp_path)
        family = run_cli("discover", "--source", "volcengine", "--json", env=env, tmp=tmp_path)
        off = run_cli("discover", "--source", "volcengine-mlp", env=env | {"GPU_ADVISOR_VOLCENGINE_MLP": "false"},
                      tmp=tmp_path)  # fmt: skip
        balance = run_cli("balance", "--team", "T1", "--json", env=env, tmp=tmp_path)
    assert alone.returncode == 0, alone.stderr
    item, low_use = sorted(json.loads(alone.stdout)["items"], key=lambda i: i["name"] == "low-use")
    assert (item["source"], item["name"], item["gpu"], item["idle_shutdown_minutes"]) == (
        "volcengine-mlp",
        "notebook-a10",
        "A10-24GB",
        60,
    )
    assert (item["idle_threshold_pct"], low_use["idle_shutdown_minutes"], low_use["idle_threshold_pct"]) == (
        None,  # idle shutdown: no command or connection, no GPU threshold
        75,
        5.0,
    )
    assert {i["source"] for i in json.loads(family.stdout)["items"]} == {"volcengine", "volcengine-mlp"}
    assert off.returncode == 2 and "GPU_ADVISOR_VOLCENGINE_MLP" in off.stderr
    [wallet] = json.loads(balance.stdout)  # one account, one balance: not one for ML Platform apart
    assert (wallet["provider"], wallet["balance"]) == ("volcengine", 12345.6)
    # the dev instance burns its type's price an hour (the ECS one has no price row here: unknown, not counted)
    assert (wallet["burn_per_hour"], sorted(wallet["burning"])) == (20.72, ["low-use", "notebook-a10"])
