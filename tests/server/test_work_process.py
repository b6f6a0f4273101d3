"""serve's work process (bot/server/work_process.py): the work after each acknowledgement runs in a second
process; it is started again when it dies, and stops with the front door."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.metrics import Metrics
from bot.server.work_process import PROCESS_NAME, open_databases
from bot.slack.inbox import replay_pending
from bot.state import Inbox, Store
from tests.support.cli import ROOT
from tests.support.fake_slack import FakeSlack, SlackSender, fake_slack
from tests.support.processes import bot_env, child_pids, serve_process
from tests.support.slack_harness import running_app

LINUX = Path("/proc/self/task").exists()
PROFILE = "10h mem=70/80 mp=no freq=daily resume=no"


def children(pid: int) -> list[int]:
    """The work processes `pid` started and that still run (Linux /proc), by the name each gives itself once it
    runs (forked at serve's start, its command line is the front door's, as any child's is until its exec)."""
    return [c for c in child_pids(pid) if running(c) and name(c) == PROCESS_NAME]


def name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def smaps(pid: int) -> dict[str, int]:
    """A process's memory by kind, in kB (Linux's smaps_rollup)."""
    lines = Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]
    return {name: int(rest.split()[0]) for name, rest in (line.split(":", 1) for line in lines)}


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def base(send: SlackSender) -> str:
    return send.url.rsplit("/slack/", 1)[0]


def healthz(send: SlackSender) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(base(send) + "/healthz", timeout=5) as response:
            return dict(json.loads(response.read()))
    except urllib.error.HTTPError as exc:
        return dict(json.loads(exc.read()))


def metrics(send: SlackSender) -> str:
    with urllib.request.urlopen(base(send) + "/metrics", timeout=5) as response:
        return str(response.read().decode())


def recommendations(fake: FakeSlack) -> list[dict[str, Any]]:
    return [
        p
        for p in fake.of("chat.postMessage")
        if "Recommendation" in str(p.get("blocks")) or "推荐" in str(p.get("blocks"))
    ]


@contextmanager
def serving(tmp_path: Path, fake: FakeSlack, **extra: str) -> Iterator[tuple[SlackSender, subprocess.Popen[bytes]]]:
    with serve_process(bot_env(tmp_path, fake) | extra) as (send, proc):
        yield send, proc


@pytest.mark.e2e  # starts a process
@pytest.mark.skipif(not LINUX, reason="finds the work process in Linux's /proc")
def test_the_work_after_an_acknowledgement_is_done_by_the_work_process(tmp_path: Path) -> None:
    with fake_slack() as fake, serving(tmp_path, fake) as (send, proc):
        [work] = fake.wait_for(lambda: children(proc.pid))
        fake.wait_for(lambda: healthz(send)["checks"]["work_process"] == "running")  # "starting" until it takes work
        os.kill(work, signal.SIGSTOP)  # the work process frozen: the front door still acknowledges at once
        try:
            status, _ = send.command(PROFILE, response_url=fake.response_url())
            assert status == 200
            time.sleep(0.5)
            assert recommendations(fake) == []  # nothing done in the front door
            assert "gpu_advisor_inbox_backlog 1.0" in metrics(send).splitlines()  # kept, not yet taken
        finally:
            os.kill(work, signal.SIGCONT)
        fake.wait_for(lambda: recommendations(fake))
        # /metrics: the front door's count of requests, and the work process's count of recommendations
        time.sleep(0.5)
        # one scrape: the work process's answer to the scrape that gave up while it was frozen is not taken for it
        text = metrics(send)
        assert 'gpu_advisor_decisions_total{choice="dedicated"} 1.0' in text
        assert 'gpu_advisor_slack_requests_total{kind="command"} 1.0' in text
        fake.wait_for(lambda: "gpu_advisor_inbox_backlog 0.0" in metrics(send).splitlines())


@pytest.mark.e2e  # starts a process
@pytest.mark.skipif(not LINUX, reason="finds the work process in Linux's /proc")
def test_a_work_process_that_dies_is_started_again_and_loses_nothing(tmp_path: Path) -> None:
    with fake_slack() as fake, serving(tmp_path, fake) as (send, proc):
        [work] = fake.wait_for(lambda: children(proc.pid))
        fake.wait_for(lambda: healthz(send)["checks"]["work_process"] == "running")
        # serve's first work process is forked before any other thread runs: most of its memory is the front
        # door's loaded modules, shared (a fresh interpreter shares none of its own: Shared_Dirty under 1 MB)
        assert cmdline(work) == cmdline(proc.pid)
        memory = smaps(work)
        assert memory["Shared_Dirty"] > memory["Private_Dirty"], memory
        os.kill(work, signal.SIGKILL)
        # gone for the front door too (a killed process whose threads are still ending reads "Z" here before that)
        fake.wait_for(lambda: not running(work) and healthz(send)["checks"]["work_process"] == "restarting")
        status, _ = send.command(PROFILE, response_url=fake.response_url())  # kept while no work process runs
        assert status == 200
        # the front door's threads run now: the next is a fresh interpreter, not a fork
        [again] = fake.wait_for(lambda: children(proc.pid))
        assert again != work and b"spawn_main" in cmdline(again)
        fake.wait_for(lambda: recommendations(fake))  # the new work process did what was kept before it started
        fake.wait_for(lambda: healthz(send)["checks"]["work_process"] == "running")
        send.command(PROFILE, user="U2", response_url=fake.response_url())  # and takes new work as it comes
        fake.wait_for(lambda: len(recommendations(fake)) == 2)
        time.sleep(0.5)
        assert len(recommendations(fake)) == 2  # each done once
        proc.send_signal(signal.SIGTERM)
        output = (proc.communicate(timeout=20)[0] or b"").decode()
    assert "the work process stopped (exit code -9)" in output


@pytest.mark.e2e  # starts a process
@pytest.mark.skipif(not LINUX, reason="finds the work process in Linux's /proc")
def test_the_work_process_ends_with_the_front_door(tmp_path: Path) -> None:
    with fake_slack() as fake:
        with serving(tmp_path, fake) as (_, proc):  # stopped as an operator would: SIGTERM
            [work] = fake.wait_for(lambda: children(proc.pid))
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=20) == 0
            assert not running(work)
        with serving(tmp_path, fake) as (_, proc):  # killed: the work process sees it is alone and stops
            [work] = fake.wait_for(lambda: children(proc.pid))
            proc.kill()
            proc.wait(timeout=10)
            fake.wait_for(lambda: not running(work), timeout=10)
        with serving(tmp_path, fake) as (send, proc):  # killed while its work process is busy (here: frozen):
            [work] = fake.wait_for(lambda: children(proc.pid))  # it goes too, at once, and finishes nothing
            fake.wait_for(lambda: healthz(send)["checks"]["work_process"] == "running")
            os.kill(work, signal.SIGSTOP)
            proc.kill()
            proc.wait(timeout=10)
            fake.wait_for(lambda: not running(work), timeout=5)


@pytest.mark.e2e  # starts a process
def test_serve_without_a_work_process_does_the_work_itself(tmp_path: Path) -> None:
    with fake_slack() as fake, serving(tmp_path, fake, GPU_ADVISOR_WORK_PROCESS="false") as (send, proc):
        assert "work_process" not in healthz(send)["checks"]
        if LINUX:
            assert children(proc.pid) == []
        send.command(PROFILE, response_url=fake.response_url())
        fake.wait_for(lambda: recommendations(fake))


def test_a_new_work_process_redoes_only_what_was_kept_before_it_started(tmp_path: Path) -> None:
    """What came after its start reaches it over the queue: redoing that too would do it twice."""
    with running_app(tmp_path) as h:
        body = {
            "command": "/gpu-advise",
            "text": "help",
            "team_id": "T1",
            "channel_id": "C1",
            "user_id": "U1",
            "response_url": h.fake.response_url(),
        }
        assert h.deps.inbox.enqueue("command:before", "command", body)
        started = h.clock()
        h.clock.advance(seconds=2)
        assert h.deps.inbox.enqueue("command:after", "command", body | {"user_id": "U2"})
        assert replay_pending(h.deps, h.deps_client(), received_before=started + timedelta(seconds=1)) == 1
        assert [key for key, _, _ in h.deps.inbox.pending(timedelta(hours=1))] == ["command:after"]


def test_metrics_of_the_two_processes_are_added_together() -> None:
    front, work = Metrics(), Metrics()
    front.requests.labels("command").inc(3)
    work.requests.labels("command").inc(2)
    work.decisions.labels("dedicated").inc()
    front.ack_seconds.observe(0.003)
    work.ack_seconds.observe(0.2)
    front.price_age.labels("azure").set(10)
    work.price_age.labels("azure").set(99)
    work.price_age.labels("ecb").set(5)
    text = front.exposition(work.exposition()).decode()
    lines = set(text.splitlines())
    assert 'gpu_advisor_slack_requests_total{kind="command"} 5.0' in lines  # counts summed
    assert 'gpu_advisor_decisions_total{choice="dedicated"} 1.0' in lines  # only the work process's
    assert "gpu_advisor_ack_seconds_count 2.0" in lines and 'gpu_advisor_ack_seconds_bucket{le="0.005"} 1.0' in lines
    assert 'gpu_advisor_price_age_seconds{source="azure"} 10.0' in lines  # a gauge both set: the front door's
    assert 'gpu_advisor_price_age_seconds{source="ecb"} 5.0' in lines
    assert text.count("# TYPE gpu_advisor_slack_requests_total counter") == 1  # one family each
    assert front.exposition() == front.exposition(None)


class HandedOver:
    """Records what the front door hands to serve's work process (the real one is a process: tests above)."""

    def __init__(self) -> None:
        self.acknowledged: list[tuple[str, bytes]] = []
        self.runs: list[tuple[str, str, dict[str, Any]]] = []

    def kept(self, chat: str, key: str, raw: bytes, headers: dict[str, str]) -> None:
        self.acknowledged.append((key, raw))

    def run(self, key: str, kind: str, body: dict[str, Any]) -> None:
        self.runs.append((key, kind, body))

    def state(self) -> str:
        return "running"

    def start(self) -> None:
        return None

    def stop(self) -> None:
        return None

    def metrics(self) -> bytes | None:
        return None


def test_the_front_door_hands_every_kind_of_request_to_the_work_process_and_does_none_of_it(tmp_path: Path) -> None:
    """A request the front door acknowledges goes over whole; a form bolt checks and answers goes over with its
    body, as the inbox records its kind. Nothing of either is done in the front door."""
    from bot.slack.ui.track_form import TrackMeta
    from bot.slack.ui.track_form import view as track_view
    from tests.slack.test_commands import submit

    handed = HandedOver()
    with running_app(tmp_path, work=handed) as h:
        view = track_view(TrackMeta(ch="C1", lang="zh"), {})  # the form `/gpu-advise track` opens
        status, _ = h.send.command(PROFILE, response_url=h.fake.response_url("2"))
        assert status == 200
        [(key, raw)] = handed.acknowledged
        assert key.startswith("command:") and b"mem%3D70%2F80" in raw
        status, _ = submit(h, view, {"name": "train-1", "gpu": "A100-80GB", "price": "400/day", "cards": "1"})
        assert status == 200
        [(key, kind, body)] = handed.runs
        assert kind == "view_submission" and body["view"]["callback_id"] == view["callback_id"]
        assert h.deps.inbox.pending(timedelta(hours=1)) != []  # kept, for the work process to take
        time.sleep(0.3)
        assert recommendations(h.fake) == [] and h.fake.of("chat.postEphemeral") == []  # none of it done here


def test_what_the_queue_brought_is_not_replayed_and_what_was_replayed_is_not_taken_from_the_queue(
    tmp_path: Path,
) -> None:
    """On PostgreSQL nothing but the work process itself tells that a request kept just before it started again
    came both ways (by its replay and by the queue): each key is started once."""
    from bot.server.work_process import Started

    with running_app(tmp_path) as h:
        body = {
            "command": "/gpu-advise",
            "text": "help",
            "team_id": "T1",
            "channel_id": "C1",
            "user_id": "U1",
            "response_url": h.fake.response_url(),
        }
        for key in ("command:queued", "command:replayed"):
            assert h.deps.inbox.enqueue(key, "command", body)
        h.clock.advance(seconds=1)
        started = Started()
        assert started.first("command:queued")  # the queue brought it first
        assert replay_pending(h.deps, h.deps_client(), h.clock(), started.first) == 1
        assert [key for key, _, _ in h.deps.inbox.pending(timedelta(hours=1))] == ["command:queued"]
        assert not started.first("command:replayed")  # when the queue brings it now, it is not done again


@pytest.mark.e2e  # starts a process
@pytest.mark.skipif(not LINUX, reason="finds the work process in Linux's /proc")
def test_a_work_process_that_cannot_start_says_why_and_is_tried_again(tmp_path: Path) -> None:
    with fake_slack() as fake, serving(tmp_path, fake, GPU_ADVISOR_SLACK_RETRY_BACKOFF_S="0.01") as (send, proc):
        [work] = fake.wait_for(lambda: children(proc.pid))
        fake.wait_for(lambda: healthz(send)["checks"]["work_process"] == "running")
        fake.server_errors["auth.test"] = 10_000  # Slack down: a new work process cannot check its token
        os.kill(work, signal.SIGKILL)
        fake.wait_for(lambda: healthz(send)["status"] == "degraded")
        # a start tries auth.test four times (the client retries a 500 three times): a fifth is the next start
        fake.wait_for(lambda: 10_000 - fake.server_errors["auth.test"] >= 5)
        del fake.server_errors["auth.test"]  # Slack back: this start goes on
        fake.wait_for(lambda: healthz(send)["checks"]["work_process"] == "running", timeout=40)
        send.command(PROFILE, response_url=fake.response_url())
        fake.wait_for(lambda: recommendations(fake))
        proc.send_signal(signal.SIGTERM)
        output = (proc.communicate(timeout=20)[0] or b"").decode()
    assert "the work process could not start" in output and "Traceback" not in output


@pytest.mark.parametrize(
    ("env", "named"),
    [({"GPU_ADVISOR_WORK_NICENESS": "25"}, "WORK_NICENESS"), ({"GPU_ADVISOR_WORK_PROCESS": "maybe"}, "WORK_PROCESS")],
)
def test_a_bad_work_process_setting_is_refused_before_serve_starts(
    tmp_path: Path, env: dict[str, str], named: str
) -> None:
    from tests.support.cli import run_cli

    result = run_cli("serve", "--no-scheduler", env=env, tmp=tmp_path)
    assert result.returncode == 2
    assert "bad configuration" in result.stderr and named in result.stderr


@pytest.mark.e2e  # starts a process (its own nice values are changed, not the test runner's)
@pytest.mark.skipif(not LINUX, reason="per-thread nice values are read from Linux's /proc")
def test_the_work_process_lowers_every_thread_once_ready_not_before() -> None:
    """Issue 34.6: at nice 10 from its first line, the work process beside two busy processes took 3.7 s to
    answer its first command; it now starts at the front door's priority and then lowers every thread it has."""
    script = (
        "import os, threading, time\n"
        "from pathlib import Path\n"
        "from bot.server.work_process import lower_priority\n"
        "start = os.getpriority(os.PRIO_PROCESS, 0)\n"
        "hold = threading.Event()\n"
        "threading.Thread(target=hold.wait, daemon=True).start()  # a thread started before, as the replay is\n"
        "lower_priority(5)\n"
        "late = threading.Thread(target=lambda: print('late', os.getpriority(os.PRIO_PROCESS, 0) - start))\n"
        "late.start(); late.join()\n"
        "tids = [int(t.name) for t in Path('/proc/self/task').iterdir()]\n"
        "print(sorted({os.getpriority(os.PRIO_PROCESS, tid) - start for tid in tids}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["late 5", "[5]"]


@pytest.mark.skipif(not LINUX, reason="reads Linux's /proc/self/fd")
def test_a_fork_waits_for_no_database_file_open_here_and_release_closes_the_stores_files(tmp_path: Path) -> None:
    """Before serve forks its work process it closes its stores' pooled connections (Store.release), and forks only
    once no SQLite file is open in it (open_databases); any other file it has open does not count."""
    store = Store(tmp_path / "state.db")
    other = tmp_path / "notes.txt"
    other.write_text("SQLite format 2")
    with other.open() as _kept, store.reading() as conn:
        conn.exec_driver_sql("SELECT 1")
        assert str(tmp_path / "state.db") in open_databases()
        assert str(other) not in open_databases()
    assert str(tmp_path / "state.db") in open_databases()  # the pool keeps it open between uses
    store.release()
    assert not [path for path in open_databases() if path.startswith(str(tmp_path))]
    assert Inbox(store).enqueue("k1", "command", {"text": "help"})  # the next use opens another
    store.close()


FORK_OR_NOT = """
import logging, sqlite3, sys
logging.basicConfig(level=logging.WARNING, stream=sys.stdout, format="%(message)s")
from bot.server.work_process import WorkProcess
from bot.settings import Settings
from bot.text import Lang
work = WorkProcess(Settings(), jobs=False, lang=Lang.EN)
print(work._context().get_start_method())
held = sqlite3.connect(sys.argv[1])
held.execute("CREATE TABLE t (x)")
print(work._context().get_start_method())
"""


@pytest.mark.e2e  # starts a process
def test_no_fork_while_a_sqlite_file_is_open_and_it_is_said_why(tmp_path: Path) -> None:
    """In a process with no other thread, a work process is forked on Linux; with a SQLite file open (a connection
    not released), a fresh interpreter, and the log says which file kept it from forking. Elsewhere it is always a
    fresh interpreter, said nowhere (nothing is refused)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPU_ADVISOR_", "SLACK_"))}
    held = tmp_path / "held.db"
    ran = subprocess.run(
        [sys.executable, "-c", FORK_OR_NOT, str(held)],
        env=env | {"GPU_ADVISOR_DB": str(tmp_path / "prices.db")},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = ["fork", f"the work process starts in a fresh interpreter: {held} open here", "spawn"]
    assert ran.stdout.splitlines() == (said if LINUX else ["spawn", "spawn"]), ran.stderr
