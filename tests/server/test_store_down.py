"""Issue 20.12: with the state database down (a database gone, a full disk) heartbeats and Slack requests
get 503 with the reason, not 500; /healthz reports `down` and /metrics still answers, also when the price
cache cannot be opened."""

from __future__ import annotations

import json
import socket
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event

from tests.server.test_front_door import command, get, raw, signed
from tests.server.test_heartbeat import beat, sample, tracked
from tests.support.slack_harness import Harness, running_app


def full_disk(h: Harness) -> None:
    """The state file may not grow by a page: SQLite answers SQLITE_FULL ("database or disk is full"), as it
    does on a full disk."""
    db = Path(h.deps.store.engine.url.database or "")
    with sqlite3.connect(db) as conn:
        conn.execute("VACUUM")  # no free pages left inside the file to write into
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
    engine = create_engine(f"sqlite:///{db}", connect_args={"check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _cap(dbapi: Any, _record: Any) -> None:
        dbapi.execute(f"PRAGMA max_page_count = {pages}")

    h.deps.store.engine = engine


def test_a_full_disk_answers_503_with_the_reason_and_keeps_nothing(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rentals, inst, token = tracked(h)
        full_disk(h)
        many = [sample(h.clock.now - timedelta(seconds=10 * i), gpu=i % 8) for i in range(400)]
        status, body = beat(h, {"samples": many}, token)
        assert status == 503 and "again" in body["error"]
        assert rentals.samples(inst, h.clock.now - timedelta(days=1)) == []
        text = "help " + "x" * 6000  # a request that needs new pages in the inbox
        status, said = raw(h, command(text), signed(command(text)))
        assert status == 503 and "full" in said


def test_a_database_gone_answers_503_and_healthz_says_down(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        _, _, token = tracked(h)
        h.deps.store.engine = create_engine(f"sqlite:///{tmp_path}/gone/state.db")
        assert beat(h, {"samples": [sample(h.clock.now)]}, token)[0] == 503
        status, said = raw(h, command("help"), signed(command("help")))
        assert status == 503 and "unable to open database file" in said
        status, report = get(h, "/healthz")
        assert status == 503 and json.loads(report)["checks"]["state_db"].startswith("unreachable: unable to open")
        status, metrics = get(h, "/metrics")
        assert status == 200 and "gpu_advisor" in metrics


def test_a_price_cache_that_cannot_be_opened_is_down_in_healthz_and_metrics_still_answer(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        cache = Path(h.deps.settings.files.db)
        for leftover in cache.parent.glob(cache.name + "-*"):
            leftover.unlink()
        cache.write_bytes(b"not a database at all" * 100)
        status, report = get(h, "/healthz")
        body = json.loads(report)
        assert status == 503 and body["status"] == "down"
        assert body["checks"]["price_cache"].startswith("unreadable: file is not a database")
        assert body["checks"]["state_db"] == "ok"
        status, metrics = get(h, "/metrics")
        assert status == 200 and "gpu_advisor" in metrics


def test_postgresql_stopped_answers_503_not_500(tmp_path: Path, pg_url: str) -> None:
    with running_app(tmp_path, database_url=pg_url) as h:
        rentals, inst, token = tracked(h)
        live = h.deps.store.engine
        # the server stops: nothing listens where it was (a port no one holds), as after `pg_ctl stop`
        h.deps.store.engine = create_engine(live.url.set(port=free_port()))
        assert beat(h, {"samples": [sample(h.clock.now)]}, token)[0] == 503
        status, said = raw(h, command("help"), signed(command("help")))
        assert status == 503 and "unavailable" in said
        status, report = get(h, "/healthz")
        assert status == 503 and json.loads(report)["status"] == "down"
        h.deps.store.engine = live  # back up: the same heartbeat is kept
        assert beat(h, {"samples": [sample(h.clock.now)]}, token)[0] == 202
        assert len(rentals.samples(inst, h.clock.now - timedelta(days=1))) == 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
