"""AWS discovery against moto's server: GPU instances (tagged with ids and emails, spot, untagged), unattached
volumes, re-runs that update and never duplicate, termination and deletion between runs, CloudWatch's NVIDIA
metrics read back as samples, and an enrolled box that is the same cloud instance kept as one item."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from bot.discover.run import discover
from bot.settings import Settings
from bot.slack.client import YieldingClient
from bot.slack.wing import SlackWing
from bot.state import Store
from bot.state.discovered import Discovered
from bot.state.enrollment import Box, Enrollments, Grant
from bot.state.rentals import Rentals
from bot.text import Lang
from tests.support.aws import cloudwatch, ec2, launch, moto_server, volume
from tests.support.cli import run_cli
from tests.support.fake_slack import fake_slack
from tests.support.state_template import migrated_state_db


def settings(tmp_path: Path, url: str, **extra: Any) -> Settings:
    return Settings(
        db=tmp_path / "bot.db",
        aws_regions="us-east-1",
        aws_endpoint_url=url,
        azure_enabled=False,
        ecb_enabled=False,
        discover_channel="CGPU",
        **extra,
    )


def no_offers(gpu: str) -> list[Any]:
    return []


def run(tmp_path: Path, url: str, store: Store, client: Any = None, **extra: Any):  # type: ignore[no-untyped-def]
    """A discovery run; with a Slack `client`, Owner tags' addresses are looked up in its workspace."""
    find = SlackWing(lambda _team: client, lambda _client, _user: Lang.EN).person if client is not None else None
    at = datetime.now(UTC)
    return discover(
        settings(tmp_path, url, **extra), store, "T1", at, offers=no_offers, find_owner=find and partial(find, "T1")
    )


def test_gpu_instances_and_unattached_volumes_become_items_with_owner_channel_and_price(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with moto_server(monkeypatch) as url, fake_slack() as fake:
        fake.emails["ana@example.com"] = "UANA"
        client = ec2(url)
        bare = launch(client, "g5.xlarge")
        tagged = launch(
            client, "p4d.24xlarge", {"Name": "pretrain-8x", "Owner": "U0456", "SlackChannel": "#C9", "Project": "llm"}
        )
        spot = launch(client, "g4dn.xlarge", {"Owner": "ana@example.com"}, spot=True)
        launch(client, "t3.micro")  # no GPU: never an item
        disk = volume(client, 500)
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        report = run(tmp_path, url, store, YieldingClient(token="xoxb-test", base_url=fake.api_url))
        assert report.problems == {}
        rentals = Rentals(store)
        found = {i.provider_id: i for i in rentals.instances("T1")}
        assert set(found) == {f"aws:{bare}", f"aws:{tagged}", f"aws:{spot}"}
        untagged = found[f"aws:{bare}"]
        assert (untagged.name, untagged.owner, untagged.channel, untagged.gpu, untagged.cards) == (
            bare,
            "",
            "CGPU",
            "A10-24GB",
            1,
        )
        assert (untagged.price, untagged.unit, untagged.currency, untagged.source) == (1.006, "hour", "USD", "aws")
        big = found[f"aws:{tagged}"]
        assert (big.name, big.owner, big.channel, big.project, big.gpu, big.cards) == (
            "pretrain-8x",
            "U0456",
            "C9",
            "llm",
            "A100-40GB",
            8,
        )
        assert found[f"aws:{spot}"].spot and found[f"aws:{spot}"].owner == "UANA"
        [kept] = rentals.storage("T1")
        assert (kept.name, kept.size_gb, kept.price_gb_month, kept.currency, kept.owner, kept.provider_id) == (
            disk,
            500.0,
            0.08,
            "USD",
            "",
            f"aws:{disk}",
        )


def test_a_rerun_updates_and_what_is_gone_is_released_or_deleted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with moto_server(monkeypatch) as url:
        client = ec2(url)
        keep, gone = launch(client, "g6.xlarge"), launch(client, "g6e.12xlarge")
        disk = volume(client, 200)
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        first = run(tmp_path, url, store)
        assert sorted(first.applied.new) == sorted([keep, gone, disk])
        client.terminate_instances(InstanceIds=[gone])
        client.delete_volume(VolumeId=disk)
        client.stop_instances(InstanceIds=[keep])
        client.create_tags(Resources=[keep], Tags=[{"Key": "Owner", "Value": "U0777"}])
        second = run(tmp_path, url, store)
        assert second.applied.new == [] and second.applied.released == [gone] and second.applied.deleted == [disk]
        rentals = Rentals(store)
        by_id = {i.provider_id: i for i in rentals.instances("T1")}
        assert len(by_id) == 2
        assert by_id[f"aws:{gone}"].released_at is not None and by_id[f"aws:{gone}"].released_by == "cloud"
        assert (by_id[f"aws:{keep}"].cloud_state, by_id[f"aws:{keep}"].owner) == ("stopped", "U0777")
        assert rentals.storage("T1")[0].deleted_at is not None
        assert Discovered(store).runs()["aws"].found == 2


def test_cloudwatch_nvidia_metrics_become_samples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with moto_server(monkeypatch) as url:
        box = launch(ec2(url), "g5.12xlarge")
        now = datetime.now(UTC).replace(second=0, microsecond=0)
        data = []
        for gpu in range(2):
            dims = [{"Name": "InstanceId", "Value": box}, {"Name": "index", "Value": str(gpu)}]
            for minute in range(0, 60, 10):
                at = now - timedelta(minutes=minute)
                data += [
                    {
                        "MetricName": "nvidia_smi_utilization_gpu",
                        "Dimensions": dims,
                        "Timestamp": at,
                        "Value": 2.0 + gpu,
                    },
                    {"MetricName": "nvidia_smi_memory_used", "Dimensions": dims, "Timestamp": at, "Value": 900.0},
                    {"MetricName": "nvidia_smi_memory_total", "Dimensions": dims, "Timestamp": at, "Value": 23028.0},
                ]
        cw = cloudwatch(url)
        for start in range(0, len(data), 20):
            cw.put_metric_data(Namespace="CWAgent", MetricData=data[start : start + 20])
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        report = run(tmp_path, url, store)
        assert report.problems == {}
        [inst] = Rentals(store).instances("T1")
        samples = Rentals(store).samples(inst.id, now - timedelta(hours=2))
        assert len(samples) == 12
        assert {(s.gpu, s.utilization_pct, s.memory_used_mib, s.memory_total_mib) for s in samples} == {
            (0, 2.0, 900.0, 23028.0),
            (1, 3.0, 900.0, 23028.0),
        }
        run(tmp_path, url, store)  # read again: kept once
        assert len(Rentals(store).samples(inst.id, now - timedelta(hours=2))) == 12


def test_an_enrolled_box_and_its_cloud_instance_are_one_item(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with moto_server(monkeypatch) as url:
        client = ec2(url)
        first = launch(client, "g5.2xlarge", {"Owner": "U0456", "SlackChannel": "C9"})
        later = launch(client, "g5.2xlarge")
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        now = datetime.now(UTC)
        enrollments = Enrollments(store)
        token = enrollments.issue(Grant("T1", "C1", "U1", None, 5, now + timedelta(days=1)), created_by="U1", now=now)
        price = {"unit": "hour", "price": 1.2, "currency": "USD"}
        enrolled, _ = enrollments.enroll(token, Box("box-a", "m1", "A10-24GB", 1, f"aws:{first}"), price, now)
        run(tmp_path, url, store)  # discovery after enrollment: the enrolled item, the tags' owner and channel
        enrollments.enroll(token, Box("box-b", "m2", "A10-24GB", 1, f"aws:{later}"), price, now)  # after discovery
        rentals = Rentals(store)
        items = {i.provider_id: i for i in rentals.instances("T1")}
        assert len(items) == 2
        assert (items[f"aws:{first}"].id, items[f"aws:{first}"].owner, items[f"aws:{first}"].channel) == (
            enrolled.id,
            "U0456",
            "C9",
        )
        joined = items[f"aws:{later}"]
        assert (joined.name, joined.source, joined.machine_id, joined.owner, joined.channel) == (
            later,
            "aws",
            "m2",
            "U1",
            "C1",
        )


def test_discover_json_from_the_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with moto_server(monkeypatch) as url:
        box = launch(ec2(url), "g5.xlarge")
        env = {
            "GPU_ADVISOR_AWS_REGIONS": "us-east-1",
            "GPU_ADVISOR_AWS_ENDPOINT_URL": url,
            "GPU_ADVISOR_DISCOVER_TEAM": "T1",
            "GPU_ADVISOR_LANG": "en",
        }
        done = run_cli("discover", "--json", env=env, tmp=tmp_path)
        assert done.returncode == 0, done.stderr
        said = json.loads(done.stdout)
        assert said["found"] == 1
        [item] = said["items"]
        assert {k: item[k] for k in ("key", "source", "kind", "name", "gpu", "cards", "owner", "state")} == {
            "key": f"aws:{box}",
            "source": "aws",
            "kind": "instance",
            "name": box,
            "gpu": "A10-24GB",
            "cards": 1,
            "owner": None,
            "state": "running",
        }
        listed = json.loads(run_cli("list", "--team", "T1", "--json", env=env, tmp=tmp_path).stdout)
        assert [(i["source"], i["provider_id"]) for i in listed["instances"]] == [("aws", f"aws:{box}")]
        off = run_cli("discover", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
        assert off.returncode == 2 and "GPU_ADVISOR_AWS_REGIONS" in off.stderr
        from bot.settings.areas import Discovery

        clouds = [f"GPU_ADVISOR_{name.upper()}" for name in Discovery.model_fields if name.endswith("_regions")]
        assert len(clouds) >= 5 and all(cloud in off.stderr for cloud in clouds), off.stderr  # Huawei was left out


def test_a_stop_between_scans_stops_the_meter_from_the_scan_that_saw_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.state.power import PowerLog
    from rules import metering
    from rules.power import Power

    with moto_server(monkeypatch) as url:
        client = ec2(url)
        box = launch(client, "g6.xlarge")
        store = Store(f"sqlite:///{migrated_state_db(tmp_path / 'state.db')}")
        t0 = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)  # after moto's launch time: scans follow

        def scan(at: datetime) -> None:
            discover(settings(tmp_path, url), store, "T1", at, offers=no_offers)

        scan(t0)
        scan(t0 + timedelta(hours=1))
        client.stop_instances(InstanceIds=[box])
        scan(t0 + timedelta(hours=2))  # seen stopped here: the meter stops from this scan
        scan(t0 + timedelta(hours=4))
        client.start_instances(InstanceIds=[box])
        scan(t0 + timedelta(hours=5))
        [inst] = Rentals(store).instances("T1")
        assert (inst.billing, inst.provider) == ("hourly", "aws")
        end = t0 + timedelta(hours=6)
        [stretches] = PowerLog(store).timelines([inst], end).values()
        ours = [(s.state, s.start - t0, s.end - t0) for s in stretches if s.start >= t0]
        assert stretches[0].state is Power.UNKNOWN  # from its launch to the first scan nobody saw it
        assert ours == [
            (Power.ON, timedelta(0), timedelta(hours=2)),
            (Power.OFF, timedelta(hours=2), timedelta(hours=5)),
            (Power.ON, timedelta(hours=5), timedelta(hours=6)),
        ]
        assert metering.billed_hours(inst, stretches, t0, end) == pytest.approx(
            3.0
        )  # 2 h, then 1 h: the 3 h stopped are not
        assert metering.cost(inst, stretches, t0, end) == pytest.approx(3 * metering.per_hour(inst))
        silent = t0 + timedelta(hours=10)  # no scan for 5 h: on at the last scan, unknown after the limit (3 h)
        [later] = PowerLog(store).timelines([inst], silent).values()
        assert (later[-1].state, later[-1].start) == (Power.UNKNOWN, t0 + timedelta(hours=8))


def test_activity_is_read_between_scans_as_often_as_the_idle_rule_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34.17: CloudWatch was read only with a scan (every 30 min) while the idle rule wants a sample at
    most 10 minutes old, so a due stop was cancelled as unknown. serve's `activity:aws` reads it between scans."""
    from bot.server.jobs import jobs_of
    from tests.support.slack_harness import running_app

    with moto_server(monkeypatch) as url:
        box = launch(ec2(url), "g5.xlarge", {"Owner": "U0456", "SlackChannel": "C1"})
        with running_app(tmp_path, aws_regions="us-east-1", aws_endpoint_url=url, activity_every_minutes=5) as h:
            jobs = {j.id: j for j in jobs_of(h.settings, h.deps, h.doors())}
            assert jobs["activity:aws"].every == timedelta(minutes=5) and jobs["discover:aws"].every == timedelta(
                minutes=30
            )
            jobs["discover:aws"].work()
            [inst] = Rentals(h.deps.store).instances("T1")
            now = h.clock.now.replace(second=0, microsecond=0)
            dims = [{"Name": "InstanceId", "Value": box}, {"Name": "index", "Value": "0"}]
            fresh = [
                {"MetricName": name, "Dimensions": dims, "Timestamp": now - timedelta(minutes=2), "Value": value}
                for name, value in (
                    ("nvidia_smi_utilization_gpu", 0.0),
                    ("nvidia_smi_memory_used", 0.0),
                    ("nvidia_smi_memory_total", 23028.0),
                )
            ]
            cloudwatch(url).put_metric_data(Namespace="CWAgent", MetricData=fresh)  # after the scan
            assert jobs["activity:aws"].work() == {}
            [sample] = Rentals(h.deps.store).samples(inst.id, now - timedelta(minutes=10))
            assert (sample.utilization_pct, sample.memory_total_mib) == (0.0, 23028.0)
