"""Two real `gpu-advise serve` processes on one real PostgreSQL, as behind a load balancer: a
conversation alternating between them, a retried event reaching the other one, two schedulers posting
one digest, and one replica killed mid-work while the other carries on."""

from __future__ import annotations

import json
import threading
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from bot.state import Inbox, Store
from bot.state.rentals import Rentals
from bot.state.schema import conversations, inbox, job_runs
from rules.samples import Sample
from tests.support.fake_slack import FakeSlack, SlackSender, fake_slack
from tests.support.processes import bot_env, serve_process

pytestmark = pytest.mark.e2e  # every test here starts a process


def replica_env(tmp_path: Path, fake: FakeSlack, url: str, name: str, **extra: str) -> dict[str, str]:
    (tmp_path / name).mkdir(exist_ok=True)  # each replica keeps its own price cache
    return bot_env(tmp_path / name, fake) | {"GPU_ADVISOR_DATABASE_URL": url, "GPU_ADVISOR_REPLICA_ID": name, **extra}


def thread_posts(fake: FakeSlack, thread: str) -> list[dict[str, Any]]:
    return [p for p in fake.of("chat.postMessage") if p.get("thread_ts") == thread]


def questions(fake: FakeSlack, thread: str) -> list[str]:
    return [
        str(p["text"])
        for p in thread_posts(fake, thread)
        if p.get("blocks") and any(b.get("block_id") == "question" for b in p["blocks"])
    ]


def reply(send: SlackSender, thread: str, text: str, n: int) -> None:
    status, _ = send.event(
        {
            "type": "message",
            "channel": "C1",
            "user": "U1",
            "text": text,
            "ts": f"1700000200.{n:06d}",
            "thread_ts": thread,
        },
        event_id=f"EvA{n}",
    )
    assert status == 200


def started(fake: FakeSlack, send: SlackSender) -> str:
    assert send.command("", response_url=fake.response_url())[0] == 200
    root = fake.wait_for(lambda: [p for p in fake.of("chat.postMessage") if "thread_ts" not in p])[0]
    fake.wait_for(lambda: questions(fake, root["_ts"]))
    return str(root["_ts"])


def test_a_conversation_alternating_between_replicas_and_a_retry_to_the_other(tmp_path: Path, pg_url: str) -> None:
    with fake_slack() as fake, ExitStack() as stack:
        a, _ = stack.enter_context(serve_process(replica_env(tmp_path, fake, pg_url, "a")))
        b, _ = stack.enter_context(serve_process(replica_env(tmp_path, fake, pg_url, "b")))
        thread = started(fake, a)
        answers = ["skip", "10 hours", "70/80", "no", "daily", "no", "skip", "skip", "skip"]
        for n, text in enumerate(answers, 1):
            asked = len(questions(fake, thread))
            reply(a if n % 2 else b, thread, text, n)
            if n < len(answers):
                fake.wait_for(lambda asked=asked: len(questions(fake, thread)) > asked)  # type: ignore[misc]
        fake.wait_for(lambda: [p for p in thread_posts(fake, thread) if "Recommendation" in str(p.get("text"))])
        # Slack retries the last answer's event; the load balancer sends each copy to a different replica
        retry = {
            "type": "message",
            "channel": "C1",
            "user": "U1",
            "text": "skip",
            "ts": "1700000200.000009",
            "thread_ts": thread,
        }
        codes: list[int] = []
        copies = [threading.Thread(target=lambda s=s: codes.append(s.event(retry, event_id="EvA9")[0])) for s in (a, b)]
        for copy in copies:
            copy.start()
        for copy in copies:
            copy.join()
        assert codes == [200, 200]
        # each copy is acknowledged before its work (a repeat: nothing to do) is marked done; stop the replicas
        # only once it is
        kept_box = Inbox(Store(pg_url))
        fake.wait_for(lambda: kept_box.pending(timedelta(hours=1)) == [])
    recommendations = [p for p in thread_posts(fake, thread) if "Recommendation" in str(p.get("text"))]
    assert len(recommendations) == 1
    assert len(questions(fake, thread)) == len(set(questions(fake, thread))) == len(answers)  # each asked once
    store = Store(pg_url)
    with store.reading() as conn:
        row = conn.execute(select(conversations).where(conversations.c.thread_ts == thread)).one()
        kept = conn.execute(select(inbox.c.key, inbox.c.claimed_by, inbox.c.done_at)).all()
    assert row.status == "done" and row.answers["memory"] == "70/80" and row.answers["duration"] == "10 hours"
    assert {r.claimed_by for r in kept} == {"a", "b"} and all(r.done_at for r in kept)


def idle_instance(url: str) -> None:
    rentals = Rentals(Store(url))
    now = datetime.now(UTC)
    fields = {
        "gpu": "A100-80GB",
        "cards": 1,
        "share": None,
        "unit": "day",
        "price": 400.0,
        "currency": "CNY",
        "channel": "C1",
        "owner": "U1",
        "project": "llm",
        "started_at": now - timedelta(hours=3),
    }
    inst, _ = rentals.track_instance("T1", "train-1", fields)
    quiet = [Sample(now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(120, -1, -5)]
    rentals.add_samples(inst.id, quiet, [None] * len(quiet))


def test_two_schedulers_ticking_at_once_post_one_digest(tmp_path: Path, pg_url: str) -> None:
    idle_instance(pg_url)
    due_now = {
        "GPU_ADVISOR_REMIND_AT": "00:00",
        "GPU_ADVISOR_REMIND_DAYS": "daily",
        "GPU_ADVISOR_REMIND_TZ": "UTC",
        "GPU_ADVISOR_REMIND_PACE_S": "0",
    }
    with fake_slack() as fake, ExitStack() as stack:
        for name in ("a", "b"):  # both run the digest job at start-up, within the same minute
            stack.enter_context(serve_process(replica_env(tmp_path, fake, pg_url, name, **due_now), scheduler=True))
        digest = fake.wait_for(lambda: [p for p in fake.of("chat.postMessage") if p.get("channel") == "C1"])
        fake.wait_for(lambda: len(Inbox(Store(pg_url)).pending(timedelta(hours=1))) == 0)
        threading.Event().wait(2)  # a second digest, if one were coming, would be posted by now
        assert len([p for p in fake.of("chat.postMessage") if p.get("channel") == "C1"]) == 1
    assert "train-1" in json.dumps(digest[0]["blocks"])
    with Store(pg_url).reading() as conn:
        runs = conn.execute(select(job_runs.c.job, job_runs.c.claimed_by)).all()
    assert len([r for r in runs if r.job == "reminders:due"]) >= 1  # each minute's run claimed by one replica


def test_a_replica_killed_mid_work_is_taken_over_by_the_other(tmp_path: Path, pg_url: str) -> None:
    with fake_slack() as fake, ExitStack() as stack:
        a, proc_a = stack.enter_context(serve_process(replica_env(tmp_path, fake, pg_url, "a")))
        b, _ = stack.enter_context(
            serve_process(replica_env(tmp_path, fake, pg_url, "b", GPU_ADVISOR_REDO_AFTER_S="2"), scheduler=True)
        )
        thread = started(fake, a)
        reply(a, thread, "skip", 1)
        fake.wait_for(lambda: len(questions(fake, thread)) >= 2)
        fake.delays["chat.update"] = 3.0  # a's next piece of work hangs on Slack ...
        reply(a, thread, "10 hours", 2)
        fake.wait_for(lambda: len(fake.of("chat.update")) >= 2)
        proc_a.kill()  # ... and a dies there: acknowledged, recorded, the next question never asked
        proc_a.wait(timeout=10)
        fake.delays.clear()
        fake.wait_for(lambda: len(questions(fake, thread)) >= 3, timeout=30)  # b took a's item over and asked on
        reply(b, thread, "70/80", 3)
        fake.wait_for(lambda: len(questions(fake, thread)) >= 4)
    asked = questions(fake, thread)
    assert asked[2] == "Does the memory peak exceed 80% of one card?" and len(set(asked)) == len(asked)
    with Store(pg_url).reading() as conn:
        taken = conn.execute(select(inbox.c.claimed_by).where(inbox.c.key == "event:EvA2")).scalar()
        row = conn.execute(select(conversations).where(conversations.c.thread_ts == thread)).one()
    assert taken == "b" and row.answers["duration"] == "10 hours" and row.answers["memory"] == "70/80"
