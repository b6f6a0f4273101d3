"""Acknowledgement latency of `/gpu-advise` over HTTP, beside two floors: a bare bolt app that only
acknowledges, and the same app making one durable SQLite write before it acknowledges (the cost of
the inbox's promise). Both run with process_before_response=True, as the real app does.

The apps are served by the same threaded WSGI server on 127.0.0.1, each in its own process, against
a local fake Slack in a third process, and receive the same signed slash commands. The real app does
its work (a conversation started, questions posted) in lazy listeners after the acknowledgement, so
that work competes for the CPU as it would.

    python bench/ack_latency.py [--requests 300] [--concurrency 1 8] [--rounds 5] [--single-process]
    python bench/ack_latency.py --chat feishu [--press] [--agents 2000 [--beat-every 60]] [...]
    python bench/ack_latency.py --chat dingtalk|wecom [--requests 300] [--rounds 5] [--agents 2000]
    python bench/ack_latency.py --answers --busy 2 [--rounds 5] [--every 0.25] [--for 15]

--chat feishu measures Feishu's callback path instead: serve talking to Feishu only (HTTP mode), sent
encrypted, signed `im.message.receive_v1` messages ("advise": a profile starts, its cards are sent to a local
fake Open API), beside a floor that checks the signature, decrypts the body and makes one durable SQLite write.

serve runs as it does by default: the front door acknowledges, its work process does the work after
(bot/server/work_process.py); --single-process measures serve with the work on threads of the front door.
The fake Slack stands for Slack's servers, which do not share our CPUs: it runs at the lowest priority.

The three apps run side by side and take turns in rounds (who goes first rotates), so a machine that
drifts during the run slows the floors as much as the app; after the app's turn the bench waits for
its work after the acknowledgements to end, so the floors are measured without it.

Sequential requests show the acknowledgement path itself; a burst of concurrent ones shows it while
the background work of earlier commands shares the CPU.

--agents N: N instances tracked in serve's state, whose agents post a heartbeat of eight GPUs' samples every
--beat-every seconds (60: the agent's default) to serve while every round runs, from a process of their own
(bench/agents.py); the floors get none. Issue 50: a press answered within 1 s p99 under 2,000 agents.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from bench.answer_latency import KEPT, busy, run  # noqa: E402
from bot.feishu.gateway import PATH as FEISHU_PATH  # noqa: E402
from bot.slack.events import EVENTS_PATH  # noqa: E402
from tests.support.fake_feishu import FeishuSender  # noqa: E402
from tests.support.fake_slack import SlackSender  # noqa: E402
from tests.support.feishu_harness import ENCRYPT_KEY, VERIFICATION_TOKEN  # noqa: E402
from tests.support.slack_harness import SECRET  # noqa: E402

# the floors' durable write: one row, committed, in WAL mode as the state database is
KEEP = """lock, local = threading.Lock(), threading.local()

def keep(body):
    conn = getattr(local, "conn", None)
    if conn is None:
        conn = local.conn = sqlite3.connect(db, isolation_level=None, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("CREATE TABLE IF NOT EXISTS kept (body TEXT)")
    with lock:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO kept VALUES (?)", (str(body),))
        conn.execute("COMMIT")
"""

FAKE_SLACK = """
import os, sys, time
os.nice(19)  # it stands for Slack's servers, which do not share our CPUs: it takes what the apps leave
from tests.support.fake_slack import fake_slack
with fake_slack() as fake:
    print(fake.api_url, flush=True)
    sys.stdin.read()
"""

BARE_APP = f"""
import sqlite3, sys, threading
from wsgiref.simple_server import make_server
from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_sdk import WebClient
from bot.server.http import QuietHandler, ThreadingWSGIServer
api_url, secret, mode, db = sys.argv[1:5]
# process_before_response=True, as the real app: the acknowledgement is returned when the ack function ends
app = App(client=WebClient(token="xoxb-bench", base_url=api_url), signing_secret=secret,
          process_before_response=True)
{KEEP}
@app.command("/gpu-advise")
def only_ack(ack, body):
    if mode == "write":
        keep(body)  # the cost of the inbox's promise: one durable write before the acknowledgement
    ack()

handler = SlackRequestHandler(app)

def wsgi(environ, start_response):
    if environ.get("PATH_INFO") == "/healthz":
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]
    return handler(environ, start_response)

server = make_server("127.0.0.1", 0, wsgi, server_class=ThreadingWSGIServer, handler_class=QuietHandler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


FAKE_FEISHU = """
import os, sys
os.nice(19)  # it stands for Feishu's servers
from tests.support.fake_feishu import fake_feishu
with fake_feishu() as fake:
    print(fake.base_url, fake.app_secret, flush=True)
    sys.stdin.read()
"""

FEISHU_FLOOR = f"""
import hashlib, hmac, json, sqlite3, sys, threading
from wsgiref.simple_server import make_server
from bot.server.http import QuietHandler, ThreadingWSGIServer
from bot.feishu.callback import decrypt
key, mode, db = sys.argv[1:4]
{KEEP}
def wsgi(environ, start_response):
    if environ.get("PATH_INFO") == "/healthz":
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]
    body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    stamp, nonce = environ.get("HTTP_X_LARK_REQUEST_TIMESTAMP", ""), environ.get("HTTP_X_LARK_REQUEST_NONCE", "")
    signed = hashlib.sha256((stamp + nonce + key).encode() + body).hexdigest()
    if not hmac.compare_digest(signed, environ.get("HTTP_X_LARK_SIGNATURE", "")):
        start_response("401 Unauthorized", [("Content-Type", "text/plain")])
        return [b"bad signature"]
    payload = json.loads(decrypt(json.loads(body)["encrypt"], key))
    if mode == "write":
        keep(json.dumps(payload))
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", "2")])
    return [b"{{}}"]

server = make_server("127.0.0.1", 0, wsgi, server_class=ThreadingWSGIServer, handler_class=QuietHandler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""

FLOORS = (("bare bolt app (ack only)", "ack"), ("bare app + 1 SQLite write", "write"))
FEISHU_FLOORS = (("bare app: signature + decrypt", "ack"), ("the same + 1 SQLite write", "write"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(port: int) -> None:
    """Until /healthz answers and, for serve, its work process takes work (it starts after the front door)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):  # not listening yet
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as response:
                answer = response.read()
            checks = json.loads(answer).get("checks", {}) if answer.startswith(b"{") else {}
            if checks.get("work_process", "running") == "running":
                return
        time.sleep(0.1)
    raise RuntimeError("the app did not start")


@contextmanager
def process(args: list[str], env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        args, cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)


Send = Callable[[int], int]  # the i-th request, sent: its HTTP status


def slack_send(sender: SlackSender) -> Send:
    return lambda i: sender.command("", user=f"U{i % 50}", channel=f"C{i % 10}")[0]


def feishu_send(sender: FeishuSender) -> Send:
    return lambda i: sender.message("advise", user=f"ou_{i % 50}", chat=f"oc_{i % 10}").status_code


PRESS_GROUP, PRESS_OWNER = "oc_5ad11d72b830411d72b836c20b1c0f4e", "ou_7d8a6e6df7621556ce0d21922b676706"
SNOOZE = {"behaviors": [{"type": "callback", "value": {"action": "rental_snooze_week", "value": "i:box-1"}}]}


def feishu_press(sender: FeishuSender) -> Send:
    """A press of Snooze a week on a digest card's item by its owner: kept, its toast answered, the card patched."""
    return lambda i: sender.press(SNOOZE, user=PRESS_OWNER, chat=PRESS_GROUP, message_id="om_bench").status_code


def track_pressed_item(env: dict[str, str], tenant: str) -> None:
    """The item the presses answer for, in serve's state, as `gpu-advise track` keeps it."""
    args = ["track", "instance", "box-1", "--team", f"feishu:{tenant}", "--gpu", "A100-80GB", "--price", "10/h",
            "--channel", PRESS_GROUP, "--owner", PRESS_OWNER]  # fmt: skip
    subprocess.run([sys.executable, "-m", "bot", *args], cwd=ROOT, env=env, check=True, capture_output=True)


def measure(send: Send, requests: int, concurrency: int) -> tuple[list[float], float]:
    """The latencies of `requests` requests sent `concurrency` at once, and the seconds they took."""
    latencies: list[float] = []

    def one(i: int) -> None:
        start = time.perf_counter()
        status = send(i)
        latencies.append(time.perf_counter() - start)
        if status != 200:
            raise RuntimeError(f"HTTP {status}")

    began = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(one, range(requests)))
    return latencies, time.perf_counter() - began


def children(pid: int) -> list[int]:
    """The processes `pid` started (its work process), from Linux's /proc."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def settle(pid: int, timeout_s: float = 20.0) -> None:
    """Wait until process `pid` has used (almost) no CPU for 0.2 s (Linux /proc; elsewhere, a fixed pause)."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        time.sleep(2)
        return

    def ticks() -> int:
        total = 0
        for each in [pid, *children(pid)]:
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{each}/stat").read_text().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime + stime
        return total

    ends = time.monotonic() + timeout_s
    while time.monotonic() < ends:
        before = ticks()
        time.sleep(0.2)
        if ticks() - before <= 1:
            return


def summary(latencies: list[float], seconds: float) -> dict[str, float]:
    ordered = sorted(latencies)
    return {
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000,
        "max_ms": ordered[-1] * 1000,
        "rps": len(ordered) / seconds,
    }


def start_slack(stack: contextlib.ExitStack, tmp: Path, single_process: bool) -> tuple[dict[str, Send], Any, int]:
    """The fake Slack, the two floors and serve talking to Slack; a sender for each app, and serve's process."""
    fake = stack.enter_context(process([sys.executable, "-c", FAKE_SLACK]))
    assert fake.stdout is not None
    api_url = fake.stdout.readline().strip()
    senders: dict[str, Send] = {}
    for name, mode in FLOORS:
        bare = stack.enter_context(
            process([sys.executable, "-c", BARE_APP, api_url, SECRET, mode, str(tmp / f"floor-{mode}.db")])
        )
        assert bare.stdout is not None
        port = int(bare.stdout.readline())
        wait_healthy(port)
        senders[name] = slack_send(SlackSender(f"http://127.0.0.1:{port}{EVENTS_PATH}", SECRET))
    env = {
        "SLACK_BOT_TOKEN": "xoxb-bench",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": api_url,
        "GPU_ADVISOR_WORK_PROCESS": str(not single_process).lower(),
    }
    port, app = serve(stack, tmp, env)
    senders["gpu-advisor"] = slack_send(SlackSender(f"http://127.0.0.1:{port}{EVENTS_PATH}", SECRET))
    return senders, app, port


def start_feishu(
    stack: contextlib.ExitStack, tmp: Path, _single: bool, press: bool = False
) -> tuple[dict[str, Send], Any, int]:
    """The fake Open API, the two floors and serve talking to Feishu only (HTTP mode); `press`: card presses
    instead of messages."""
    sending = feishu_press if press else feishu_send
    fake = stack.enter_context(process([sys.executable, "-c", FAKE_FEISHU]))
    assert fake.stdout is not None
    base_url, app_secret = fake.stdout.readline().split()
    senders: dict[str, Send] = {}
    for name, mode in FEISHU_FLOORS:
        bare = stack.enter_context(
            process([sys.executable, "-c", FEISHU_FLOOR, ENCRYPT_KEY, mode, str(tmp / f"floor-{mode}.db")])
        )
        assert bare.stdout is not None
        port = int(bare.stdout.readline())
        wait_healthy(port)
        senders[name] = sending(FeishuSender(f"http://127.0.0.1:{port}/", ENCRYPT_KEY, VERIFICATION_TOKEN))
    env = {
        "GPU_ADVISOR_FEISHU_APP_ID": "cli_bench",
        "GPU_ADVISOR_FEISHU_APP_SECRET": app_secret,
        "GPU_ADVISOR_FEISHU_ENCRYPT_KEY": ENCRYPT_KEY,
        "GPU_ADVISOR_FEISHU_VERIFICATION_TOKEN": VERIFICATION_TOKEN,
        "GPU_ADVISOR_FEISHU_DOMAIN": base_url,
        "GPU_ADVISOR_FEISHU_MODE": "http",
    }
    tenant = FeishuSender("", ENCRYPT_KEY, VERIFICATION_TOKEN).tenant
    port, app = serve(stack, tmp, env, before=(lambda full: track_pressed_item(full, tenant)) if press else None)
    sender = FeishuSender(f"http://127.0.0.1:{port}{FEISHU_PATH}", ENCRYPT_KEY, VERIFICATION_TOKEN)
    senders["gpu-advisor"] = sending(sender)
    return senders, app, port


def serve(
    stack: contextlib.ExitStack, tmp: Path, chat: dict[str, str], before: Callable[[dict[str, str]], None] | None = None
) -> tuple[int, Any]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k in KEPT or not k.startswith(("GPU_ADVISOR_", "SLACK_"))} | {
        "GPU_ADVISOR_DB": str(tmp / "bench.db"),
        "GPU_ADVISOR_AZURE_ENABLED": "false",
        "GPU_ADVISOR_ECB_ENABLED": "false",
        **chat,
    }
    if before is not None:
        before(env)
    args = [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port", str(port), "--no-scheduler"]
    app = stack.enter_context(process(args, env=env))
    wait_healthy(port)
    return port, app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=300, help="commands per app and level, over all rounds")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8])
    parser.add_argument(
        "--single-process",
        action="store_true",
        help="serve without its work process (GPU_ADVISOR_WORK_PROCESS=false), to compare",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="the apps take turns this many times, so drift of the machine falls on all alike",
    )
    parser.add_argument(
        "--chat",
        choices=["slack", "feishu", "dingtalk", "wecom"],
        default="slack",
        help="whose callback path (dingtalk, wecom: card presses over the long connection, bench/stream_presses.py)",
    )
    parser.add_argument("--press", action="store_true", help="with --chat feishu: card presses, not messages")
    parser.add_argument("--agents", type=int, default=0, help="this many agents post heartbeats to serve meanwhile")
    parser.add_argument("--beat-every", type=float, default=60, help="seconds between one agent's heartbeats")
    parser.add_argument(
        "--answers",
        action="store_true",
        help="measure the answers after the acknowledgements from serve's start (bench/answer_latency.py)",
    )
    parser.add_argument("--busy", type=int, default=0, help="CPU-bound processes beside the apps")
    parser.add_argument("--every", type=float, default=0.25, help="seconds between commands (with --answers)")
    parser.add_argument("--for", dest="during", type=float, default=15, help="seconds of commands (with --answers)")
    parser.add_argument(
        "--startup", type=float, default=3, help="commands of the first seconds are the start-up ones (with --answers)"
    )
    args = parser.parse_args()
    if args.chat in ("dingtalk", "wecom"):
        from bench.stream_presses import run as run_presses

        run_presses(args.chat, args.requests, args.rounds, args.agents, args.beat_every)
        return
    if args.answers:
        run(args.rounds, args.busy, args.every, args.during, args.startup)
        return
    print(f"beside {args.busy} CPU-bound process(es) on {os.cpu_count()} CPUs")
    floors = FEISHU_FLOORS if args.chat == "feishu" else FLOORS
    names = [name for name, _ in floors] + ["gpu-advisor"]
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack, busy(args.busy):
        if args.chat == "feishu":
            senders, app, port = start_feishu(stack, Path(tmp), args.single_process, press=args.press)
        else:
            senders, app, port = start_slack(stack, Path(tmp), args.single_process)
        beats: dict[int, int] = {}
        if args.agents:
            from bench.agents import posting, tracked
            from bot.settings.areas import state_db_beside

            tokens = tracked(state_db_beside(Path(tmp) / "bench.db"), args.agents)
            beats = stack.enter_context(posting(f"http://127.0.0.1:{port}/api/heartbeat", tokens, args.beat_every))
        for name in names:  # warm up
            measure(senders[name], 10, 1)
        taken: dict[tuple[str, int], tuple[list[float], float]] = {
            (n, lv): ([], 0.0) for n in names for lv in args.concurrency
        }
        per_round = max(1, args.requests // args.rounds)
        for round_ in range(args.rounds):
            for level in args.concurrency:
                for name in names[round_ % len(names) :] + names[: round_ % len(names)]:  # who goes first rotates
                    latencies, seconds = measure(senders[name], per_round, level)
                    if name == "gpu-advisor":
                        settle(app.pid)  # its work after the acks ends before a floor is measured
                    kept, spent = taken[(name, level)]
                    taken[(name, level)] = (kept + latencies, spent + seconds)
        if args.agents:
            stack.close()  # the agents stop (their answers counted), then serve and the floors
    results = {key: summary(*value) for key, value in taken.items()}
    what = "/gpu-advise commands"
    if args.chat == "feishu":
        what = "Feishu card presses" if args.press else "Feishu messages"
    print(
        f"{per_round * args.rounds} signed {what}"
        f" per app and level, in {args.rounds} alternating "
        "rounds; each app in its own process"
    )
    if args.agents:
        print(f"beside {args.agents} agents posting every {args.beat_every:g} s: heartbeats answered {beats}")
    print(f"{'app':<28}{'at once':>8}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}{'req/s':>9}")
    for (name, level), r in sorted(results.items(), key=lambda kv: (names.index(kv[0][0]), kv[0][1])):
        print(f"{name:<28}{level:>8}{r['p50_ms']:>9.1f}{r['p99_ms']:>9.1f}{r['max_ms']:>9.1f}{r['rps']:>9.1f}")
    print()
    for level in args.concurrency:
        floor, ours = results[(floors[1][0], level)], results[("gpu-advisor", level)]
        print(
            f"{level} at once, against the floor with one durable write: p50 {ours['p50_ms'] / floor['p50_ms']:.2f}x,"
            f" p99 {ours['p99_ms'] / floor['p99_ms']:.2f}x (target <= 1.5x); slowest ack {ours['max_ms']:.0f} ms "
            f"({'well inside' if ours['max_ms'] < 1000 else 'NOT inside'} the chat's 3 s)"
        )


if __name__ == "__main__":
    main()
