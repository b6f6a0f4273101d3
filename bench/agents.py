"""Agents beside the users of bench/load.py: N instances tracked in the state database before serve starts, each
with its own heartbeat token, posting a heartbeat of eight GPUs' samples every `every` seconds (the agent's
default is 60 s), spread evenly, over HTTP to /api/heartbeat, for as long as the users' run lasts, from a process of
their own (a fleet is other machines)."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.state import Store
from bot.state.rentals import Rentals
from tests.support.state_template import migrated_state_db

FIELDS = {"gpu": "A100-80GB", "cards": 8, "share": None, "unit": "hour", "price": 100.0, "currency": "CNY"}


def tracked(db: Path, count: int) -> list[str]:
    """`count` instances tracked in a fresh state database at `db`: their heartbeat tokens."""
    rentals = Rentals(Store(migrated_state_db(db)))
    started = datetime.now(UTC) - timedelta(hours=1)
    tokens = []
    for n in range(count):
        _, token = rentals.track_instance(
            "T1", f"box-{n}", FIELDS | {"channel": f"C{n % 50}", "owner": f"U{n % 50}", "started_at": started}
        )
        tokens.append(token)
    rentals.store.engine.dispose()
    return tokens


def beat(url: str, token: str) -> int:
    now = datetime.now(UTC).isoformat()
    samples = [
        {"ts": now, "gpu": g, "utilization_pct": 90, "memory_used_mib": 60000, "memory_total_mib": 81920}
        for g in range(8)
    ]
    request = urllib.request.Request(
        url,
        data=json.dumps({"samples": samples}).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0


def _post_until_told(url: str, tokens: list[str], every: float, conn: Any) -> None:
    """The fleet, in its own process: posts until the bench says stop, then sends back the answers' counts."""
    statuses: dict[int, int] = {}
    stop = threading.Event()
    lock = threading.Lock()
    gap = every / max(1, len(tokens))

    def loop() -> None:
        with ThreadPoolExecutor(32) as pool:
            n = 0
            next_at = time.monotonic()
            while not stop.is_set():
                token = tokens[n % len(tokens)]
                n += 1

                def one(token: str = token) -> None:
                    status = beat(url, token)
                    with lock:
                        statuses[status] = statuses.get(status, 0) + 1

                pool.submit(one)
                next_at += gap
                stop.wait(max(0.0, next_at - time.monotonic()))

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    conn.send("posting")
    conn.recv()  # stop
    stop.set()
    thread.join(timeout=60)
    with lock:
        conn.send(dict(statuses))


@contextmanager
def posting(url: str, tokens: list[str], every: float) -> Iterator[dict[int, int]]:
    """The agents posting until the block ends; yields the count of answers by HTTP status (0: no answer), filled
    when the block ends. The agents run in their own process, as a fleet of boxes is elsewhere: in the bench's
    process their threads would take the GIL from the users' threads, whose clocks measure the acknowledgements."""
    import multiprocessing

    statuses: dict[int, int] = {}
    ours, theirs = multiprocessing.Pipe()
    fleet = multiprocessing.get_context("fork").Process(
        target=_post_until_told, args=(url, tokens, every, theirs), daemon=True
    )
    fleet.start()
    ours.recv()  # posting
    try:
        yield statuses
    finally:
        ours.send("stop")
        if ours.poll(90):
            statuses.update(ours.recv())
        fleet.join(timeout=10)
