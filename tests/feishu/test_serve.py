"""`gpu-advise serve` talking to Feishu only, as a real process: HTTP mode with encrypted, signed callbacks, the
long connection (ws mode) to a local WebSocket server, and a kill between an event's acknowledgement and its work."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from tests.support.fake_feishu import FakeFeishu, FeishuSender, fake_feishu, ws_server
from tests.support.feishu_harness import ENCRYPT_KEY, VERIFICATION_TOKEN, answered_at_once
from tests.support.processes import kill_all, serve_process

pytestmark = pytest.mark.e2e  # starts serve


def feishu_env(tmp_path: Path, fake: FakeFeishu, mode: str = "http") -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("GPU_ADVISOR_", "SLACK_"))} | {
        "GPU_ADVISOR_FEISHU_APP_ID": "cli_a1b2c3d4e5f6",
        "GPU_ADVISOR_FEISHU_APP_SECRET": fake.app_secret,
        "GPU_ADVISOR_FEISHU_ENCRYPT_KEY": ENCRYPT_KEY,
        "GPU_ADVISOR_FEISHU_VERIFICATION_TOKEN": VERIFICATION_TOKEN,
        "GPU_ADVISOR_FEISHU_DOMAIN": fake.base_url,
        "GPU_ADVISOR_FEISHU_MODE": mode,
        "GPU_ADVISOR_DB": str(tmp_path / "bot.db"),
        "GPU_ADVISOR_AZURE_ENABLED": "false",
        "GPU_ADVISOR_ECB_ENABLED": "false",
        "GPU_ADVISOR_LANG": "en",
    }


def base_of(url: str) -> str:
    return url.rsplit("/slack/", 1)[0]


def get(url: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    try:
        with urllib.request.urlopen(url, timeout=5) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, {}


def test_serve_with_feishu_only_answers_a_direct_message_and_refuses_a_forged_one(tmp_path: Path) -> None:
    with fake_feishu() as fake, serve_process(feishu_env(tmp_path, fake), working=True) as (slack, _proc):
        base = base_of(slack.url)
        status, health = get(f"{base}/healthz")
        assert status == 200 and health["checks"]["chats"] == {
            "feishu": {"mode": "http", "state": "http", "tenants": []}
        }
        assert get(f"{base}/slack/events")[0] == 404  # no Slack here
        send = FeishuSender(f"{base}/feishu/events", ENCRYPT_KEY, VERIFICATION_TOKEN)
        assert send.message("advise").status_code == 200
        fake.wait_for(lambda: fake.of("messages.reply"))
        assert [c.method for c in fake.sent()] == ["messages.create", "messages.reply"]
        payload = {"schema": "2.0", "header": send.header("im.message.receive_v1"), "event": {}}
        assert send.post(payload, signature="f" * 64).status_code == 401


def test_an_event_acknowledged_before_a_kill_is_done_once_at_the_next_start(tmp_path: Path) -> None:
    with fake_feishu() as fake:
        env = feishu_env(tmp_path, fake)
        with serve_process(env, working=True) as (slack, proc):
            # the work hangs on Feishu: killed before it is done. Long enough that the fake never answers (and so
            # never records) that send within the test: at 10 s, a slow second start let it land and count twice
            fake.delays["messages.create"] = 120
            send = FeishuSender(f"{base_of(slack.url)}/feishu/events", ENCRYPT_KEY, VERIFICATION_TOKEN)
            assert send.message("advise", event_id="ev_before_kill").status_code == 200
            fake.wait_for(lambda: "messages.create" in fake.held)  # the work process is sending
            kill_all(proc)  # the front door and its work process, mid-work
        assert fake.sent() == []  # killed with the work undone
        fake.delays.clear()
        with serve_process(env, working=True) as (slack, _proc):
            fake.wait_for(lambda: fake.of("messages.reply"))  # redone from the inbox at start-up
            send = FeishuSender(f"{base_of(slack.url)}/feishu/events", ENCRYPT_KEY, VERIFICATION_TOKEN)
            assert send.message("advise", event_id="ev_before_kill").status_code == 200  # Feishu redelivers it
            fake.wait_for(lambda: len(fake.of("messages.reply")) >= 1)
        assert len(fake.of("messages.create")) == 1, [c.method for c in fake.calls]


def test_serve_in_ws_mode_takes_events_over_the_long_connection(tmp_path: Path) -> None:
    with fake_feishu() as fake, ws_server() as ws:
        fake.ws_url = ws.url
        with serve_process(feishu_env(tmp_path, fake, mode="ws"), working=True) as (slack, _proc):
            ws.wait_connected()
            send = FeishuSender("", ENCRYPT_KEY, VERIFICATION_TOKEN, ws=ws)
            send.message("advise")
            fake.wait_for(lambda: fake.of("messages.reply"))
            _status, health = get(f"{base_of(slack.url)}/healthz")
            assert health["checks"]["chats"]["feishu"] == {
                "mode": "ws",
                "state": "connected",
                "tenants": ["feishu:" + send.tenant],
            }  # the one who asked
            assert get(f"{base_of(slack.url)}/feishu/events")[0] == 404  # no callback URL in ws mode


def test_serve_says_what_to_set_when_feishu_refuses_the_credentials(tmp_path: Path) -> None:
    with fake_feishu() as fake:
        env = feishu_env(tmp_path, fake) | {"GPU_ADVISOR_FEISHU_APP_SECRET": "wrong-secret-value"}
        result = subprocess.run(
            [sys.executable, "-m", "bot", "serve", "--port", "0"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode != 0
        assert "GPU_ADVISOR_FEISHU_APP_SECRET" in result.stderr + result.stdout
        assert "wrong-secret-value" not in result.stderr + result.stdout


GROUP, OWNER = "oc_5ad11d72b830411d72b836c20b1c0f4e", "ou_7d8a6e6df7621556ce0d21922b676706"
SNOOZE = {"behaviors": [{"type": "callback", "value": {"action": "rental_snooze_week", "value": "i:box-1"}}]}


ON_LINUX = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="finds the work process through /proc")


@contextmanager
def frozen_work_process(tmp_path: Path) -> Iterator[tuple[FakeFeishu, FeishuSender, int]]:
    """serve on Feishu with a work process, an item of OWNER's tracked in GROUP, and the work process frozen."""
    from bot.server.work_process import PROCESS_NAME
    from tests.support.processes import child_pids

    with fake_feishu() as fake:
        env = feishu_env(tmp_path, fake)
        with serve_process(env, working=True) as (slack, proc):
            send = FeishuSender(f"{base_of(slack.url)}/feishu/events", ENCRYPT_KEY, VERIFICATION_TOKEN)
            track = ["track", "instance", "box-1", "--team", f"feishu:{send.tenant}", "--gpu", "A100-80GB",
                     "--price", "10/h", "--channel", GROUP, "--owner", OWNER]  # fmt: skip
            subprocess.run([sys.executable, "-m", "bot", *track], env=env, check=True, capture_output=True)
            [work] = _work_process(proc.pid, PROCESS_NAME, child_pids)
            os.kill(work, signal.SIGSTOP)
            try:
                yield fake, send, work
            finally:
                with suppress(ProcessLookupError):
                    os.kill(work, signal.SIGCONT)


@ON_LINUX
def test_a_press_is_answered_by_the_front_door_and_done_by_the_work_process(tmp_path: Path) -> None:
    """Issue 50: the front door keeps the press, answers it with its toast and hands its work to serve's work
    process, as a message's (its work in the front door slowed the next presses' answers). With the work process
    frozen, the toast still comes and the card waits; thawed, it is patched once."""
    with frozen_work_process(tmp_path) as (fake, send, work):
        answer = send.press(SNOOZE, user=OWNER, chat=GROUP, message_id="om_digest")
        assert answered_at_once(answer)
        time.sleep(0.5)
        assert fake.of("messages.patch") == []  # the front door did not send it
        os.kill(work, signal.SIGCONT)
        fake.wait_for(lambda: fake.of("messages.patch"))
        time.sleep(0.5)
    [patched] = fake.of("messages.patch")
    assert "box-1" in json.dumps(patched.body)


@ON_LINUX
def test_a_press_the_work_process_died_before_doing_is_done_by_the_next_one(tmp_path: Path) -> None:
    """The press is kept before it is handed over: a work process killed before it did it leaves it pending, and
    the one started after it does it, once."""
    with frozen_work_process(tmp_path) as (fake, send, work):
        answer = send.press(SNOOZE, user=OWNER, chat=GROUP, message_id="om_digest")
        assert answered_at_once(answer)
        time.sleep(0.3)  # handed over to the frozen process
        os.kill(work, signal.SIGKILL)
        fake.wait_for(lambda: fake.of("messages.patch"))  # by the next work process, from what was kept
        time.sleep(1.0)
    assert len(fake.of("messages.patch")) == 1


def _work_process(pid: int, name: str, child_pids: Callable[[int], list[int]]) -> list[int]:
    """serve's work process, once /proc shows it among serve's children under its name: read once, it was missing in
    a CI run (a child is listed under the thread that started it, and a name is set just after the fork), so it is
    looked for until it shows, within 30 s."""
    deadline = time.monotonic() + 30
    while not (found := [child for child in child_pids(pid) if comm(child) == name]) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
