"""Issue 52, stops that never fire late: an agent whose --on-stop (shutdown) took its box down before it could say so
left the stop pending, and the box someone started next got it with its first heartbeat and shut down at boot. A stop
handed over and followed by silence is settled as a stop; one handed over to a box that has booted since is done,
never handed again."""

from __future__ import annotations

from pathlib import Path

from bot.actions.due import run_actions
from bot.state.actions import Actions
from bot.state.rentals import Rentals
from tests.actions.test_stop_confirmed import beat, requested
from tests.support.slack_harness import running_app


def test_a_box_that_booted_after_its_stop_was_handed_over_is_not_stopped_at_boot(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, token, _message, action = requested(h)  # handed over; the agent's shutdown took the box down at once
        h.clock.advance(minutes=3)  # before the actions job looks again, someone starts the box
        status, said = beat(h, token, h.clock.now, power="on")
        assert status == 202 and "action" not in said  # the old stop is not handed to the box that just booted
        assert Actions(h.deps.store).get(action).status == "done"  # type: ignore[union-attr]
        assert run_actions(h.deps, h.tellers()) == 1
        assert Actions(h.deps.store).get(action).status == "stopped"  # type: ignore[union-attr]
        said_in_channel = " ".join(str(p.get("text")) for p in h.posts(channel="C1"))
        said_in_channel += " ".join(str(u.get("blocks")) for u in h.fake.of("chat.update"))
        assert "started again" in said_in_channel
        running = Rentals(h.deps.store).by_id(inst.id)
        assert running is not None and running.released_at is None  # it runs: an item, not released
        h.clock.advance(minutes=1)
        assert "action" not in beat(h, token, h.clock.now)[1]  # and never asked to stop again


def test_a_box_that_went_quiet_after_its_stop_was_handed_over_is_stopped(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, token, _message, action = requested(h)  # handed over, then nothing: shutdown ran before the answer
        h.clock.advance(minutes=16)  # past the wait for the agent's answer
        assert run_actions(h.deps, h.tellers()) == 1
        assert Actions(h.deps.store).get(action).status == "stopped"  # type: ignore[union-attr]
        stopped = Rentals(h.deps.store).by_id(inst.id)
        assert stopped is not None and stopped.released_by == "bot"
        h.clock.advance(hours=10)  # next morning someone starts it: its first post gets no stop
        status, said = beat(h, token, h.clock.now, power="on")
        assert status == 202 and "action" not in said
        back = Rentals(h.deps.store).by_id(inst.id)
        assert back is not None and back.released_at is None


def test_a_stop_never_handed_over_is_still_said_as_not_taken(tmp_path: Path) -> None:
    from tests.actions.test_stop import past_deadline, warned

    with running_app(tmp_path) as h:
        inst, _token, _message = warned(h)
        past_deadline(h, inst)
        assert run_actions(h.deps, h.tellers()) == 1  # requested; its agent never posts
        h.clock.advance(minutes=16)
        run_actions(h.deps, h.tellers())
        [warning] = [w for w in Actions(h.deps.store).history("T1") if w[0].instance_id == inst.id]
        assert warning[0].status in ("warned", "failed") and "did not take the stop" in (warning[0].detail or "")


def test_a_box_started_again_is_judged_from_its_restart_not_across_its_stopped_stretch(tmp_path: Path) -> None:
    """Issue 52: a box someone started again was judged idle over its own stopped stretch (its cloud's metrics read
    0 % while it was off) and stopped again minutes later. Judged from its restart, it gets a whole window."""
    from datetime import timedelta

    from bot.state.power import PowerLog
    from rules.power import Power
    from tests.actions.test_stop import past_deadline, warned

    with running_app(tmp_path) as h:
        inst, _token, _message = warned(h)
        past_deadline(h, inst)  # idle readings cover the whole window ...
        log = PowerLog(h.deps.store, h.deps.policy.metering)
        log.say(inst.id, Power.OFF, h.clock.now - timedelta(minutes=50), h.clock.now, source="person", by="U1")
        log.say(inst.id, Power.ON, h.clock.now - timedelta(minutes=5), h.clock.now, source="person", by="U1")
        assert run_actions(h.deps, h.tellers()) == 1  # ... but it was off, and started again 5 minutes ago
        [warning] = [w for w, _ in Actions(h.deps.store).history("T1") if w.instance_id == inst.id]
        assert (warning.status, warning.detail) == ("cancelled", "young")


def test_still_needed_on_a_box_warned_again_since_its_stop_is_not_too_late(tmp_path: Path) -> None:
    """Issue 52: Still needed on a running box warned again after an earlier stop said "the stop already ran: start
    it again", though the new warning's stop had not run."""
    from datetime import timedelta

    with running_app(tmp_path) as h:
        inst, token, _message, action = requested(h)
        beat(h, token, None, action_result={"id": action, "ok": True, "detail": "shutdown -h now: exit 0"})
        actions = Actions(h.deps.store)
        h.clock.advance(minutes=6)
        assert run_actions(h.deps, h.tellers()) == 1 and actions.get(action).status == "stopped"  # type: ignore[union-attr]
        assert actions.still_needed(inst.id, h.clock.now) == "too_late"  # the stop it is about has run
        h.clock.advance(minutes=20)  # started again, and warned again by a digest
        again = actions.warn("T1", inst.id, "C1", h.clock.now, h.clock.now + timedelta(hours=4), "9.1")
        assert again is not None
        assert actions.still_needed(inst.id, h.clock.now) is None  # about the new warning: noted, not "too late"


def test_a_tracked_box_whose_agent_reports_is_stoppable_through_it(tmp_path: Path) -> None:
    """Issue 52: a box kept with `track` whose agent runs (with the token `track` printed) was 'never stopped', refused
    each day, though its agent could run --on-stop as an enrolled one does."""
    import json
    from datetime import timedelta

    from tests.actions.test_stop import GRACE, PRICE, digest, past_deadline, quiet

    with running_app(tmp_path) as h:
        rentals = Rentals(h.deps.store)
        fields = {"gpu": "A100-80GB", "cards": 1, "share": None, **PRICE, "channel": "C1", "owner": "U2"}
        typed, token = rentals.track_instance(
            "T1", "typed", fields | {"project": None, "started_at": h.clock.now - timedelta(hours=5)}
        )
        Actions(h.deps.store).set_policy("T1", "C1", "stop", GRACE, by="UADMIN", now=h.clock.now)
        assert beat(h, token, h.clock.now - timedelta(minutes=1), util=0, power="on")[0] == 202  # its agent runs
        quiet(h, typed)
        text = json.dumps(digest(h)["blocks"])
        assert "will be stopped" in text and "cannot stop this one" not in text
        past_deadline(h, typed)
        assert run_actions(h.deps, h.tellers()) == 1
        [warning] = Actions(h.deps.store).open_for([typed.id]).values()
        assert warning.status == "requested"
        assert beat(h, token, None)[1].get("action") == {"id": warning.id, "kind": "stop"}
