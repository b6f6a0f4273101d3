"""Issue 20.2: a channel's digest exactly once a local day across a kill at any point. Killed while the
post waited out a 429: the dead claim is taken over after 10 minutes and the digest goes out the same day.
Killed after Slack had the post: the take-over finds it in the channel's history (message metadata
naming the day) and posts no second copy."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.digest.due import run_due
from bot.slack import digest_once as once
from bot.state.digest_sends import Sends
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI, idle_box
from tests.support.slack_harness import running_app

AT_1110 = MONDAY_0910_SHANGHAI + timedelta(hours=2)
DAY = date(2026, 11, 30)


def killed_mid_post(sends: Sends, at: datetime) -> None:
    """What a sender killed between its claim and recording the post leaves: a claim, never marked sent."""
    assert sends.claim("T1", "C1", DAY, at) == "new"


def test_a_claim_left_by_a_kill_is_taken_over_after_ten_minutes_and_sent_once(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = AT_1110
        idle_box(h)
        killed_mid_post(Sends(h.deps.store), AT_1110)
        assert run_due(h.deps, h.outlets()) == []  # a live sender may still be posting
        assert h.posts(channel="C1") == []
        h.clock.now = AT_1110 + timedelta(minutes=11)  # past the claim's 10 minutes: taken over
        [sent] = run_due(h.deps, h.outlets())
        assert sent.status == "sent" and len(h.posts(channel="C1")) == 1
        [history] = h.fake.of("conversations.history")  # it looked before posting
        start = datetime(2026, 11, 30, tzinfo=ZoneInfo("Asia/Shanghai")).timestamp()
        assert float(history["oldest"]) == start and history["channel"] == "C1"
        post = h.posts(channel="C1")[0]
        assert post["metadata"] == {"event_type": "gpu_advisor_digest", "event_payload": {"date": "2026-11-30"}}
        h.clock.now += timedelta(minutes=30)
        assert run_due(h.deps, h.outlets()) == []


def test_a_kill_after_slack_had_the_post_leaves_one_digest_not_two(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = AT_1110
        idle_box(h)
        sends = Sends(h.deps.store)
        killed_mid_post(sends, AT_1110)
        # the killed sender's post reached Slack, with its metadata; its ts was never recorded
        posted = h.deps_client().chat_postMessage(channel="C1", text="digest", metadata=once.metadata(DAY))
        h.clock.now = AT_1110 + timedelta(minutes=11)
        [outcome] = run_due(h.deps, h.outlets())
        assert outcome.status == "already" and len(h.posts(channel="C1")) == 1
        assert sends.sent_row("T1", "C1", DAY) == (h.clock.now, posted["ts"])  # recorded: the buttons work on it
        h.clock.now += timedelta(hours=1)
        assert run_due(h.deps, h.outlets()) == [] and len(h.posts(channel="C1")) == 1


def test_yesterdays_digest_in_the_history_does_not_stop_todays(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.clock.now = AT_1110
        idle_box(h)
        h.deps_client().chat_postMessage(channel="C1", text="digest", metadata=once.metadata(DAY - timedelta(days=1)))
        killed_mid_post(Sends(h.deps.store), AT_1110)
        h.clock.now = AT_1110 + timedelta(minutes=11)
        [sent] = run_due(h.deps, h.outlets())
        assert sent.status == "sent" and len(h.posts(channel="C1")) == 2


def test_a_post_whose_outcome_is_unknown_is_looked_for_before_the_next_try(tmp_path: Path) -> None:
    with running_app(tmp_path, slack_retry_backoff_s=0.01) as h:
        h.clock.now = AT_1110
        idle_box(h)
        h.fake.server_errors["chat.postMessage"] = 4  # Slack answers 5xx past the retries: it may have it
        [failed] = run_due(h.deps, h.outlets())
        assert failed.status == "failed"
        h.clock.now += timedelta(minutes=1)  # the next minute's run: no waiting out 10 minutes
        [sent] = run_due(h.deps, h.outlets())
        assert sent.status == "sent" and h.fake.of("conversations.history")
