"""`gpu-advise serve` as a real process on a free port, for the restart and replica tests."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.cli import ROOT
from tests.support.fake_slack import FakeSlack, SlackSender
from tests.support.slack_harness import SECRET


def free_port() -> int:
    """A free port for a process to bind later, below the kernel's range for port 0 (Linux's 32768-60999): a port
    picked from that range could be handed, between this check and the process's bind, to any server a test starts
    on port 0 in another worker, whose /healthz then answered for the process (seen once in CI). A port below it
    only this function hands out, at random."""
    import random

    for _ in range(200):
        port = random.randint(20_000, 32_000)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and 32000")


def bot_env(tmp_path: Path, fake: FakeSlack) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("GPU_ADVISOR_", "SLACK_"))} | {
        "SLACK_BOT_TOKEN": "xoxb-test-token",
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake.api_url,
        "GPU_ADVISOR_DB": str(tmp_path / "bot.db"),
        "GPU_ADVISOR_AZURE_ENABLED": "false",
        "GPU_ADVISOR_ECB_ENABLED": "false",
        "GPU_ADVISOR_LANG": "en",
    }


@contextmanager
def serve_process(
    env: dict[str, str], *, scheduler: bool = False, working: bool = False
) -> Iterator[tuple[SlackSender, subprocess.Popen[bytes]]]:
    """A serve process, ready (its /healthz answers; with `working`, its work process takes work too); SIGKILLed
    on leaving, as a crash would, if still up."""
    port = free_port()
    args = [sys.executable, "-m", "bot", "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(
        args + ([] if scheduler else ["--no-scheduler"]),
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as answer:
                    checks = json.loads(answer.read()).get("checks", {})
                if not working or checks.get("work_process", "running") == "running":
                    break
                time.sleep(0.1)
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.kill()
                    raise AssertionError((proc.stdout.read() if proc.stdout else b"").decode()) from None
                time.sleep(0.1)
        yield SlackSender(f"http://127.0.0.1:{port}/slack/events", SECRET), proc
    except BaseException as exc:  # a failing test says what serve said
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        exc.add_note("serve's output:\n" + _said(proc)[-6000:])
        raise
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        if proc.stdout:
            proc.stdout.close()


def _said(proc: subprocess.Popen[bytes]) -> str:
    """What serve wrote, without waiting for the end of its output (a process it started may still hold it)."""
    if proc.stdout is None:
        return ""
    os.set_blocking(proc.stdout.fileno(), False)
    try:
        return (proc.stdout.read() or b"").decode(errors="replace")
    except OSError:
        return ""


def child_pids(pid: int) -> list[int]:
    """The processes `pid` started that have not been reaped (Linux's /proc: each thread's children)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def kill_all(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL serve and the processes it started (its work process), as a crash of the machine would: an
    orphaned work process would otherwise go on with what it was doing."""
    found = child_pids(proc.pid)
    proc.kill()
    for child in found:
        try:
            os.kill(child, signal.SIGKILL)
        except OSError:
            continue  # gone already
    proc.wait(timeout=10)
