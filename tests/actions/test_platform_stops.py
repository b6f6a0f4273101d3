"""Issue 49: a notebook whose platform stops it by itself when idle (PAI-DSW's idle culler) sooner than a `stop`
channel's grace is neither warned nor stopped by the bot, so that the two never race; one whose own rule is longer
than the grace is warned and stopped as any other; a warning given before the notebook's rule was shortened is
cancelled at its deadline, saying why. Against the local fake of Alibaba Cloud, with the official SDK."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from bot.actions.due import run_actions
from bot.state.actions import Actions
from bot.state.rentals import Rentals
from tests.actions.test_stop import GRACE, digest, quiet, told
from tests.support.fake_aliyun import ENV, fake_aliyun
from tests.support.slack_harness import running_app


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)


def test_a_notebook_its_platform_stops_sooner_than_the_grace_is_left_to_it(tmp_path: Path) -> None:
    assert timedelta(minutes=30) == GRACE  # the 20 min rule is under it, the 2 h rule over it
    with fake_aliyun() as fake:
        fake.types["ecs.gn7i-c8g1.2xlarge"] = ("NVIDIA A10", 1)
        tags = {"Owner": "U0456", "SlackChannel": "C1"}
        soon = fake.notebook(name="stops-itself-soon", idle_minutes=20, tags=tags)  # 20 min < the 30 min grace
        late = fake.notebook(name="stops-itself-late", idle_minutes=120, tags=tags)  # 2 h > the grace
        with running_app(tmp_path, aliyun_regions="cn-hangzhou", aliyun_endpoint=fake.url) as h:
            from bot.server.jobs import jobs_of

            [job] = [j for j in jobs_of(h.settings, h.deps, h.doors()) if j.id == "discover:aliyun-dsw"]
            job.work()
            kept = {i.name: i for i in Rentals(h.deps.store).instances("T1")}
            assert kept["stops-itself-soon"].idle_rule_minutes == 20
            Actions(h.deps.store).set_policy("T1", "C1", "stop", GRACE, by="UADMIN", now=h.clock.now)
            h.clock.advance(hours=3)
            for inst in kept.values():
                quiet(h, inst)
            message = digest(h)
            said = json.dumps(message["blocks"], ensure_ascii=False)
            lines = {name: [b for b in said.split("stops-itself-") if b.startswith(name[len("stops-itself-") :])]
                     for name in kept}  # fmt: skip
            assert "It will be stopped at" not in " ".join(lines["stops-itself-soon"])
            assert "platform stops it by itself after 20 min idle" in said
            assert "It will be stopped at" in " ".join(lines["stops-itself-late"])
            warned = [a for a, _ in Actions(h.deps.store).history("T1")]
            assert [a.instance_id for a in warned] == [kept["stops-itself-late"].id]

            late.idle_minutes = 15  # shortened in DSW's console after the warning: the next scan keeps it
            job.work()
            h.clock.advance(minutes=31)
            for inst in kept.values():
                quiet(h, inst, minutes=60)
            assert run_actions(h.deps, h.tellers()) == 1
            [action] = [a for a, _ in Actions(h.deps.store).history("T1")]
            assert action.status == "cancelled" and action.detail == "platform_stops_it"
            assert "its platform stops it by itself when idle, sooner than the warning's grace" in told(h, message)
        assert "StopInstance" not in fake.actions()  # neither was stopped by the bot
        assert (soon.status, late.status) == ("Running", "Running")
