"""`gpu-advise discover --source aliyun` in the terminal against the local fake of Alibaba Cloud: the items as
text and JSON, each problem one line with exit 1, and what to set when Alibaba Cloud is off (exit 2), in English
and Chinese; without credentials, the process says so in one line and reaches no metadata server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_cli, run_process
from tests.support.fake_aliyun import ENV, fake_aliyun


def env(url: str, **extra: str) -> dict[str, str]:
    return {
        "GPU_ADVISOR_ALIYUN_REGIONS": "cn-hangzhou",
        "GPU_ADVISOR_ALIYUN_ENDPOINT": url,
        "GPU_ADVISOR_ALIYUN_RETRY_BACKOFF_S": "0",
        "GPU_ADVISOR_DISCOVER_TEAM": "T1",
        "GPU_ADVISOR_DISCOVER_CHANNEL": "CGPU",
        "GPU_ADVISOR_LANG": "en",
        **ENV,
        **extra,
    }


def test_found_items_are_listed_with_their_source_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    with fake_aliyun() as fake:
        fake.prices[("cn-hangzhou", "ecs.gn7i-c8g1.2xlarge")] = 11.62
        box = fake.add(name="gn7i-untagged")
        disk = fake.add_disk(size=300)
        done = run_cli("discover", "--source", "aliyun", "--json", env=env(fake.url), tmp=tmp_path)
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        assert out["found"] == 2
        keys = {item["key"]: item for item in out["items"]}
        assert keys[f"aliyun:{box.id}"] | {} == keys[f"aliyun:{box.id}"]
        assert (keys[f"aliyun:{box.id}"]["source"], keys[f"aliyun:{box.id}"]["gpu"]) == ("aliyun", "A10-24GB")
        assert keys[f"aliyun:{disk}"]["size_gb"] == 300
        listed = run_cli("list", "--team", "T1", "--json", env=env(fake.url), tmp=tmp_path)
        assert listed.returncode == 0, listed.stderr
        row = next(i for i in json.loads(listed.stdout)["instances"] if i["name"] == "gn7i-untagged")
        assert (row["price"], row["currency"], row["unit"]) == (11.62, "CNY", "hour")
        fake.deny.add("DescribeInstances")
        denied = run_cli("discover", "--source", "aliyun", env=env(fake.url), tmp=tmp_path)
        assert denied.returncode == 1 and "Traceback" not in denied.stdout + denied.stderr
        assert denied.stderr.strip().splitlines() == [
            "cn-hangzhou: access denied (Forbidden.RAM): the RAM policy lacks ecs:DescribeInstances/DescribeDisks/"
            "StopInstances or cms:DescribeMetricList; User not authorized to operate on the specified resource."
        ]
        zh = run_cli("discover", "--source", "aliyun", "--lang", "zh", env=env(fake.url), tmp=tmp_path)
        assert zh.returncode == 1
        assert (
            zh.stderr.strip()
            .splitlines()[0]
            .endswith(
                "访问被拒绝（Forbidden.RAM）：RAM 策略缺少 ecs:DescribeInstances/DescribeDisks/StopInstances or "
                "cms:DescribeMetricList；User not authorized to operate on the specified resource."
            )
        )  # the cloud's own words stay as it said them


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Alibaba Cloud discovery is off: set GPU_ADVISOR_ALIYUN_REGIONS"),
        ("zh", "阿里云发现未开启：请设置 GPU_ADVISOR_ALIYUN_REGIONS"),
    ],
)
def test_alibaba_cloud_off_says_what_to_set(tmp_path: Path, lang: str, said: str) -> None:
    done = run_cli(
        "discover",
        "--source",
        "aliyun",
        env={"GPU_ADVISOR_LANG": lang, "GPU_ADVISOR_DISCOVER_TEAM": "T1"},
        tmp=tmp_path,
    )
    assert done.returncode == 2 and said in done.stderr
    unknown = run_cli("discover", "--source", "gcp", env={"GPU_ADVISOR_LANG": lang}, tmp=tmp_path)
    known = (
        "aws, aliyun, aliyun-dsw, tencent, tencent-hai, volcengine, volcengine-mlp, huawei, huawei-modelarts, autodl"
    )
    assert unknown.returncode == 2 and known in unknown.stderr


@pytest.mark.e2e  # a process of its own: the SDK's credential chain reads its environment once, at import
def test_without_credentials_discovery_says_so_in_one_line(tmp_path: Path) -> None:
    with fake_aliyun() as fake:
        bare = {k: v for k, v in env(fake.url).items() if not k.startswith("ALIBABA_CLOUD_ACCESS")}
        done = run_process(
            "discover",
            "--source",
            "aliyun",
            env=bare | {"HOME": str(tmp_path), "ALIBABA_CLOUD_ECS_METADATA_DISABLED": "true"},
            tmp=tmp_path,
        )
        assert done.returncode == 1, done.stderr
        none = (
            "no Alibaba Cloud credentials (set ALIBABA_CLOUD_ACCESS_KEY_ID and ALIBABA_CLOUD_ACCESS_KEY_SECRET, "
            "a profile or an instance RAM role)"
        )
        assert done.stderr.strip().splitlines() == [f"cn-hangzhou: {none}", f"balance: {none}"]
        assert fake.calls == []  # nothing unsigned reached the cloud


def test_team_chooses_whose_items_a_run_keeps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`discover` took no --team (every other command about the team's items does): a terminal with two teams could
    only keep found items under GPU_ADVISOR_DISCOVER_TEAM. --team chooses for the run; a bad one is refused."""
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    with fake_aliyun() as fake:
        fake.add(name="gn7i-other")
        done = run_cli("discover", "--source", "aliyun", "--team", "T2", "--json", env=env(fake.url), tmp=tmp_path)
        assert done.returncode == 0, done.stderr
        names = {
            i["name"] for i in json.loads(run_cli("list", "--team", "T2", "--json", tmp=tmp_path).stdout)["instances"]
        }
        assert names == {"gn7i-other"}
        assert json.loads(run_cli("list", "--team", "T1", "--json", tmp=tmp_path).stdout)["instances"] == []
        bad = run_cli("discover", "--source", "aliyun", "--team", "#general", env=env(fake.url), tmp=tmp_path)
        assert bad.returncode == 2 and "'#general' is not a team" in bad.stderr, bad.stderr
