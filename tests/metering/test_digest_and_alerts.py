"""The bill in Slack, end to end with the fake Slack Web API: a digest says an instance stopped with its meter
running and what to do, and a provider's balance with its runway; the runway alert is told once per threshold
and recorded balance (given back when no channel could be told), in the channel's language."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.digest.due import run_due, runways_due
from bot.state.balances import Balances
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from rules.power import Power
from tests.support.slack_harness import Harness, running_app

MONDAY_1110_SHANGHAI = datetime(2026, 11, 30, 3, 10, tzinfo=UTC)  # the digest is due at 09:00 local
FIELDS = {
    "gpu": "A100-80GB",
    "cards": 1,
    "share": None,
    "unit": "hour",
    "price": 10.0,
    "currency": "CNY",
    "owner": "U1",
    "project": "llm",
    "channel": "C1",
    "provider": "autodl",
}


def rented(h: Harness) -> Rentals:
    rentals = Rentals(h.deps.store)
    now = h.clock.now
    rentals.track_instance("T1", "box", FIELDS | {"started_at": now - timedelta(hours=10)})
    kept, _ = rentals.track_instance(
        "T1", "kept", FIELDS | {"started_at": now - timedelta(hours=10), "stop_billing": "keeps", "price": 5.0}
    )
    # its owner stopped it 4 h ago; on this platform a stopped box keeps billing
    PowerLog(h.deps.store).say(kept.id, Power.OFF, now - timedelta(hours=4), now, source="person", by="U1")
    return rentals


def test_the_digest_says_stopped_but_billed_and_the_runway(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY_1110_SHANGHAI
        rented(h)
        Balances(h.deps.store).record("T1", "autodl", 320.0, "CNY", h.clock.now - timedelta(hours=2), h.clock.now)
        [sent] = run_due(h.deps, h.outlets())
        assert sent.status == "sent"
        text = json.dumps(h.posts(channel="C1")[-1]["blocks"], ensure_ascii=False)
        # the channel speaks Chinese (GPU_ADVISOR_LANG=zh): kept (its card named) is off, its meter running at 5/h
        assert "*kept* · A100 80 GB（<@U1>）已关机，仍按 ¥5/小时计费（本月 ¥50）" in text
        # since the balance: box 2 h x 10 and kept 2 h x 5 = 30; burning 15/h: 290 / 15 = about 19 h, the average
        # of the 10 h since they started (not "of the last 7 days": they are younger)
        assert "autodl：约剩 ¥290，按开始以来（10 小时）的平均速度（¥15/小时）约可用 19 小时" in text


def test_a_runway_alert_once_per_threshold_and_balance(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY_1110_SHANGHAI
        rented(h)
        balances = Balances(h.deps.store)
        balances.record("T1", "autodl", 320.0, "CNY", h.clock.now, h.clock.now)  # 320 / 15 = 21 h: below 48
        h.fake.refuse_channels["C1"] = "channel_not_found"
        assert runways_due(h.deps, h.tellers()) == []  # nobody could be told: the claim is given back
        h.fake.refuse_channels.clear()
        [alert] = runways_due(h.deps, h.tellers())
        assert (alert.provider, alert.below_h, alert.channels) == ("autodl", 48.0, ["C1"])
        said = h.fake.of("chat.postMessage")[-1]["text"]
        assert said.startswith("*余额即将用完 — autodl：约剩 ¥320") and "已不足 48 小时" in said
        assert runways_due(h.deps, h.tellers()) == []  # once
        h.clock.advance(hours=10)  # 320 - 150 = 170 left, 11.3 h: below 12
        [low] = runways_due(h.deps, h.tellers())
        assert low.below_h == 12.0 and runways_due(h.deps, h.tellers()) == []
        balances.record("T1", "autodl", 2000.0, "CNY", h.clock.now, h.clock.now)  # topped up: 133 h, no alert
        assert runways_due(h.deps, h.tellers()) == []


def test_the_stopped_button_stops_an_hourly_meter_from_the_press(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY_1110_SHANGHAI
        rentals = rented(h)
        [sent] = run_due(h.deps, h.outlets())
        assert sent.status == "sent"
        digest = h.posts(channel="C1")[-1]
        h.send.click(digest, "rental_stopped", user="U7", value="box")  # not the owner, not an admin
        h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
        box = rentals.instance("T1", "box")
        assert box is not None
        assert [r.source for r in PowerLog(h.deps.store).reports([box.id])[box.id]] == ["track"]
        h.send.click(digest, "rental_stopped", user="U1", value="box")
        h.fake.wait_for(lambda: h.fake.of("chat.update"))
        said = PowerLog(h.deps.store).reports([box.id])[box.id]
        assert [(r.state, r.source, r.at) for r in said][-1] == (Power.OFF, "person", h.clock.now)
        assert "box：<@U1> 表示已关机；按时计费停止" in json.dumps(h.fake.of("chat.update")[-1], ensure_ascii=False)
        h.clock.advance(hours=5)
        [stretches] = PowerLog(h.deps.store).timelines([box], h.clock.now).values()
        assert stretches[-1].state is Power.OFF  # and it bills nothing since the press


def test_a_stopped_but_billed_item_offers_released_and_started(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY_1110_SHANGHAI
        rentals = rented(h)
        run_due(h.deps, h.outlets())
        digest = h.posts(channel="C1")[-1]
        actions = {
            b["block_id"]: [e["action_id"] for e in b["elements"]] for b in digest["blocks"] if b["type"] == "actions"
        }
        assert actions["act:i:kept"] == ["rental_released", "rental_started"]
        assert actions["act:i:box"][-1] == "rental_stopped"
        h.send.click(digest, "rental_started", user="U1", value="kept")
        h.fake.wait_for(lambda: h.fake.of("chat.update"))
        kept = rentals.instance("T1", "kept")
        assert kept is not None
        last = PowerLog(h.deps.store).reports([kept.id])[kept.id][-1]
        assert (last.state, last.source) == (Power.ON, "person")
        assert "kept：<@U1> 表示已重新开机" in json.dumps(h.fake.of("chat.update")[-1], ensure_ascii=False)
