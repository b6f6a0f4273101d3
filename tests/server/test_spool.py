"""The front door's spool (bot/server/spool.py): requests kept in a file only the front door writes, taken into
the inbox by the work process; swept, handed over again when not taken, taken by a work process starting."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.server.spool import Sweeper, open_spool, take_spooled
from bot.state import Inbox, Store
from tests.server.test_work_process import (
    LINUX,
    PROFILE,
    HandedOver,
    children,
    healthz,
    recommendations,
    serving,
)
from tests.support.fake_slack import fake_slack
from tests.support.state_template import migrated_state_db


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 9, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def stores(tmp_path: Path) -> tuple[Clock, Inbox, Inbox]:
    clock = Clock()
    store = Store(migrated_state_db(tmp_path / "state.db"), now=clock)
    migrated_state_db(tmp_path / "state.db-spool")  # the spool is a state store of its own: a migrated copy
    spool = open_spool(store)
    assert spool is not None and spool.store.sqlite_path() == f"{tmp_path / 'state.db'}-spool"
    return clock, spool, Inbox(store)


def test_the_sweep_forgets_what_the_inbox_took_and_hands_over_again_what_it_did_not(tmp_path: Path) -> None:
    clock, spool, inbox = stores(tmp_path)
    for key in ("command:taken", "command:lost"):
        assert spool.enqueue(key, "command", {"text": key})
    assert inbox.adopt("command:taken", "command", {"text": "command:taken"})
    clock.now += timedelta(seconds=30)
    assert spool.enqueue("command:fresh", "command", {"text": "fresh"})
    work = HandedOver()
    sweeper = Sweeper(spool, inbox, work, resend_after=timedelta(seconds=20))
    assert sweeper.sweep() == (1, 1)  # the taken one forgotten; the lost one (30 s) handed over, not the fresh one
    assert work.runs == [("command:lost", "command", {"text": "command:lost"})]
    assert [row.key for row in spool.spooled(timedelta(days=1))] == ["command:lost", "command:fresh"]
    clock.now += timedelta(seconds=5)
    assert sweeper.sweep() == (0, 0)  # not again before another 20 s
    clock.now += timedelta(seconds=20)
    assert sweeper.sweep() == (0, 2)  # now the lost one again, and the fresh one (25 s)
    for key, kind, body in work.runs:  # the work process takes them: the next sweep forgets them
        inbox.adopt(key, kind, body)
    assert sweeper.sweep() == (2, 0)
    assert spool.spooled(timedelta(days=1)) == [] and work.acknowledged == []


def test_a_work_process_starting_takes_what_was_spooled_before_it_with_its_time(tmp_path: Path) -> None:
    clock, spool, inbox = stores(tmp_path)
    spool.enqueue("command:before", "command", {"n": 1})
    received = clock.now
    clock.now += timedelta(seconds=2)
    started = clock.now
    clock.now += timedelta(seconds=1)
    spool.enqueue("command:after", "command", {"n": 2})  # comes over the new work process's queue
    assert take_spooled(spool, inbox, started) == 1
    [row] = inbox.spooled(timedelta(hours=1))
    assert (row.key, row.received_at) == ("command:before", received)
    assert take_spooled(spool, inbox, started) == 0  # taken once
    assert not inbox.adopt("command:before", "command", {"n": 1})  # a retry of it is not done twice


def test_postgresql_has_no_spool(db_target: str) -> None:
    store = Store(db_target)
    if store.sqlite_path():
        migrated_state_db(Path(f"{store.sqlite_path()}-spool"))  # what it checks is where the spool is
    assert (open_spool(store) is None) == (store.engine.dialect.name == "postgresql")


@pytest.mark.e2e  # starts a process
@pytest.mark.skipif(not LINUX, reason="finds the work process in Linux's /proc")
@pytest.mark.parametrize("next_start", ["true", "false"])
def test_a_request_acknowledged_just_before_serve_is_killed_is_done_on_the_next_start(
    tmp_path: Path, next_start: str
) -> None:
    """Kept only in the spool (the work process had not taken it) when the whole service dies; done when serve
    starts again, with a work process or without one."""
    with fake_slack() as fake:
        with serving(tmp_path, fake) as (send, proc):
            [work] = fake.wait_for(lambda: children(proc.pid))
            fake.wait_for(lambda: healthz(send)["checks"]["work_process"] == "running")
            os.kill(work, signal.SIGSTOP)
            status, _ = send.command(PROFILE, response_url=fake.response_url())
            assert status == 200
            spool = Inbox(Store(f"{tmp_path / 'bot.state.db'}-spool"))
            assert [row.key for row in spool.spooled(timedelta(hours=1))] != []
            proc.kill()
            proc.wait(timeout=10)
            with contextlib.suppress(ProcessLookupError):  # gone already with serve (it dies with its parent)
                os.kill(work, signal.SIGKILL)
        assert recommendations(fake) == []
        with serving(tmp_path, fake, GPU_ADVISOR_WORK_PROCESS=next_start):
            fake.wait_for(lambda: recommendations(fake))
            fake.wait_for(lambda: spool.spooled(timedelta(hours=1)) == [])  # swept once the inbox holds it
        time.sleep(0.2)
        assert len(recommendations(fake)) == 1


@pytest.mark.e2e  # starts a process
def test_a_slack_retry_through_the_spool_is_done_once(tmp_path: Path) -> None:
    event = {"type": "app_home_opened", "user": "U1", "channel": "D1", "tab": "home"}
    with fake_slack() as fake, serving(tmp_path, fake) as (send, _):
        fake.wait_for(lambda: healthz(send)["checks"]["work_process"] == "running")
        for _ in range(3):
            status, _ = send.event(event, event_id="EvHome1")
            assert status == 200
        fake.wait_for(lambda: fake.of("views.publish"))
        time.sleep(1.5)  # a sweep or more
        assert len(fake.of("views.publish")) == 1
