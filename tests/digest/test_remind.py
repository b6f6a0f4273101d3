"""`gpu-advise remind --now` against the local fake Slack and a real SQLite state file: the digest names
the idle instance, its owner and its cost; it goes out once a local day, across runs and racing processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import insert

from bot.state import Store
from bot.state.rentals import Rentals
from bot.state.schedules import Schedules
from bot.state.schema import digest_sends
from rules.remind_schedule import RemindSchedule
from rules.samples import Sample
from tests.support.cli import ROOT, run_cli
from tests.support.fake_slack import FakeSlack, fake_slack
from tests.support.state_template import migrated_state_db

FIELDS = {
    "gpu": "A100-80GB",
    "cards": 1,
    "share": None,
    "unit": "day",
    "price": 400.0,
    "currency": "CNY",
    "owner": "U1",
    "project": "llm",
}


@pytest.fixture
def fake() -> Iterator[FakeSlack]:
    with fake_slack() as running:
        yield running


def env(tmp: Path, fake: FakeSlack, lang: str = "en") -> dict[str, str]:
    return {
        "GPU_ADVISOR_STATE_DB": str(tmp / "state.db"),
        "SLACK_BOT_TOKEN": "xoxb-test-token",
        "SLACK_API_URL": fake.api_url,
        "GPU_ADVISOR_REMIND_PACE_S": "0",
        "GPU_ADVISOR_LANG": lang,
    }


def idle_box(tmp: Path, name: str = "train-1", channel: str = "C1", owner: str = "U1") -> Rentals:
    """An instance started three hours ago whose agent reported a quiet last two hours."""
    rentals = Rentals(Store(migrated_state_db(tmp / "state.db")))
    now = datetime.now(UTC)
    inst, _ = rentals.track_instance(
        "T1", name, FIELDS | {"channel": channel, "owner": owner, "started_at": now - timedelta(hours=3)}
    )
    quiet = [Sample(now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(120, -1, -5)]
    rentals.add_samples(inst.id, quiet, [None] * len(quiet))
    return rentals


def remind(tmp: Path, fake: FakeSlack, *args: str, lang: str = "en") -> subprocess.CompletedProcess[str]:
    return run_cli("remind", "--now", "--team", "T1", *args, env=env(tmp, fake, lang), tmp=tmp)


def posts(fake: FakeSlack, channel: str | None = None) -> list[dict[str, Any]]:
    return [p for p in fake.of("chat.postMessage") if channel is None or p.get("channel") == channel]


def test_the_digest_names_the_idle_instance_its_owner_and_cost_once_a_day(tmp_path: Path, fake: FakeSlack) -> None:
    idle_box(tmp_path)
    first = remind(tmp_path, fake)
    assert first.returncode == 0, first.stderr
    [message] = posts(fake)
    text = json.dumps(message["blocks"], ensure_ascii=False)
    assert "train-1" in text and "<@U1>" in text and "¥400 a day" in text and "burned" in text
    assert "llm" in text  # month-to-date spend of its project
    second = remind(tmp_path, fake)
    assert second.returncode == 0 and "already sent" in second.stdout
    assert len(posts(fake)) == 1
    forced = remind(tmp_path, fake, "--force")
    assert forced.returncode == 0 and len(posts(fake)) == 2


def test_the_digest_speaks_chinese(tmp_path: Path, fake: FakeSlack) -> None:
    idle_box(tmp_path)
    assert remind(tmp_path, fake, lang="zh").returncode == 0
    text = json.dumps(posts(fake)[0]["blocks"], ensure_ascii=False)
    assert "闲置" in text and "每天 ¥400" in text


def test_nothing_to_say_posts_nothing_and_a_released_instance_stops_costing(tmp_path: Path, fake: FakeSlack) -> None:
    rentals = idle_box(tmp_path)
    rentals.release("T1", "train-1", datetime.now(UTC))
    done = remind(tmp_path, fake, "--channel", "C1")
    assert done.returncode == 0 and "no message" in done.stdout
    assert posts(fake) == []


def test_remind_reads_a_channel_as_pasted_and_refuses_one_that_is_none(tmp_path: Path, fake: FakeSlack) -> None:
    """ "#C1" matched no channel, and "general" was taken: both said nothing was due."""
    idle_box(tmp_path)
    pasted = remind(tmp_path, fake, "--channel", "#C1")
    assert pasted.returncode == 0, pasted.stderr
    assert [p["channel"] for p in posts(fake)] == ["C1"]
    nowhere = remind(tmp_path, fake, "--channel", "general")
    assert nowhere.returncode == 2 and "--channel 'general' is not a channel" in nowhere.stderr


@pytest.mark.e2e  # starts a process
def test_two_processes_racing_post_one_digest(tmp_path: Path, fake: FakeSlack) -> None:
    idle_box(tmp_path)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GPU_ADVISOR_", "SLACK_"))}
    cmd = [sys.executable, "-m", "bot", "remind", "--now", "--team", "T1"]
    racers = [
        subprocess.Popen(cmd, env=base | env(tmp_path, fake), cwd=ROOT, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outs = [r.communicate(timeout=60)[0] for r in racers]
    assert [r.returncode for r in racers] == [0, 0]
    assert len(posts(fake)) == 1
    assert sum("already sent" in out for out in outs) == 1


def test_a_claim_left_by_a_dead_sender_is_taken_over_a_fresh_one_is_not(tmp_path: Path, fake: FakeSlack) -> None:
    idle_box(tmp_path)
    store = Store(migrated_state_db(tmp_path / "state.db"))
    today = datetime.now(UTC).astimezone(ZoneInfo("Asia/Shanghai")).date()
    with store.writing() as conn:
        conn.execute(
            insert(digest_sends).values(
                team="T1",
                channel="C1",
                kind="digest",
                local_date=today,
                claimed_at=datetime.now(UTC) - timedelta(minutes=1),
            )
        )
    assert "already sent" in remind(tmp_path, fake).stdout and posts(fake) == []
    with store.writing() as conn:
        conn.execute(digest_sends.update().values(claimed_at=datetime.now(UTC) - timedelta(minutes=20)))
    assert remind(tmp_path, fake).returncode == 0 and len(posts(fake)) == 1


def test_a_removed_channel_fails_alone_and_is_tried_again_later(tmp_path: Path, fake: FakeSlack) -> None:
    idle_box(tmp_path, "a", channel="C1")
    idle_box(tmp_path, "b", channel="C2")
    fake.refuse_channels["C1"] = "channel_not_found"
    done = remind(tmp_path, fake)
    assert done.returncode == 1
    assert "C1: not sent (channel_not_found)" in done.stdout and "C2: digest sent" in done.stdout
    assert len(posts(fake, "C2")) == 1
    del fake.refuse_channels["C1"]
    again = remind(tmp_path, fake)
    assert again.returncode == 0 and "C1: digest sent" in again.stdout and "C2: today" in again.stdout


def test_429_is_retried_after_retry_after(tmp_path: Path, fake: FakeSlack) -> None:
    idle_box(tmp_path)
    fake.rate_limit_once.add("chat.postMessage")
    done = remind(tmp_path, fake)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(posts(fake)) == 2  # the fake records the call it answered 429, then the one it accepted
    assert done.stdout.count("digest sent") == 1 and "rate" not in done.stdout


def test_without_now_or_a_token_it_says_what_is_needed(tmp_path: Path, fake: FakeSlack) -> None:
    plain = run_cli("remind", "--team", "T1", env=env(tmp_path, fake), tmp=tmp_path)
    assert plain.returncode == 2 and "--now" in plain.stderr
    no_token = run_cli(
        "remind", "--now", "--team", "T1", env={"GPU_ADVISOR_STATE_DB": str(tmp_path / "s.db")}, tmp=tmp_path
    )
    assert no_token.returncode == 2 and "SLACK_BOT_TOKEN" in no_token.stderr


def test_a_bad_remind_setting_names_it_and_the_accepted_form(tmp_path: Path, fake: FakeSlack) -> None:
    for name, value, said in [
        ("GPU_ADVISOR_REMIND_TZ", "Mars/Base", "IANA time zone"),
        ("GPU_ADVISOR_REMIND_AT", "25:00", "09:30"),
        ("GPU_ADVISOR_REMIND_DAYS", "someday", "mon-fri"),
    ]:
        done = run_cli("remind", "--now", "--team", "T1", env=env(tmp_path, fake) | {name: value}, tmp=tmp_path)
        assert done.returncode == 2 and value in done.stderr and said in done.stderr, (name, done.stderr)
    assert posts(fake) == []


def test_remind_now_with_lang_posts_in_that_language_else_the_channels(tmp_path: Path, fake: FakeSlack) -> None:
    """Issue 19.2: --lang changed only the terminal's lines; the digest went out in Chinese."""
    idle_box(tmp_path)
    assert remind(tmp_path, fake, "--lang", "en", lang="zh").returncode == 0
    assert "GPU rentals" in json.dumps(posts(fake)[-1]["blocks"])
    store = Store(migrated_state_db(tmp_path / "state.db"))
    schedules = Schedules(store, RemindSchedule(time(9, 30), "Asia/Shanghai", frozenset(range(5))))
    schedules.put(
        "T1",
        "C1",
        RemindSchedule(time(9, 30), "Asia/Shanghai", frozenset(range(5)), lang="zh"),
        "U1",
        datetime.now(UTC),
    )
    assert remind(tmp_path, fake, "--force", lang="en").returncode == 0  # no --lang: the channel's (zh)
    assert "GPU 租用提醒" in json.dumps(posts(fake)[-1]["blocks"], ensure_ascii=False)


def test_the_terminal_counts_the_items_the_message_lists(tmp_path: Path, fake: FakeSlack) -> None:
    """Issue 34.11: remind --now said "0 items" for a digest whose header said 2: found items count too."""
    from bot.state.discovered import Discovered

    rentals = idle_box(tmp_path)
    Discovered(rentals.store).add_pod(
        "T1", "k8s:ml/train-0", "ml.train-0", "A100-80GB", 1, "C1", (2.0, "hour", "USD"), datetime.now(UTC)
    )
    done = remind(tmp_path, fake)
    assert done.returncode == 0, done.stderr
    [message] = posts(fake)
    header = next(b for b in message["blocks"] if b["type"] == "header")["text"]["text"]
    assert header == "GPU rentals: 2 to look at"
    assert "C1: digest sent (2 items)" in done.stdout


def test_a_budget_alert_from_the_terminal_speaks_the_channels_language(tmp_path: Path, fake: FakeSlack) -> None:
    """Issue 34.13: a budget set in the terminal alerted a Chinese channel in the terminal's English."""
    # Billed by the hour (40,000/h, started three hours ago), so a tenth of a second into this month in any zone is
    # past a budget of 1: a box billed by the day may not have cost this month anything in the month's first hours.
    rentals = Rentals(Store(migrated_state_db(tmp_path / "state.db")))
    started = datetime.now(UTC) - timedelta(hours=3)
    rentals.track_instance(
        "T1", "train-1", FIELDS | {"unit": "hour", "price": 40000.0, "channel": "C1", "started_at": started}
    )
    store = rentals.store
    Schedules(store, RemindSchedule(time(9, 30), "Asia/Shanghai", frozenset(range(5)))).put(
        "T1",
        "C1",
        RemindSchedule(time(9, 30), "Asia/Shanghai", frozenset(range(5)), lang="zh"),
        "U1",
        datetime.now(UTC),
    )
    done = run_cli("budget", "llm", "1", "--team", "T1", env=env(tmp_path, fake, "en"), tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    alerts = [p for p in posts(fake) if p.get("channel") == "C1"]
    assert alerts, done.stdout + done.stderr
    text = json.dumps(alerts[-1], ensure_ascii=False)
    assert "预算" in text and "budget" not in alerts[-1].get("text", "").lower()


def test_a_budget_alert_from_an_english_terminal_speaks_the_chats_default(tmp_path: Path, fake: FakeSlack) -> None:
    """Issue 52: with no language of its own, a channel was alerted in the terminal's locale (English), not in the
    chats' default that serve speaks there (GPU_ADVISOR_LANG, zh when unset)."""
    rentals = Rentals(Store(migrated_state_db(tmp_path / "state.db")))
    started = datetime.now(UTC) - timedelta(hours=3)
    rentals.track_instance(
        "T1", "train-1", FIELDS | {"unit": "hour", "price": 40000.0, "channel": "C1", "started_at": started}
    )
    terminal = {k: v for k, v in env(tmp_path, fake).items() if k != "GPU_ADVISOR_LANG"} | {"LANG": "en_US.UTF-8"}
    done = run_cli("budget", "llm", "1", "--team", "T1", env=terminal, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "alert" in (done.stdout + done.stderr).lower()  # the terminal itself speaks English
    alerts = [p for p in posts(fake) if p.get("channel") == "C1"]
    assert alerts and "预算" in json.dumps(alerts[-1], ensure_ascii=False)
