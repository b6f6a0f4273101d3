"""Warn, then act, on Tencent Cloud (the local fake of its API 3.0, the official SDK pointed at it): an idle CVM is
stopped with StoppedMode=STOP_CHARGING and StopType=SOFT_FIRST, never terminated, and released from what is
billed; one the cloud cannot stop without charge is not stopped at all (never with its meter running): the
channel is told at once, with the release left to people."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.state.actions import Actions
from bot.state.rentals import Rentals
from tests.actions.test_stop import told
from tests.actions.test_stop_aliyun import verified, warned_then_due
from tests.support.fake_tencent import ENV, FakeTencent, fake_tencent
from tests.support.slack_harness import Harness, running_app


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def due(h: Harness) -> tuple[int, dict[str, object]]:
    return warned_then_due(h, "discover:tencent")


def app(tmp_path: Path, fake: FakeTencent):  # type: ignore[no-untyped-def]
    return running_app(
        tmp_path, tencent_regions="ap-guangzhou", tencent_endpoint=fake.url, tencent_retry_backoff_s=0.001
    )


@pytest.mark.parametrize("stop_takes_s", [0.0, 0.3], ids=["at_once", "stopping_for_a_while"])
def test_an_idle_cvm_is_stopped_with_no_charge(tmp_path: Path, stop_takes_s: float) -> None:
    """A CVM is STOPPING for a while, its StopChargingMode not said yet (issue 49): read again until it stopped."""
    with fake_tencent() as fake:
        fake.stop_takes_s = stop_takes_s
        fake.price("ap-guangzhou-3", "GN7.2XLARGE32", 8.68)
        box = fake.add(tags={"Owner": "U0456", "SlackChannel": "C1"}, name="t4-dev")
        with app(tmp_path, fake) as h:
            inst_id, message = due(h)
            [stop] = [p for a, p in fake.calls if a == "StopInstances"]
            assert stop == {"InstanceIds": [box.id], "StopType": "SOFT_FIRST", "StoppedMode": "STOP_CHARGING"}
            assert (box.state, box.stop_mode) == ("STOPPED", "STOP_CHARGING")
            assert "TerminateInstances" not in fake.actions()
            inst = Rentals(h.deps.store).by_id(inst_id)
            assert inst is not None and inst.released_by == "bot"
            said = told(h, message)
            assert "Stopped *t4-dev*" in said and "¥208 a day saved" in said
            [dm] = h.posts(channel="U0456")  # its owner, who will start it again: told it may be sold out then
            assert "*t4-dev* was stopped" in dm["text"] and "gave its GPU back" in dm["text"]
            assert "ResourceInsufficient" in dm["text"]


def test_one_the_cloud_cannot_stop_without_charge_is_left_running_and_said_at_once(tmp_path: Path) -> None:
    with fake_tencent() as fake:
        fake.price("ap-guangzhou-3", "GN7.2XLARGE32", 8.68)
        box = fake.add(tags={"Owner": "U0456", "SlackChannel": "C1"}, name="local-nvme", can_stop_charging=False)
        with app(tmp_path, fake) as h:
            inst_id, message = due(h)
            assert box.state == "RUNNING"  # never stopped with its meter running
            assert fake.actions().count("StopInstances") == 1  # refused: not tried again
            [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
            assert warning.status == "failed" and "cannot stop" in (warning.detail or "")
            inst = Rentals(h.deps.store).by_id(inst_id)
            assert inst is not None and inst.released_at is None
            said = told(h, message)
            assert "Could not stop *local-nvme*" in said and "twice" not in said
            assert "cannot stop" in said and "without charge" in said and "release it in the console" in said
            [refused] = verified(tmp_path)
            assert refused["outcome"] == "refused" and "StoppedModeStopCharging" in refused["reason"]  # type: ignore[index]


def test_a_refused_stop_is_not_promised_or_tried_again_the_next_days(tmp_path: Path) -> None:
    """Issue 52: after the refusal every later digest promised the stop again, and each deadline called it again."""
    import json

    from bot.actions.due import run_actions
    from tests.actions.test_stop import digest, quiet

    with fake_tencent() as fake:
        fake.price("ap-guangzhou-3", "GN7.2XLARGE32", 8.68)
        fake.add(tags={"Owner": "U0456", "SlackChannel": "C1"}, name="local-nvme", can_stop_charging=False)
        with app(tmp_path, fake) as h:
            inst_id, _message = due(h)
            inst = Rentals(h.deps.store).by_id(inst_id)
            assert inst is not None
            h.clock.advance(days=1)  # idle again the next day
            quiet(h, inst)
            text = json.dumps(digest(h)["blocks"], ensure_ascii=False)
            assert "local-nvme" in text and "It will be stopped at" not in text
            assert "refused the stop" in text and "Release it" in text
            h.clock.advance(hours=5)
            quiet(h, inst, minutes=60)
            run_actions(h.deps, h.tellers())
            assert fake.actions().count("StopInstances") == 1  # never called again
