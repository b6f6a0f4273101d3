"""POST /api/heartbeat over real HTTP: 202 with what was kept, 401, 400 naming the field, 413; no token in logs."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from rules import metering
from tests.support.slack_harness import Harness, running_app

FIELDS = {
    "gpu": "A100-80GB",
    "cards": 1,
    "share": None,
    "unit": "day",
    "price": 400.0,
    "currency": "CNY",
    "channel": "C1",
    "owner": "U1",
    "project": None,
}


def beat(h: Harness, body: Any, token: str | None, *, raw: bytes | None = None) -> tuple[int, dict[str, Any]]:
    data = raw if raw is not None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
    request = urllib.request.Request(h.base_url + "/api/heartbeat", data=data, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        with exc:  # its socket closed with it
            return exc.code, json.loads(exc.read())


def sample(at: datetime, util: float = 0, gpu: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "ts": at.isoformat(),
        "gpu": gpu,
        "utilization_pct": util,
        "memory_used_mib": 1200,
        "memory_total_mib": 81920,
        **extra,
    }


def tracked(h: Harness, name: str = "train-1") -> tuple[Rentals, int, str]:
    rentals = Rentals(h.deps.store)
    inst, token = rentals.track_instance("T1", name, FIELDS | {"started_at": h.clock.now - timedelta(hours=2)})
    return rentals, inst.id, token


def test_a_quiet_hour_is_kept_and_a_retry_is_kept_once(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rentals, inst, token = tracked(h)
        now = h.clock.now
        hour = [sample(now - timedelta(minutes=m), util=0, power_w=61) for m in range(60, -1, -5)]
        disks = [{"path": "/data/ckpt", "size_gb": 340, "newest_mtime": (now - timedelta(days=20)).isoformat()}]
        status, body = beat(h, {"samples": hour, "disks": disks}, token)
        assert (status, body["kept"], body["repeated"], body["disks"]) == (202, 13, 0, 1)
        assert beat(h, {"samples": hour}, token)[1]["repeated"] == 13  # the agent's retry
        assert len(rentals.samples(inst, since=now - timedelta(hours=2))) == 13
        [disk] = rentals.disks(inst)
        assert (disk.path, disk.size_gb) == ("/data/ckpt", 340)
        with urllib.request.urlopen(h.base_url + "/metrics", timeout=10) as response:  # its socket closed with it
            metrics = response.read().decode()
        assert 'gpu_advisor_heartbeats_total{status="202"} 2.0' in metrics
        assert "gpu_advisor_gpu_samples_total 13.0" in metrics


def test_samples_older_than_a_day_are_dropped_and_counted_future_ones_refused(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rentals, inst, token = tracked(h)
        now = h.clock.now
        status, body = beat(
            h, {"samples": [sample(now - timedelta(hours=25)), sample(now - timedelta(hours=23))]}, token
        )
        assert (status, body["kept"], body["too_old"]) == (202, 1, 1)
        status, body = beat(h, {"samples": [sample(now), sample(now + timedelta(hours=1))]}, token)
        assert status == 400 and body["field"] == "samples[1].ts" and "clock" in body["error"]
        assert len(rentals.samples(inst, since=now - timedelta(days=2))) == 1  # nothing of the refused body


def test_no_wrong_or_revoked_token_is_401_and_stores_nothing(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with running_app(tmp_path) as h:
        rentals, inst, token = tracked(h)
        body = {"samples": [sample(h.clock.now)]}
        assert beat(h, body, None)[0] == 401
        assert beat(h, body, "x" * 43)[0] == 401
        rentals.release("T1", "train-1", h.clock.now)
        status, answer = beat(h, body, token)
        assert status == 401 and "revoked" in answer["error"]
        assert rentals.samples(inst, since=h.clock.now - timedelta(days=1)) == []
        request = urllib.request.Request(
            h.base_url + "/api/heartbeat", data=b"{}", method="POST", headers={"Authorization": f"Basic {token}"}
        )
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(request, timeout=10)
        with err.value:  # the refusal's socket closed with it
            assert err.value.code == 401
    assert token not in caplog.text


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (
            {
                "samples": [
                    {
                        "ts": "2026-11-30T01:00:00",
                        "gpu": 0,
                        "utilization_pct": 1,
                        "memory_used_mib": 1,
                        "memory_total_mib": 2,
                    }
                ]
            },
            "samples[0].ts",
        ),  # no time zone
        (
            {"samples": [{"ts": "NOW", "gpu": 0, "utilization_pct": 1, "memory_used_mib": 1, "memory_total_mib": 2}]},
            "samples[0].ts",
        ),
        (
            {
                "samples": [
                    {
                        "ts": "2026-11-30T01:00:00Z",
                        "gpu": 0,
                        "utilization_pct": 140,
                        "memory_used_mib": 1,
                        "memory_total_mib": 2,
                    }
                ]
            },
            "samples[0].utilization_pct",
        ),
        (
            {"samples": [{"ts": "2026-11-30T01:00:00Z", "gpu": 0, "utilization_pct": 1, "memory_total_mib": 2}]},
            "samples[0].memory_used_mib",
        ),
        (
            {
                "samples": [
                    {
                        "ts": "2026-11-30T01:00:00Z",
                        "gpu": 0,
                        "utilization_pct": 1,
                        "memory_used_mib": 9,
                        "memory_total_mib": 2,
                    }
                ]
            },
            "samples[0]",
        ),
        ({"samples": [], "disks": [{"path": "", "size_gb": 1}]}, "disks[0].path"),
        ({"disks": []}, "samples"),
    ],
)
def test_a_malformed_body_is_400_naming_the_field(tmp_path: Path, body: dict[str, Any], field: str) -> None:
    with running_app(tmp_path) as h:
        _, _, token = tracked(h)
        status, answer = beat(h, body, token)
        assert (status, answer["field"]) == (400, field), answer


def test_not_json_is_400_and_a_body_above_the_limit_is_413(tmp_path: Path) -> None:
    with running_app(tmp_path, heartbeat_max_bytes=4096) as h:
        rentals, inst, token = tracked(h)
        status, answer = beat(h, None, token, raw=b"{not json")
        assert status == 400 and answer["field"] == "body"
        big = {"samples": [sample(h.clock.now - timedelta(minutes=m)) for m in range(60)]}
        status, answer = beat(h, big, token)
        assert status == 413 and "4096" in answer["error"]
        assert rentals.samples(inst, since=h.clock.now - timedelta(days=1)) == []


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        # JSON has no Infinity, but Python's json (and some agents) writes 1e309 and it parses as inf
        (
            b'{"samples": [{"ts": "2026-11-30T01:00:00Z", "gpu": 0, "utilization_pct": 1, "memory_used_mib": 1e309,'
            b' "memory_total_mib": 1e309}]}',
            "samples[0].memory_used_mib",
        ),
        (
            b'{"samples": [], "disks": [{"path": "/data", "size_gb": 1, "newest_mtime": "0001-01-01T00:00:00+14:00"}]}',
            "disks[0].newest_mtime",
        ),
        (
            b'{"samples": [], "disks": [{"path": "/data", "size_gb": 1, "newest_mtime": "9999-12-31T23:59:59-14:00"}]}',
            "disks[0].newest_mtime",
        ),
        (
            b'{"samples": [{"ts": "0001-01-01T00:00:00+14:00", "gpu": 0, "utilization_pct": 1, "memory_used_mib": 1,'
            b' "memory_total_mib": 2}]}',
            "samples[0].ts",
        ),
    ],
)
def test_numbers_and_times_out_of_any_real_range_are_400_and_nothing_is_stored(
    tmp_path: Path, raw: bytes, field: str
) -> None:
    """Issues 20.3 and 20.16: 1e309 was stored as Infinity; a year-1 or year-9999 time broke the digest."""
    with running_app(tmp_path) as h:
        rentals, inst, token = tracked(h)
        status, answer = beat(h, None, token, raw=raw)
        assert (status, answer["field"]) == (400, field), answer
        assert rentals.samples(inst, h.clock.now - timedelta(days=3650)) == [] and rentals.disks(inst) == []


def test_older_samples_are_kept_when_the_operator_allows_a_backfill(tmp_path: Path) -> None:
    with running_app(tmp_path, heartbeat_max_age_hours=72) as h:
        rentals, inst, token = tracked(h)
        old = [sample(h.clock.now - timedelta(hours=hours)) for hours in (30, 60, 80)]
        status, body = beat(h, {"samples": old}, token)
        assert (status, body["kept"], body["too_old"]) == (202, 2, 1)  # 80 h is past the 72 allowed
        assert len(rentals.samples(inst, h.clock.now - timedelta(days=4))) == 2


def test_an_agent_seeing_more_cards_than_tracked_corrects_the_count_once(tmp_path: Path) -> None:
    """Issue 52: `track --gpu K100` without `--cards` stayed 1 card at half the cost while its agent reported 2. The
    agent's count bills from its heartbeat on: a price the cache gave (per card) follows it, the hours before keep
    theirs; a typed price (the whole instance's, kept as said) stays."""
    with running_app(tmp_path) as h:
        rentals, now = Rentals(h.deps.store), h.clock.now
        hourly = FIELDS | {"unit": "hour", "price": 16.0, "started_at": now - timedelta(hours=6)}
        _, token = rentals.track_instance("T1", "from-cache", hourly)
        _, typed_token = rentals.track_instance(
            "T1", "typed", FIELDS | {"price_by": "track", "started_at": now - timedelta(hours=6)}
        )
        two = [sample(now, gpu=0), sample(now, gpu=1)]
        status, said = beat(h, {"samples": two}, token)
        assert status == 202 and said["cards"] == 2
        again = beat(h, {"samples": [sample(now + timedelta(seconds=30), gpu=g) for g in (0, 1)]}, token)[1]
        assert "cards" not in again  # said once
        said = h.fake.wait_for(lambda: [p for p in h.fake.of("chat.postMessage") if "from-cache" in str(p["text"])])
        assert len(said) == 1 and said[0]["channel"] == "C1"  # in its channel, in the channel's language
        assert "from-cache：代理看到 2 张卡，登记时为 1 张" in said[0]["text"]
        after = rentals.instance("T1", "from-cache")
        assert after is not None and (after.cards, after.price, after.price_since) == (2, 32.0, now)
        [stretches] = PowerLog(h.deps.store).timelines([after], now + timedelta(hours=6)).values()
        billed = metering.cost(after, stretches, now - timedelta(hours=6), now + timedelta(hours=6))
        assert billed == pytest.approx(6 * 16 + 6 * 32)  # 6 h at one card's 16 an hour, then 6 h at two cards' 32
        beat(h, {"samples": two}, typed_token)
        kept = rentals.instance("T1", "typed")
        assert kept is not None and (kept.cards, kept.price) == (2, 400.0)
