"""The agent's loop: sample every `interval`, post what is buffered to /api/heartbeat, keep it on disk
while the bot cannot be reached (bounded: the oldest samples go first), stop when the token is refused."""

from __future__ import annotations

import json
import logging
import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from bot.agent.sampler import sample

log = logging.getLogger(__name__)
MAX_BUFFERED = 24 * 60 * 8  # a day of one-minute samples of 8 GPUs (the bot keeps samples up to 24 h old)


class TokenRefused(RuntimeError):
    """The bot answered 401 (the token is wrong or its instance was released), or the token cannot be one
    the bot issued (not printable ASCII, or with spaces)."""


def usable_token(token: str) -> bool:
    """Heartbeat tokens are URL-safe text: printable ASCII without spaces."""
    return bool(token) and token.isascii() and token.isprintable() and not any(c.isspace() for c in token)


@dataclass
class Buffer:
    """Samples not yet accepted, in a JSON-lines file, so a restart of the agent loses none."""

    path: Path

    def load(self) -> list[dict[str, Any]]:
        """The buffered samples; a line that is not one (a truncated write, garbage) is skipped and said."""
        if not self.path.exists():
            return []
        kept, bad = [], 0
        for line in self.path.read_text("utf-8", errors="replace").splitlines():
            try:
                sample = json.loads(line) if line.strip() else None
            except ValueError:
                sample = None
            if isinstance(sample, dict):
                kept.append(sample)
            elif line.strip():
                bad += 1
        if bad:
            log.warning(
                "%d lines of %s are not samples (a truncated write?): skipped; %d kept", bad, self.path, len(kept)
            )
        return kept

    def check(self) -> None:
        """OSError unless the buffer can be written (it is not a folder, its folder exists and is writable)."""
        with self.path.open("a", encoding="utf-8"):
            pass  # opening for append is the check (touch() would not test write permission); nothing written

    def save(self, samples: list[dict[str, Any]]) -> None:
        kept = samples[-MAX_BUFFERED:]
        if len(samples) > MAX_BUFFERED:  # the oldest go: said once a save, never a silent pile of junk
            log.warning(
                "the buffer keeps the newest %d samples: %d older ones dropped", MAX_BUFFERED, len(samples) - len(kept)
            )
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps(s) + "\n" for s in kept), "utf-8")
        os.replace(tmp, self.path)


def disks(paths: list[Path]) -> list[dict[str, Any]]:
    out = []
    for root in paths:
        size, newest = 0, 0.0
        for folder, _, files in os.walk(root):
            for name in files:
                try:
                    stat = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                size, newest = size + stat.st_size, max(newest, stat.st_mtime)
        out.append(
            {
                "path": str(root),
                "size_gb": round(size / 1e9, 3),
                "newest_mtime": datetime.fromtimestamp(newest, UTC).isoformat() if newest else None,
            }
        )
    return out


MAX_DROPS = 20  # samples a post may drop, one at a time, as the bot names them invalid


def send(
    client: httpx.Client,
    url: str,
    token: str,
    buffer: Buffer,
    new: list[dict[str, Any]],
    watched: list[Path],
    extra: dict[str, Any] | None = None,
    answered: Callable[[dict[str, Any]], None] | None = None,
) -> bool:
    """Post the buffered samples and `new`; True when the bot kept them. Raises TokenRefused on 401.
    A 400 naming one sample (`samples[7].utilization_pct`) drops that sample alone, logs it, and posts
    the rest again: one bad reading never costs the others."""
    pending = buffer.load() + new
    for _ in range(MAX_DROPS):
        answer = _post(client, url, token, buffer, pending, watched, extra)
        if answer is None or answer.status_code != 400:
            break
        index = _bad_sample(answer)
        if index is None or index >= len(pending):
            break
        log.warning(
            "the bot refused sample %d (%s): dropped it; %d samples left to send",
            index,
            _said(answer),
            len(pending) - 1,
        )
        pending = pending[:index] + pending[index + 1 :]
    if answer is None:
        return False
    return _settle(answer, buffer, pending, answered)


def _said(answer: httpx.Response) -> str:
    try:
        body = answer.json()
    except ValueError:
        return answer.text[:200]
    return str(body.get("error", answer.text))[:200] if isinstance(body, dict) else answer.text[:200]


def _bad_sample(answer: httpx.Response) -> int | None:
    """The index of the sample a 400 names (`samples[7]...`), if it names one."""
    try:
        field = str(answer.json().get("field", ""))
    except (ValueError, AttributeError):
        return None
    head = field.removeprefix("samples[")
    number = head.split("]", 1)[0]
    return int(number) if head != field and number.isdigit() else None


def _post(
    client: httpx.Client,
    url: str,
    token: str,
    buffer: Buffer,
    pending: list[dict[str, Any]],
    watched: list[Path],
    extra: dict[str, Any] | None = None,
) -> httpx.Response | None:
    """One post of `pending`; None (after buffering it) when the bot could not be reached."""
    target = url.rstrip("/") + "/api/heartbeat"
    try:
        return client.post(
            target,
            headers={"Authorization": f"Bearer {token}"},
            json={"samples": pending, "disks": disks(watched), **(extra or {})},
        )
    except httpx.HTTPError as exc:
        log.warning("cannot reach %s: %s; %d samples buffered", target, _reason(exc), len(pending))
        buffer.save(pending)
        return None


def _settle(
    answer: httpx.Response,
    buffer: Buffer,
    pending: list[dict[str, Any]],
    answered: Callable[[dict[str, Any]], None] | None = None,
) -> bool:
    """What the bot's answer means for the buffer: emptied when kept, kept when it may get through later."""
    if answer.status_code == 401:
        buffer.save(pending)
        log.error("the bot refused the token (401); %d samples buffered", len(pending))
        raise TokenRefused(answer.text[:200])
    if answer.status_code == 413:  # too much at once: keep the newer half, so the next batches fit
        log.warning(
            "the bot refused %d samples at once as too large; keeping the newest %d", len(pending), len(pending) // 2
        )
        buffer.save(pending[len(pending) - len(pending) // 2 :])
        return False
    if answer.status_code != 202:  # kept for later, never dropped silently: a 400 naming no sample may be ours
        log.warning(
            "the bot answered %s: %s; %d samples kept for later", answer.status_code, _said(answer), len(pending)
        )
        buffer.save(pending)
        return False
    buffer.save([])
    said = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else {}
    log.info(
        "sent %d samples: kept %s, repeated %s, too old %s",
        len(pending),
        said.get("kept", "?"),
        said.get("repeated", 0),
        said.get("too_old", 0),
    )
    if answered is not None and isinstance(said, dict):
        answered(said)
    return True


def _reason(exc: httpx.HTTPError) -> str:
    """Why a post failed, in a few words: the OS's reason (connection refused) rather than the class name."""
    cause = exc.__cause__ or exc.__context__
    while cause is not None and cause.__cause__ is not None:
        cause = cause.__cause__
    text = str(getattr(cause, "strerror", None) or cause or exc) or type(exc).__name__
    return text.split("] ")[-1].lower() if "Errno" in text else text


class PowerOff(Exception):
    """SIGTERM: the box is shutting down (systemd sends it at shutdown, and after an --on-stop command)."""


def _on_sigterm(signum: int, frame: object) -> None:
    # a second SIGTERM (systemd's, or an impatient person's) waits for the "off" post, which the client's timeout
    # bounds, instead of ending the agent with a traceback before the bot hears it
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise PowerOff


def run(
    url: str,
    token: str,
    *,
    interval: float,
    watched: list[Path],
    buffer: Buffer,
    once: bool,
    client: httpx.Client,
    sleep: Callable[[float], None] = time.sleep,
    on_stop: str | None = None,
    source: str | None = None,
) -> bool:
    """Sample and send until stopped (or once). Returns whether the last send was kept. A stop the bot asks
    for (in a heartbeat's answer) runs `on_stop` once and its result is sent at once (else with the next post).
    The first post says the box is on; SIGTERM sends one last post saying it is off, then returns."""
    if not usable_token(token):
        log.error("the token cannot be one the bot issued (it has spaces or characters beyond ASCII)")
        raise TokenRefused("not a token")
    stops = Stops(on_stop)
    power: dict[str, Any] | None = {"power": "on", "power_at": _now()}
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        while True:
            extra = {**(stops.report() or {}), **(power or {})}
            ok = send(client, url, token, buffer, sample(source=source), watched, extra or None, stops.asked)
            if ok:
                power = None
            if stops.pending is not None and send(client, url, token, buffer, [], watched, stops.report(), stops.asked):
                stops.pending = None
            if once:
                return ok
            sleep(interval)
    except PowerOff:
        log.warning("SIGTERM: telling the bot this box is going off")
        return send(client, url, token, buffer, [], watched, {"power": "off", "power_at": _now()}, None)
    finally:
        if previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, previous)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


ON_STOP_TIMEOUT_S = 300
ON_STOP_RETRY_S = 10.0


class Stops:
    """The stops the bot asked for: each run once (`--on-stop`), and once more `retry_after_s` later when it fails
    (a busy package manager holding shutdown, a sudo that timed out); its result kept until the bot has it."""

    def __init__(self, command: str | None, retry_after_s: float = ON_STOP_RETRY_S) -> None:
        self.command, self.done = command, set[int]()
        self.retry_after_s = retry_after_s
        self.pending: dict[str, Any] | None = None

    def asked(self, said: dict[str, Any]) -> None:
        action = said.get("action")
        if said.get("action_result") == "kept":
            self.pending = None
        if not isinstance(action, dict) or action.get("kind") != "stop" or not isinstance(action.get("id"), int):
            return
        if action["id"] in self.done:
            return
        self.done.add(action["id"])
        result = self._run()
        if not result["ok"] and self.command:
            log.warning("the stop command failed (%s): trying once more in %gs", result["detail"], self.retry_after_s)
            time.sleep(self.retry_after_s)
            again = self._run()
            result = {**again, "detail": f"tried twice; first: {result['detail']}; then: {again['detail']}"[:2000]}
        self.pending = {"id": action["id"], **result}

    def report(self) -> dict[str, Any] | None:
        return {"action_result": self.pending} if self.pending is not None else None

    def _run(self) -> dict[str, Any]:
        if not self.command:
            log.warning("the bot asked this box to stop, but no --on-stop command was given: not acting")
            return {"ok": False, "detail": "no --on-stop command given: the agent does not act on its own"}
        log.warning("the bot asked this box to stop: running %s", self.command)
        try:
            done = subprocess.run(
                shlex.split(self.command), capture_output=True, text=True, errors="replace", timeout=ON_STOP_TIMEOUT_S
            )
        except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
            return {"ok": False, "detail": f"{self.command}: {type(exc).__name__}: {exc}"[:2000]}
        said = (done.stderr or done.stdout).strip()[:500]
        detail = f"{self.command}: exit {done.returncode}" + (f": {said}" if said else "")
        return {"ok": done.returncode == 0, "detail": detail}
