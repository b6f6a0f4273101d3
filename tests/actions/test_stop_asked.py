"""A stop asked for at a time (`stop NAME at=…`): the bot stopped a box only when its idle policy said so, so a job
known to end at nine ran, billed, until someone woke up. At the time asked for, `actions:due` stops it as asked,
busy or not (a person's word, not idleness judged), through its agent (the heartbeat's answer) or its cloud (moto),
and says it was asked; a box the bot cannot stop (tracked by hand) has its owner told instead; one asked for a
reminder only is told and never stopped; a stop called off, or replaced by another time, does nothing."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.actions.due import run_actions
from bot.state.actions import Actions
from bot.state.rentals import Rentals
from tests.actions.test_stop import GRACE, PRICE, aws_instance, enrolled, quiet
from tests.actions.test_stop_confirmed import beat
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI
from tests.support.slack_harness import Harness, running_app


def reply(h: Harness, text: str, user: str = "U1") -> str:
    """What `/gpu-advise TEXT` answers, by its response URL."""
    n = len(h.fake.of("response_url")) + 1
    h.send.command(text, user=user, response_url=h.fake.response_url(str(n)))
    answers = h.fake.wait_for(lambda: (r := h.fake.of("response_url")) and len(r) >= n and r)
    return str(answers[n - 1]["text"])


def test_a_busy_box_is_stopped_by_its_agent_at_the_time_asked_and_said_as_asked(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, token = enrolled(h)
        quiet(h, inst, util=95)  # busy: the idle policy would never stop it
        said = reply(h, "stop box-1 at=in 2h")
        assert "will be stopped at" in said and "through its agent" in said and "`stop box-1 cancel`" in said
        assert "A stop is asked for" in reply(h, "power box-1") and "<@U1>" in reply(h, "stop")
        assert run_actions(h.deps, h.tellers()) == 0  # not yet
        h.clock.advance(hours=2, minutes=1)
        quiet(h, inst, minutes=60, util=95)
        assert run_actions(h.deps, h.tellers()) == 1
        [warning] = Actions(h.deps.store).open_for([inst.id]).values()
        assert (warning.status, warning.asked_by) == ("requested", "U1")  # busy, and stopped all the same
        status, answer = beat(h, token, None)
        assert status == 202 and answer["action"] == {"id": warning.id, "kind": "stop"}
        beat(h, token, None, action_result={"id": warning.id, "ok": True, "detail": "shutdown: exit 0"})
        h.clock.advance(minutes=6)  # gone quiet since: stopped
        assert run_actions(h.deps, h.tellers()) == 1
        assert Actions(h.deps.store).get(warning.id).status == "stopped"  # type: ignore[union-attr]
        assert Rentals(h.deps.store).by_id(inst.id).released_by == "bot"  # type: ignore[union-attr]
        [told] = [p["text"] for p in h.posts(channel="C1") if "as <@U1> asked" in p.get("text", "")]
        assert "Stopped *box-1*" in told and "¥400 a day saved" in told
        [dm] = h.posts(channel="U1")
        assert "at the time asked for" in dm["text"]
        assert "stop asked for" not in reply(h, "actions box-1")  # the audit says what became of it
        assert "stopped, no longer billed" in reply(h, "actions box-1")


def test_a_stop_called_off_or_asked_again_acts_once_at_the_last_time(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, _ = enrolled(h)
        quiet(h, inst, util=95)
        reply(h, "stop box-1 at=in 1h")
        assert "replaces the stop that was due" in reply(h, "stop box-1 at=in 3h")
        assert "is called off" in reply(h, "stop box-1 cancel")
        assert "No stop is asked for" in reply(h, "stop box-1 cancel")  # nothing left to call off
        h.clock.advance(hours=4)
        assert run_actions(h.deps, h.tellers()) == 0  # nothing due: each was cancelled
        details = sorted(w.detail or "" for w, _ in Actions(h.deps.store).history("T1"))
        assert details == ["asked_again", "called_off"]
        assert "called off" in reply(h, "actions box-1")


def test_a_stop_asked_replaces_an_idle_warning_and_one_under_way_is_said(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, _ = enrolled(h)
        Actions(h.deps.store).set_policy("T1", "C1", "stop", GRACE, by="UADMIN", now=h.clock.now)
        quiet(h, inst)
        assert h.send_digest().status == "sent"  # the idle policy's warning: stopped in 30 minutes
        assert "replaces the stop that was due" in reply(h, "stop box-1 at=in 5m")
        h.clock.advance(minutes=6)
        quiet(h, inst, minutes=60)
        assert run_actions(h.deps, h.tellers()) == 1  # asked of its agent
        assert "already under way" in reply(h, "stop box-1 at=in 1h")
        assert "already under way" in reply(h, "stop box-1")


def test_a_box_tracked_by_hand_has_its_owner_told_at_the_time_and_nothing_now(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rentals = Rentals(h.deps.store)
        fields: dict[str, Any] = {"gpu": "A100-80GB", "cards": 1, "share": None, **PRICE, "channel": "C1"}
        rentals.track_instance(
            "T1", "typed", fields | {"owner": "U2", "project": None, "started_at": h.clock.now - timedelta(hours=2)}
        )
        assert "cannot stop *typed*" in reply(h, "stop typed", user="U2")  # now: nothing kept, what to do said
        assert Actions(h.deps.store).history("T1") == []
        assert "Only <@U2> (its owner) or a workspace admin" in reply(h, "stop typed at=in 1h", user="U9")
        assert Actions(h.deps.store).history("T1") == []  # someone else's box: refused
        said = reply(h, "stop typed at=in 1h", user="U2")
        assert "cannot stop *typed*" in said and "its owner <@U2> will be told here" in said
        h.clock.advance(hours=1, minutes=1)
        assert run_actions(h.deps, h.tellers()) == 1
        [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
        assert (warning.status, warning.detail) == ("reminded", "not_stoppable")
        [told] = [p["text"] for p in h.posts(channel="C1") if "asked for *typed* to be stopped" in p.get("text", "")]
        assert "<@U2>" in told and "`power typed off`" in told
        assert rentals.by_id(warning.instance_id).released_at is None  # type: ignore[union-attr]
        assert run_actions(h.deps, h.tellers()) == 0  # told once
        assert "*typed* is off from now" in reply(h, "power typed off", user="U2")  # what it suggests works


def test_a_reminder_only_never_stops_a_box_the_bot_could_stop(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, token = enrolled(h)
        quiet(h, inst)
        said = reply(h, "stop box-1 at=in 1h remind")
        assert "Its owner <@U1> will be told here at " in said and "to stop *box-1*; the bot stops nothing" in said
        h.clock.advance(hours=1, minutes=1)
        quiet(h, inst, minutes=60)
        assert run_actions(h.deps, h.tellers()) == 1
        [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
        assert (warning.status, warning.detail) == ("reminded", "remind")
        [told] = [p["text"] for p in h.posts(channel="C1") if "asked to be reminded" in p.get("text", "")]
        assert "`stop box-1`" in told
        status, answer = beat(h, token, None)
        assert status == 202 and "action" not in answer  # its agent is never asked to stop
        assert "within a minute, through its agent" in reply(h, "stop box-1")  # what it suggests works


@pytest.mark.parametrize(
    ("asked", "refused"),
    [
        ("stop box-1 at=yesterday 9:00", "is not a time to come"),
        ("stop box-1 at=in 40d", "more than 31 days off"),
        ("stop box-1 at=soon", "is not a time to come"),
        ("stop box-1 remind", "Use `stop NAME`"),
        ("stop nobox at=in 1h", "nobox"),
    ],
)
def test_a_time_not_to_come_or_a_box_not_there_is_refused_and_nothing_kept(
    tmp_path: Path, asked: str, refused: str
) -> None:
    with running_app(tmp_path) as h:
        enrolled(h)
        assert refused in reply(h, asked)
        assert Actions(h.deps.store).history("T1") == []


def test_an_aws_instance_asked_to_stop_now_is_stopped_in_the_cloud(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with aws_instance(tmp_path, monkeypatch) as (h, client, box, inst):
        h.fake.admins.add("UADMIN")
        said = reply(h, f"stop {box} now", user="UADMIN")  # an admin's, as `power` is; now said or not
        assert "within a minute" in said and "through its cloud" in said
        assert run_actions(h.deps, h.tellers()) == 1
        state = client.describe_instances(InstanceIds=[box])["Reservations"][0]["Instances"][0]["State"]["Name"]
        assert state in ("stopping", "stopped")
        [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
        assert warning.status == "stopped" and warning.asked_by == "UADMIN"
        assert Rentals(h.deps.store).by_id(inst.id).released_by == "bot"  # type: ignore[union-attr]
        assert any("as <@UADMIN> asked" in p.get("text", "") for p in h.posts(channel="C1"))


def test_the_digest_says_a_stop_asked_for_in_a_notify_channel_and_not_a_reminder(tmp_path: Path) -> None:
    import json

    with running_app(tmp_path) as h:
        inst, _ = enrolled(h)
        quiet(h, inst)  # idle, in a `notify` channel: listed, with no stop time of the idle policy's
        reply(h, "stop box-1 at=in 3h")
        outcome = h.send_digest()
        assert outcome.status == "sent", outcome
        text = json.dumps(h.posts(channel="C1")[-1]["blocks"], ensure_ascii=False)
        assert "It will be stopped at" in text  # the time asked for, where people read what is idle
        reply(h, "stop box-1 at=in 3h remind")  # a reminder alone stops nothing: no stop time said
        h.clock.advance(days=1)
        quiet(h, inst)
        assert h.send_digest().status == "sent"
        assert "will be stopped" not in json.dumps(h.posts(channel="C1")[-1]["blocks"], ensure_ascii=False)


def test_a_stop_once_idle_waits_while_busy_then_stops_as_soon_as_the_idle_rule_says_idle(tmp_path: Path) -> None:
    """`训练机 跑完就关`, `stop box1 once idle`: the job's end is not known to the minute, its idleness is."""
    import json

    with running_app(tmp_path) as h:
        inst, _ = enrolled(h)
        quiet(h, inst, util=95)  # its job runs
        said = reply(h, "stop box-1 once idle")
        assert "will be stopped once it has been idle for 60 minutes" in said and "through its agent" in said, said
        assert "stop asked for once idle" in reply(h, "list") and "once it is idle" in reply(h, "power box-1")
        for _ in range(3):  # busy: it waits, every run, saying nothing
            h.clock.advance(minutes=30)
            quiet(h, inst, minutes=60, util=95)
            assert run_actions(h.deps, h.tellers()) == 0
        h.clock.advance(minutes=61)
        quiet(h, inst, minutes=60, util=0)  # the job ended an hour ago: idle by the rule
        assert h.send_digest().status == "sent"  # listed idle, with no stop time (there is none to say)
        assert "will be stopped" not in json.dumps(h.posts(channel="C1")[-1]["blocks"], ensure_ascii=False)
        assert run_actions(h.deps, h.tellers()) == 1
        [warning] = Actions(h.deps.store).open_for([inst.id]).values()
        assert warning.status == "requested" and warning.figures and warning.figures["samples"] >= 12


def test_a_stop_once_idle_that_never_comes_is_called_off_after_three_days(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, _ = enrolled(h)
        reply(h, "stop box-1 when it's done")  # no data at all meanwhile: it waits, then gives up, and says so
        assert run_actions(h.deps, h.tellers()) == 0
        h.clock.advance(days=3, minutes=1)
        quiet(h, inst, minutes=60, util=95)
        assert run_actions(h.deps, h.tellers()) == 1
        [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
        assert (warning.status, warning.detail) == ("cancelled", "never_idle")
        assert any("was not idle within 3 days" in p.get("text", "") for p in h.posts(channel="C1"))


def test_a_stop_asked_in_english_with_its_day_before_at_and_asked_after(tmp_path: Path) -> None:
    """`stop trainer tomorrow at 9am` gave the usage, `when will trainer stop` and `how busy is trainer` were not
    understood, `trainer utilization` was a word not read."""
    with running_app(tmp_path) as h:
        h.clock.now = MONDAY_0910_SHANGHAI  # the hours' parts its samples cover do not move with the hour it runs
        inst, _ = enrolled(h)
        quiet(h, inst)  # three idle hours of its five
        assert "No stop is asked for *box-1*" in reply(h, "when will box-1 stop")
        said = reply(h, "stop box-1 tomorrow at 9am")
        assert "will be stopped at " in said and "09:00 Asia/Shanghai" in said, said
        for asked in ("when will box-1 stop", "box-1 when will it stop"):
            assert "*box-1* at " in reply(h, asked) and "09:00 Asia/Shanghai" in reply(h, asked), asked
        for asked in ("how busy is box-1", "box-1 utilization"):  # its last seven days' busy and idle hours
            assert "GPU-hours billed, 0.0 busy, 3.0 idle (¥50)" in reply(h, asked), asked
