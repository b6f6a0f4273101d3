"""The issue's "done means" for discovery, end to end with moto's server and the real app: an untagged g5.xlarge
and an unattached 500 GB volume appear under "Found, not tracked" in the next digest; Claim makes the presser
the owner; Not ours is an admin's, and hides the item from digests and lists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.digest.send import send_digests
from bot.server.jobs import jobs_of
from bot.slack.digest_outlet import SlackOutlet
from bot.slack.ui.digest import render
from bot.state.digest_sends import Sends
from bot.state.rentals import Rentals
from bot.text import Lang
from tests.support.aws import ec2, launch, moto_server, volume
from tests.support.cli import run_cli
from tests.support.slack_harness import Harness, running_app


def discovered(h: Harness) -> None:
    [job] = [j for j in jobs_of(h.settings, h.deps, h.doors()) if j.id == "discover:aws"]
    job.work()


def digest(h: Harness) -> dict[str, Any]:
    [outcome] = send_digests(
        Rentals(h.deps.store),
        Sends(h.deps.store),
        SlackOutlet(h.deps_client(), render),
        team="T1",
        channels=None,
        now=h.clock,
        rules=h.deps.policy.idle,
        lang=Lang.EN,
        zone=ZoneInfo("Asia/Shanghai"),
        pace_s=0,
    )
    assert outcome.status == "sent", outcome
    return h.posts(channel="CGPU")[-1]


def updates(h: Harness, count: int) -> list[dict[str, Any]]:
    return h.fake.wait_for(lambda: (u := h.fake.of("chat.update")) and len(u) >= count and u)  # type: ignore[no-any-return]


def test_found_items_are_listed_apart_then_claimed_or_hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with moto_server(monkeypatch) as url:
        client = ec2(url)
        box, disk = launch(client, "g5.xlarge"), volume(client, 500)
        with running_app(tmp_path, aws_regions="us-east-1", aws_endpoint_url=url, discover_channel="CGPU") as h:
            discovered(h)
            message = digest(h)
            text = json.dumps(message["blocks"], ensure_ascii=False)
            assert "Found, not tracked" in text
            assert f"*{box}*: A10-24GB × 1 (running), $24.14 a day" in text  # 1.006 USD/h, AWS's g5.xlarge
            assert f"*{disk}*: 500 GB volume attached to nothing (available), $1.33 a day" in text  # 500 × 0.08 / 30
            h.send.click(message, "found_claim", user="U5", value=box)
            [claimed] = updates(h, 1)
            assert f"*{box}* is <@U5>'s now" in json.dumps(claimed["blocks"])
            assert Rentals(h.deps.store).instance("T1", box).owner == "U5"  # type: ignore[union-attr]
            h.send.click(message, "found_not_ours", user="U5", value=disk)  # not an admin
            [refusal] = h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
            assert refusal["user"] == "U5" and "Only a workspace admin" in refusal["text"]
            h.fake.admins.add("UADMIN")
            h.send.click(message, "found_not_ours", user="UADMIN", value=disk)
            updates(h, 2)
            [kept] = Rentals(h.deps.store).storage("T1")
            assert kept.hidden_by == "UADMIN"
            env = {"GPU_ADVISOR_DB": str(tmp_path / "bot.db"), "GPU_ADVISOR_LANG": "en"}
            listed = json.loads(run_cli("list", "--team", "T1", "--json", env=env).stdout)
            assert listed["storage"] == [] and [i["owner"] for i in listed["instances"]] == ["U5"]
            everything = json.loads(run_cli("list", "--team", "T1", "--json", "--all", env=env).stdout)
            assert [s["name"] for s in everything["storage"]] == [disk]
            discovered(h)  # a re-run keeps the claim and the hiding
            assert Rentals(h.deps.store).instance("T1", box).owner == "U5"  # type: ignore[union-attr]
            assert Rentals(h.deps.store).storage("T1")[0].hidden_by == "UADMIN"
