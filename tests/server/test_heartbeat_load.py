"""Issue 20.9: agents sending buffered samples at once must not starve Slack: every command sent meanwhile
is acknowledged with its work, none answered "busy". (A guard at a size the suite can afford; the lock's
order and the batches are tested directly in tests/state/test_write_lock.py.)"""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from pathlib import Path
from typing import Any

from bot.state.rentals import Rentals
from tests.server.test_front_door import command, raw, signed
from tests.server.test_heartbeat import FIELDS, beat, sample
from tests.support.slack_harness import running_app


def test_commands_during_big_heartbeats_are_not_answered_busy(tmp_path: Path) -> None:
    with running_app(tmp_path, ack_db_budget_s=0.5) as h:
        rentals = Rentals(h.deps.store)
        tokens = [
            rentals.track_instance("T1", f"box-{i}", FIELDS | {"started_at": h.clock.now - timedelta(days=1)})[1]
            for i in range(10)
        ]
        day = [sample(h.clock.now - timedelta(seconds=10 * n), gpu=n % 8) for n in range(2400)]
        beats: list[tuple[int, dict[str, Any]]] = []
        agents = [
            threading.Thread(target=lambda tok=token: beats.append(beat(h, {"samples": day}, tok))) for token in tokens
        ]
        for agent in agents:
            agent.start()
        ids = [i.id for i in rentals.instances("T1")]
        h.fake.wait_for(lambda: any(rentals.recent(ids, h.clock.now - timedelta(days=1)).values()))  # writing
        acks: list[tuple[int, str]] = []

        def ack(n: int) -> None:
            body = command("help", response_url=h.fake.response_url(str(n)))
            acks.append(raw(h, body, signed(body)))

        people = [threading.Thread(target=ack, args=(n,)) for n in range(8)]
        for person in people:
            person.start()
        for person in people:
            person.join(30)
        for agent in agents:
            agent.join(60)
        assert [status for status, _ in beats] == [202] * 10 and all(b["kept"] == 2400 for _, b in beats)
        assert all(status == 200 for status, _ in acks)
        assert not any("busy" in text for _, text in acks), [json.loads(t or "{}") for _, t in acks if t]
