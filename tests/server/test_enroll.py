"""POST /api/enroll over real HTTP: 201 with a heartbeat token that works, the GPU read from the card's name
and priced from the price cache, 401/400/409 each saying why, and no token in the log."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.state.enrollment import Enrollments, Grant
from bot.state.rentals import Rentals
from tests.support.slack_harness import Harness, running_app

A100 = {"name": "NVIDIA A100-SXM4-80GB", "memory_total_mib": 81920}


def post(h: Harness, path: str, body: Any, token: str | None) -> tuple[int, dict[str, Any]]:
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
    request = urllib.request.Request(h.base_url + path, data=json.dumps(body).encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def token_for(h: Harness, *, uses: int = 5, project: str | None = "llm") -> str:
    grant = Grant("T1", "C1", "U1", project, uses, h.clock.now + timedelta(days=7))
    return Enrollments(h.deps.store).issue(grant, created_by="terminal", now=h.clock.now)


def box(name: str = "gpu-box-1", machine: str = "a" * 32, cards: int = 2, **extra: Any) -> dict[str, Any]:
    return {"name": name, "machine_id": machine, "gpus": [{"index": i, **A100} for i in range(cards)], **extra}


def test_a_box_enrolls_then_heartbeats_with_the_token_it_got(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with running_app(tmp_path) as h:
        enroll = token_for(h)
        status, body = post(h, "/api/enroll", box(provider_id="aws:i-0abc1234def567890"), enroll)
        assert status == 201, body
        assert (body["instance"], body["gpu"], body["cards"]) == ("gpu-box-1", "A100-80GB", 2)
        assert (body["price"], body["unit"], body["currency"]) == (800.0, "day", "CNY")  # the rate card's 400/day × 2
        [made] = Rentals(h.deps.store).instances("T1")
        assert (made.source, made.provider_id, made.channel, made.owner, made.project) == (
            "agent",
            "aws:i-0abc1234def567890",
            "C1",
            "U1",
            "llm",
        )
        sample = {
            "ts": h.clock.now.isoformat(),
            "gpu": 0,
            "utilization_pct": 90,
            "memory_used_mib": 1,
            "memory_total_mib": 81920,
        }
        beat, said = post(h, "/api/heartbeat", {"samples": [sample]}, body["token"])
        assert (beat, said["instance"], said["kept"]) == (202, "gpu-box-1", 1)
    assert enroll not in caplog.text and body["token"] not in caplog.text


def test_enrolling_again_gives_the_same_instance_a_fresh_token(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        enroll = token_for(h)
        _, first = post(h, "/api/enroll", box(), enroll)
        status, again = post(h, "/api/enroll", box(), enroll)
        assert status == 201 and again["instance"] == "gpu-box-1" and again["token"] != first["token"]
        assert post(h, "/api/heartbeat", {"samples": []}, first["token"])[0] == 401
        assert post(h, "/api/heartbeat", {"samples": []}, again["token"])[0] == 202
        status, taken = post(h, "/api/enroll", box(machine="b" * 32), enroll)
        assert status == 409 and taken["name"] == "gpu-box-1" and "--name" in taken["error"]


def test_tokens_and_fields_that_cannot_enroll_say_why(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        once = token_for(h, uses=1)
        assert post(h, "/api/enroll", box(), None)[0] == 401
        status, unknown = post(h, "/api/enroll", box(), "not-issued")
        assert status == 401 and unknown["reason"] == "unknown_token"
        status, bad = post(h, "/api/enroll", box() | {"gpus": []}, once)
        assert status == 400 and bad["field"] == "gpus"
        status, bad = post(h, "/api/enroll", box(price="lots"), once)
        assert status == 400 and bad["field"] == "price" and "14/h" in bad["error"]
        status, bad = post(h, "/api/enroll", box(name="no spaces please"), once)
        assert status == 400 and bad["field"] == "name"
        assert post(h, "/api/enroll", box(), once)[0] == 201  # the refused ones spent no use
        status, used = post(h, "/api/enroll", box(machine="c" * 32, name="other"), once)
        assert status == 401 and used["reason"] == "used_up_token"
        week = token_for(h)
        h.clock.advance(days=8)
        status, expired = post(h, "/api/enroll", box(machine="d" * 32, name="third"), week)
        assert status == 401 and expired["reason"] == "expired_token" and "expired at" in expired["error"]


def test_an_unknown_card_is_kept_as_named_and_its_price_said_missing(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        card = {"index": 0, "name": "Tesla V100-SXM2-16GB", "memory_total_mib": 16160}
        status, body = post(h, "/api/enroll", {"name": "old-box", "machine_id": "e" * 32, "gpus": [card]}, token_for(h))
        assert status == 201 and (body["gpu"], body["price"]) == ("Tesla V100-SXM2-16GB", None)
        given = {"name": "priced", "machine_id": "f" * 32, "gpus": [card], "price": "3.5/h", "currency": "USD"}
        status, body = post(h, "/api/enroll", given, token_for(h))
        assert status == 201 and (body["price"], body["unit"], body["currency"]) == (3.5, "hour", "USD")


def test_another_persons_token_with_the_same_machine_gets_409_and_changes_nothing(tmp_path: Path) -> None:
    """Issue 34.1: a machine_id is only the box's claim; another person's grant never takes the instance."""
    with running_app(tmp_path) as h:
        mine = Enrollments(h.deps.store).issue(
            Grant("T1", "C1", "UANA", None, 5, h.clock.now + timedelta(days=7)), created_by="UANA", now=h.clock.now
        )
        status, first = post(h, "/api/enroll", box(), mine)
        assert status == 201, first
        theirs = Enrollments(h.deps.store).issue(
            Grant("T1", "C1", "UBOB", None, 5, h.clock.now + timedelta(days=7)), created_by="UBOB", now=h.clock.now
        )
        status, refused = post(h, "/api/enroll", box(name="bobs-now"), theirs)
        assert status == 409 and refused["reason"] == "machine_taken" and "nothing was changed" in refused["error"]
        sample = {
            "ts": h.clock.now.isoformat(),
            "gpu": 0,
            "utilization_pct": 5,
            "memory_used_mib": 1,
            "memory_total_mib": 81920,
        }
        assert post(h, "/api/heartbeat", {"samples": [sample]}, first["token"])[0] == 202  # hers still works
        [kept] = Rentals(h.deps.store).instances("T1")
        assert (kept.name, kept.owner) == ("gpu-box-1", "UANA")


@pytest.mark.parametrize(
    "key",
    [
        "tencent-hai:hai-3kq8m2ab",
        "aliyun-dsw:dsw-730f1ac9e2",
        # issue 49: a dev instance's and a notebook's activity comes only from an agent in it
        "volcengine-mlp:di-20261201abcdef12",
        "huawei-modelarts:6b1f3c52-9a0e-4f7b-8c1d-2e3f4a5b6c7d",
        "huawei:0a1507bf-7aea-421a-a3ae-e437a522815d",
    ],
)
def test_a_hai_server_or_dsw_notebook_enrolls_into_the_item_discovery_found(tmp_path: Path, key: str) -> None:
    """Issue 52: /api/enroll refused the cloud keys of HAI and DSW (a hyphen in the source); a box on one is the
    found item, not a second one billed beside it."""
    from bot.state.discovered import Discovered, Filing, Found, Scan

    with running_app(tmp_path) as h:
        source = key.split(":", 1)[0]
        found = Found(key, "instance", "ap-guangzhou", key.split(":", 1)[1], "running", gpu="A10", cards=1,
                      per_hour=9.0, currency="CNY")  # fmt: skip
        filing = Filing("T1", "C1", lambda _: None, "channel", "owner", lambda f: (f.per_hour, "hour", f.currency))
        Discovered(h.deps.store).apply(Scan([found], ["ap-guangzhou"], source=source), filing, h.clock.now)
        status, body = post(h, "/api/enroll", box(cards=1, provider_id=key), token_for(h))
        assert status == 201, body
        [item] = Rentals(h.deps.store).instances("T1")
        assert (item.provider_id, item.machine_id, item.owner, item.price) == (key, "a" * 32, "U1", 9.0)
        status, refused = post(h, "/api/enroll", box(name="b2", machine="c" * 32, provider_id="Bad Key"), token_for(h))
        assert status == 400 and "provider_id" in json.dumps(refused)
