"""Issue 34.4b and 34.16: an agent's "stop command ran" is not a stop. The bot calls a box stopped once it has gone
quiet; a box that keeps reporting is not stopped (never "saved", its token kept), and a box the bot stopped that
is started again is an item again: its agent's token still works, so the same agent command runs again."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

from bot.actions.due import run_actions
from bot.state.actions import Actions
from bot.state.rentals import Rentals
from tests.actions.test_stop import past_deadline, told, warned
from tests.support.slack_harness import Harness, running_app


def beat(
    h: Harness, token: str, at: datetime | None = None, util: float = 90, **extra: Any
) -> tuple[int, dict[str, Any]]:
    """One heartbeat as the agent posts it: a sample of one card at `at` (none when None), and `extra`."""
    samples = [] if at is None else [{"ts": at.isoformat(), "gpu": 0, "utilization_pct": util}]
    for s in samples:
        s |= {"memory_used_mib": 60000, "memory_total_mib": 81920}
    body = json.dumps({"samples": samples, **extra}).encode()
    request = urllib.request.Request(
        h.base_url + "/api/heartbeat",
        data=body,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def requested(h: Harness) -> tuple[Any, str, dict[str, Any], int]:
    inst, token, message = warned(h)
    past_deadline(h, inst)
    assert run_actions(h.deps, h.tellers()) == 1
    [warning] = Actions(h.deps.store).open_for([inst.id]).values()
    assert warning.status == "requested"
    status, said = beat(h, token, None)  # the agent's next post gets the stop
    assert status == 202 and said["action"] == {"id": warning.id, "kind": "stop"}
    return inst, token, message, warning.id


def test_a_box_that_keeps_reporting_after_its_stop_command_is_not_stopped(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, token, message, action = requested(h)
        status, said = beat(h, token, None, action_result={"id": action, "ok": True, "detail": "stop: exit 0"})
        assert status == 202 and said["action_result"] == "kept"
        for _ in range(2):  # and it goes on working
            h.clock.advance(minutes=3)
            assert beat(h, token, h.clock.now)[0] == 202
        run_actions(h.deps, h.tellers())
        after = Actions(h.deps.store).get(action)
        assert after is not None and after.status in ("warned", "failed")
        assert "kept reporting" in (after.detail or "")
        kept = Rentals(h.deps.store).by_id(inst.id)
        assert kept is not None and kept.released_at is None  # still an item, still billed
        assert beat(h, token, h.clock.now)[0] == 202  # its token was kept: the box stays watched
        updates = [u for u in h.fake.of("chat.update") if u.get("ts") == message["_ts"]]
        assert not any("a day saved" in json.dumps(u.get("blocks"), ensure_ascii=False) for u in updates)
        assert not h.posts(channel="U1")  # its owner was never told it was stopped


def test_a_box_that_went_quiet_is_stopped_and_comes_back_when_started_again(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, token, message, action = requested(h)
        beat(h, token, None, action_result={"id": action, "ok": True, "detail": "shutdown -h now: exit 0"})
        beat(h, token, None, power="off")  # what the agent says on SIGTERM
        assert run_actions(h.deps, h.tellers()) == 0  # not yet confirmed
        h.clock.advance(minutes=6)
        assert run_actions(h.deps, h.tellers()) == 1
        assert Actions(h.deps.store).get(action).status == "stopped"  # type: ignore[union-attr]
        stopped = Rentals(h.deps.store).by_id(inst.id)
        assert stopped is not None and stopped.released_by == "bot"
        assert "a day saved" in told(h, message)
        # the next morning someone starts the box: the same agent command (same token) reports again
        h.clock.advance(hours=12)
        status, said = beat(h, token, h.clock.now, power="on")
        assert status == 202, said
        back = Rentals(h.deps.store).by_id(inst.id)
        assert back is not None and back.released_at is None and back.owner == inst.owner
        assert inst.name in [i.name for i in Rentals(h.deps.store).instances("T1", active_only=True)]


def test_a_token_of_a_box_released_by_a_person_stays_refused(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, token, _ = warned(h)
        Rentals(h.deps.store).release("T1", inst.name, h.clock.now, by="U1")
        assert beat(h, token, h.clock.now)[0] == 401


def test_still_needed_pressed_once_a_stop_is_requested_calls_it_off(tmp_path: Path) -> None:
    """Issue 34.4a: the press let the next heartbeat answer carry the stop all the same."""
    with running_app(tmp_path) as h:
        inst, token, message = warned(h)
        past_deadline(h, inst)
        assert run_actions(h.deps, h.tellers()) == 1  # requested of its agent, not taken yet
        [warning] = Actions(h.deps.store).open_for([inst.id]).values()
        assert warning.status == "requested"
        h.send.click(message, "rental_still_needed", user="U1", value=inst.name)
        h.fake.wait_for(lambda: [u for u in h.fake.of("chat.update") if "still needed" in json.dumps(u)])
        assert Actions(h.deps.store).get(warning.id).status == "cancelled"  # type: ignore[union-attr]
        status, said = beat(h, token, h.clock.now, util=0)
        assert status == 202 and "action" not in said  # the agent is not asked to stop


def test_still_needed_after_the_box_ran_its_stop_is_told_it_came_too_late(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, token, message, action = requested(h)
        beat(h, token, None, action_result={"id": action, "ok": True, "detail": "shutdown -h now: exit 0"})
        h.send.click(message, "rental_still_needed", user="U1", value=inst.name)
        updated = h.fake.wait_for(
            lambda: [u for u in h.fake.of("chat.update") if "stop command had already run" in json.dumps(u)]
        )
        assert "start it again" in json.dumps(updated[-1])
