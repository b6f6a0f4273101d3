"""The issue's "done" from Slack alone: track through the form, a quiet hour of heartbeats over HTTP,
the digest names the instance, its owner and cost, and pressing Released stops the cost."""

from __future__ import annotations

import json
import urllib.request
from datetime import timedelta
from pathlib import Path

from bot.digest.due import run_due
from bot.digest.send import digests
from bot.state.rentals import Rentals
from rules.digest import Spend
from tests.digest.test_rented import views
from tests.slack.test_commands import submit
from tests.support.slack_harness import Harness, running_app


def test_track_heartbeat_digest_release_from_slack_alone(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = h.clock.now.replace(hour=3, minute=0)  # 11:00 in Shanghai: the digest is due on a weekday
        while h.clock.now.weekday() >= 5:
            h.clock.advance(days=1)
        start = h.clock.now
        h.send.command("track", response_url=h.fake.response_url())
        view = views(h, 1)[0]["view"]
        view = json.loads(view) if isinstance(view, str) else view
        submit(h, view, {"name": "train-1", "gpu": "A100-80GB", "price": "400/day"})
        [note] = h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
        token = note["text"].split("`")[1]

        h.clock.advance(hours=2)  # two quiet hours later
        hour = [
            {
                "ts": (h.clock.now - timedelta(minutes=m)).isoformat(),
                "gpu": 0,
                "utilization_pct": 0,
                "memory_used_mib": 1200,
                "memory_total_mib": 81920,
            }
            for m in range(115, -1, -5)
        ]
        request = urllib.request.Request(
            h.base_url + "/api/heartbeat",
            data=json.dumps({"samples": hour}).encode(),
            method="POST",
            headers={"Authorization": f"Bearer {token}"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.status == 202

        [sent] = run_due(h.deps, h.outlets())
        assert sent.status == "sent"
        digest = h.posts(channel="C1")[-1]
        text = json.dumps(digest["blocks"], ensure_ascii=False)
        assert "train-1" in text and "<@U1>" in text and "¥400" in text

        h.send.click(digest, "rental_released", user="U1")
        h.fake.wait_for(lambda: h.fake.of("chat.update"))
        inst = Rentals(h.deps.store).instance("T1", "train-1")
        assert inst is not None and inst.released_at == h.clock.now
        released = h.clock.now
        h.clock.advance(hours=5)  # hours later, the month's spend has not moved since the press
        spend = {(s.project, s.currency): s.amount for s in _spend(h)}
        assert released - start < timedelta(days=1)
        assert spend[("", "CNY")] == 400.0  # 400/day is billed for the day started, released within it


def _spend(h: Harness) -> list[Spend]:
    deps = h.deps
    return digests(Rentals(deps.store), "T1", ["C1"], deps.now(), deps.policy.idle)["C1"].spend
