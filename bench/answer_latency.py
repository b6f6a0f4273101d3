"""How long an acknowledged `/gpu-advise` waits for its answer (the profile's first message posted), from the
moment serve starts, on a host whose CPUs are busy: `python bench/ack_latency.py --answers [--busy 2]`.

Each round starts a fresh serve (a new state database, the scheduler on, as `serve` runs by default: the price
cache's refresh and the jobs' first runs happen while it takes work), beside `--busy` CPU-bound processes at
normal priority. As soon as the front door answers /healthz, a signed command is sent every `--every` seconds
for `--for` seconds, each from its own channel; the answer is the root message the bot posts in that channel,
seen by a fake Slack in this process. Printed: the acknowledgements (the front door's goal) and the answers
(the time from each acknowledgement to its answer), p50, p95 and the slowest, against the 3 s goal.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from bot.slack.events import EVENTS_PATH  # noqa: E402
from tests.support.fake_slack import FakeSlack, SlackSender, fake_slack  # noqa: E402
from tests.support.processes import free_port  # noqa: E402
from tests.support.slack_harness import SECRET  # noqa: E402

HOG = "while True: pass"
KEPT = ("GPU_ADVISOR_WORK_NICENESS", "GPU_ADVISOR_WORK_PROCESS")  # to compare a setting, set it for the bench
GOAL_S = 3.0


@contextlib.contextmanager
def busy(count: int) -> Iterator[None]:
    """`count` processes that keep a CPU each busy, at normal priority, as other work on the host would."""
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(count)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def first_posts(fake: FakeSlack, seen: dict[str, float], stop: threading.Event) -> None:
    """The time each channel's first message was posted, looked at every 5 ms."""
    while not stop.is_set():
        for call in list(fake.calls):
            if call.method == "chat.postMessage":
                seen.setdefault(str(call.args.get("channel")), time.perf_counter())
        time.sleep(0.005)


def front_door_up(port: int, deadline_s: float = 60) -> None:
    """Until the front door answers /healthz at all: a 503 (its work process still starting) counts."""
    ends = time.monotonic() + deadline_s
    while time.monotonic() < ends:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return
        except urllib.error.HTTPError:
            return
        except OSError:  # not listening yet
            time.sleep(0.02)
    raise RuntimeError("serve did not start")


def one_round(
    tmp: Path, fake: FakeSlack, seen: dict[str, float], n: int, every: float, during: float
) -> tuple[list[float], list[float], int]:
    """One fresh serve: the acknowledgements' latencies, the answers' latencies, and the commands never answered."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k in KEPT or not k.startswith(("GPU_ADVISOR_", "SLACK_"))} | {
        "SLACK_BOT_TOKEN": "xoxb-bench",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake.api_url,
        "GPU_ADVISOR_DB": str(tmp / f"round-{n}.db"),
        "GPU_ADVISOR_AZURE_ENABLED": "false",
        "GPU_ADVISOR_ECB_ENABLED": "false",
    }
    args = [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    acks: list[float] = []
    acked: dict[str, float] = {}
    try:
        front_door_up(port)
        sender = SlackSender(f"http://127.0.0.1:{port}{EVENTS_PATH}", SECRET)
        threads = []

        def send(channel: str) -> None:
            began = time.perf_counter()
            status, _ = sender.command("", user="U1", channel=channel)
            done = time.perf_counter()
            if status == 200:
                acks.append(done - began)
                acked[channel] = done

        start = time.perf_counter()
        i = 0
        while time.perf_counter() - start < during:
            thread = threading.Thread(target=send, args=(f"C{n}x{i}",))
            thread.start()
            threads.append(thread)
            i += 1
            time.sleep(every)
        for thread in threads:
            thread.join()
        ends = time.monotonic() + 120
        while time.monotonic() < ends and not set(acked) <= set(seen):
            time.sleep(0.05)
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=15)
        if proc.poll() is None:
            proc.kill()
    answers = [seen[c] - at for c, at in acked.items() if c in seen]
    return acks, answers, len(set(acked) - set(seen))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, int(len(ordered) * p + 0.5) - 1))]


def run(rounds: int, hogs: int, every: float, during: float) -> None:
    acks: list[float] = []
    answers: list[float] = []
    lost = 0
    seen: dict[str, float] = {}
    stop = threading.Event()
    with fake_slack() as fake, tempfile.TemporaryDirectory() as tmp, busy(hogs):
        watcher = threading.Thread(target=first_posts, args=(fake, seen, stop), daemon=True)
        watcher.start()
        for n in range(rounds):
            a, b, unanswered = one_round(Path(tmp), fake, seen, n, every, during)
            acks += a
            answers += b
            lost += unanswered
        stop.set()
    print(
        f"{rounds} fresh serves beside {hogs} CPU-bound process(es) on {os.cpu_count()} CPUs; a command every "
        f"{every} s for {during} s from the moment the front door answers"
    )
    for name, values in (("acknowledgement", acks), ("answer after the ack", answers)):
        if values:
            print(
                f"{name:<22} n={len(values):<4} p50 {statistics.median(values) * 1000:7.0f} ms  "
                f"p95 {percentile(values, 0.95) * 1000:7.0f} ms  max {max(values) * 1000:7.0f} ms"
            )
    if answers:
        p95 = percentile(answers, 0.95)
        print(f"answers p95 {p95:.2f} s: {'within' if p95 <= GOAL_S else 'NOT within'} the {GOAL_S:.0f} s goal")
    print(f"never answered: {lost}")
