"""The agent's loop: sample every `interval`, post what is buffered to /api/heartbeat, keep it on disk
while the bot cannot be reached (bounded: the oldest samples go first), stop when the token is refused."""

from __future__ import annotations

import json
import logging
import os
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
    """The bot answered 401: the token is wrong or its instance was released."""


@dataclass
class Buffer:
    """Samples not yet accepted, in a JSON-lines file, so a restart of the agent loses none."""

    path: Path

    def load(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text("utf-8").splitlines() if line.strip()]

    def save(self, samples: list[dict[str, Any]]) -> None:
        kept = samples[-MAX_BUFFERED:]
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
        out.append({"path": str(root), "size_gb": round(size / 1e9, 3),
                    "newest_mtime": datetime.fromtimestamp(newest, UTC).isoformat() if newest else None})
    return out


def send(client: httpx.Client, url: str, token: str, buffer: Buffer, new: list[dict[str, Any]],
         watched: list[Path]) -> bool:
    """Post the buffered samples and `new`; True when the bot kept them. Raises TokenRefused on 401."""
    pending = buffer.load() + new
    target = url.rstrip("/") + "/api/heartbeat"
    try:
        answer = client.post(target, headers={"Authorization": f"Bearer {token}"},
                             json={"samples": pending, "disks": disks(watched)})
    except httpx.HTTPError as exc:
        log.warning("cannot reach %s: %s; %d samples buffered", target, _reason(exc), len(pending))
        buffer.save(pending)
        return False
    if answer.status_code == 401:
        buffer.save(pending)
        log.error("the bot refused the token (401); %d samples buffered", len(pending))
        raise TokenRefused(answer.text[:200])
    if answer.status_code == 413:  # too much at once: keep the newer half, so the next batches fit
        log.warning("the bot refused %d samples at once as too large; keeping the newest %d", len(pending),
                    len(pending) // 2)
        buffer.save(pending[len(pending) - len(pending) // 2:])
        return False
    if answer.status_code != 202:
        kept = pending if answer.status_code >= 500 else []  # a 4xx body will not get better by resending it
        log.warning("the bot answered %s: %s; %d samples kept for later", answer.status_code, answer.text[:200],
                    len(kept))
        buffer.save(kept)
        return False
    buffer.save([])
    said = answer.json() if answer.headers.get("content-type", "").startswith("application/json") else {}
    log.info("sent %d samples: kept %s, repeated %s, too old %s", len(pending), said.get("kept", "?"),
             said.get("repeated", 0), said.get("too_old", 0))
    return True


def _reason(exc: httpx.HTTPError) -> str:
    """Why a post failed, in a few words: the OS's reason (connection refused) rather than the class name."""
    cause = exc.__cause__ or exc.__context__
    while cause is not None and cause.__cause__ is not None:
        cause = cause.__cause__
    text = str(getattr(cause, "strerror", None) or cause or exc) or type(exc).__name__
    return text.split("] ")[-1].lower() if "Errno" in text else text


def run(url: str, token: str, *, interval: float, watched: list[Path], buffer: Buffer, once: bool,
        client: httpx.Client, sleep: Callable[[float], None] = time.sleep) -> bool:
    """Sample and send until stopped (or once). Returns whether the last send was kept."""
    while True:
        ok = send(client, url, token, buffer, sample(), watched)
        if once:
            return ok
        sleep(interval)
