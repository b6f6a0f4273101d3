"""Warn, then act, on Volcengine (the local fake of its OpenAPI, the official SDK pointed at it): an idle GPU instance
found by discovery is stopped with StoppedMode=StopCharging, read again until it has stopped, and released from what
is billed; one that stops with its meter running (KeepCharging) is kept and said still billed, never saved; one whose
stop the cloud refuses is not tried again, the release left to people."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.state.actions import Actions
from bot.state.rentals import Rentals
from tests.actions.test_stop import told
from tests.actions.test_stop_aliyun import verified, warned_then_due
from tests.support.fake_volcengine import ENV, FakeVolcengine, fake_volcengine
from tests.support.slack_harness import running_app


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def app(tmp_path: Path, fake: FakeVolcengine):  # type: ignore[no-untyped-def]
    """Priced from a team rate card row (provider volcengine): the API gives no price."""
    card = tmp_path / "rates.csv"
    card.write_text(
        "provider,instance_type,gpu,gpu_count,pricing_model,amount,currency,unit,effective_date,provenance\n"
        "volcengine,ecs.gni2.3xlarge,A10-24GB,1,on-demand,9.5,CNY,hour,2026-11-01,team rate card\n"
    )
    return running_app(
        tmp_path,
        volcengine_regions="cn-beijing",
        volcengine_endpoint=fake.url,
        volcengine_retry_backoff_s=0.001,
        rate_cards=str(card),
    )


@pytest.mark.parametrize("stop_takes_s", [0.0, 0.3], ids=["at_once", "stopping_for_a_while"])
def test_an_idle_instance_is_stopped_with_no_charge(tmp_path: Path, stop_takes_s: float) -> None:
    with fake_volcengine() as fake:
        fake.stop_takes_s = stop_takes_s
        box = fake.add(tags={"Owner": "U0456", "SlackChannel": "C1"}, name="a10-dev")
        with app(tmp_path, fake) as h:
            inst_id, message = warned_then_due(h, "discover:volcengine")
            [stop] = [p for a, p in fake.calls if a == "StopInstance"]
            assert stop["StoppedMode"] == "StopCharging" and (box.status, box.stopped_mode) == (
                "STOPPED",
                "StopCharging",
            )
            inst = Rentals(h.deps.store).by_id(inst_id)
            assert inst is not None and inst.released_by == "bot"
            said = told(h, message)
            assert "Stopped *a10-dev*" in said and "¥228 a day saved" in said
            [stopped] = verified(tmp_path)
            assert stopped == {"outcome": "stopped_without_charge"}


def test_one_stopped_with_its_meter_running_is_kept_and_said_still_billed(tmp_path: Path) -> None:
    with fake_volcengine() as fake:
        box = fake.add(tags={"Owner": "U0456", "SlackChannel": "C1"}, name="local-ssd", can_stop_charging=False)
        with app(tmp_path, fake) as h:
            inst_id, message = warned_then_due(h, "discover:volcengine")
            assert (box.status, box.stopped_mode) == ("STOPPED", "KeepCharging")
            inst = Rentals(h.deps.store).by_id(inst_id)
            assert inst is not None and inst.released_at is None  # still billed: kept
            said = told(h, message)
            assert "a day saved" not in said
            [billed] = verified(tmp_path)
            assert billed["outcome"] == "stopped_still_billed" and billed["per_hour"] == 9.5  # type: ignore[index]


def test_a_refused_stop_is_said_refused_and_not_tried_again(tmp_path: Path) -> None:
    with fake_volcengine() as fake:
        fake.refuse_stop["ecs.gni2.3xlarge"] = ("OperationDenied.StoppedMode", "StopCharging is not supported.")
        box = fake.add(tags={"Owner": "U0456", "SlackChannel": "C1"}, name="bare-metal")
        with app(tmp_path, fake) as h:
            warned_then_due(h, "discover:volcengine")
            assert box.status == "RUNNING" and fake.actions().count("StopInstance") == 1
            [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
            assert warning.status == "failed"
            [refused] = verified(tmp_path)
            assert refused["outcome"] == "refused" and "OperationDenied.StoppedMode" in refused["reason"]  # type: ignore[index]
