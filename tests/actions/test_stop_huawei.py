"""Warn, then act, on Huawei Cloud (the local fake, the official SDKs pointed at it): an idle GPU server found by
discovery is stopped (BatchStopServers, os-stop, SOFT), read again until it is off, and released from what is billed;
one of a flavor that bills while stopped is kept and said still billed, never saved; one whose stop the cloud refuses
is not tried again, the release left to people."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.state.actions import Actions
from bot.state.rentals import Rentals
from tests.actions.test_stop import told
from tests.actions.test_stop_aliyun import verified, warned_then_due
from tests.support.fake_huawei import ENV, FakeHuawei, fake_huawei
from tests.support.slack_harness import running_app


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def app(tmp_path: Path, fake: FakeHuawei):  # type: ignore[no-untyped-def]
    """ECS only, priced from a team rate card row (provider huawei): the API gives no price."""
    card = tmp_path / "rates.csv"
    card.write_text(
        "provider,instance_type,gpu,gpu_count,pricing_model,amount,currency,unit,effective_date,provenance\n"
        "huawei,p2s.2xlarge.8,V100-32GB,1,on-demand,16.2,CNY,hour,2026-11-01,team rate card\n"
        "huawei,pi2.4xlarge.4,T4-16GB,1,on-demand,7.6,CNY,hour,2026-11-01,team rate card\n"
    )
    return running_app(
        tmp_path,
        huawei_regions="cn-north-4",
        huawei_endpoint=fake.url,
        huawei_retry_backoff_s=0.001,
        huawei_modelarts=False,
        rate_cards=str(card),
    )


@pytest.mark.parametrize("stop_takes_s", [0.0, 0.3], ids=["at_once", "powering_off_for_a_while"])
def test_an_idle_server_is_stopped_and_said_so_once_it_is_off(tmp_path: Path, stop_takes_s: float) -> None:
    with fake_huawei() as fake:
        fake.stop_takes_s = stop_takes_s
        box = fake.add(tags={"Owner": "U0456", "ChatChannel": "C1"}, name="v100-dev")
        with app(tmp_path, fake) as h:
            inst_id, message = warned_then_due(h, "discover:huawei")
            assert box.status == "SHUTOFF" and box.task_state == ""
            inst = Rentals(h.deps.store).by_id(inst_id)
            assert inst is not None and inst.released_by == "bot"
            said = told(h, message)
            assert "Stopped *v100-dev*" in said and "¥389 a day saved" in said
            assert "saves nothing" not in json.dumps(message["blocks"])  # its flavor stops billing when stopped
            [stopped] = verified(tmp_path)
            assert stopped == {"outcome": "stopped_without_charge"}


def test_a_flavor_billed_while_stopped_is_kept_and_said_still_billed(tmp_path: Path) -> None:
    with fake_huawei() as fake:
        fake.flavors["pi2.4xlarge.4"] = ("gpus", "NVIDIA T4", 1, 16384, True)
        box = fake.add(tags={"Owner": "U0456", "ChatChannel": "C1"}, name="local-disk-t4", flavor="pi2.4xlarge.4")
        with app(tmp_path, fake) as h:
            inst_id, message = warned_then_due(h, "discover:huawei")
            assert "Stopping it saves nothing: it is still billed while stopped" in json.dumps(message["blocks"])
            assert box.status == "SHUTOFF"
            inst = Rentals(h.deps.store).by_id(inst_id)
            assert inst is not None and inst.released_at is None  # still billed: kept
            assert "a day saved" not in told(h, message)
            [billed] = verified(tmp_path)
            assert billed["outcome"] == "stopped_still_billed" and billed["per_hour"] == 7.6  # type: ignore[index]


def test_a_refused_stop_is_said_refused_and_not_tried_again(tmp_path: Path) -> None:
    with fake_huawei() as fake:
        box = fake.add(tags={"Owner": "U0456", "ChatChannel": "C1"}, name="locked")
        fake.refuse_stop[box.id] = ("Ecs.0051", "The server is locked.")
        with app(tmp_path, fake) as h:
            warned_then_due(h, "discover:huawei")
            assert box.status == "ACTIVE"
            stops = [p for m, p, _ in fake.calls if m == "POST" and p.endswith("/cloudservers/action")]
            assert len(stops) == 1
            [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
            assert warning.status == "failed"
            [refused] = verified(tmp_path)
            assert refused["outcome"] == "refused" and "Ecs.0051" in refused["reason"]  # type: ignore[index]
