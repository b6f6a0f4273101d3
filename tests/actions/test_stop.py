"""Warn, then act, end to end with the real server: a `stop` channel's digest warns with the stop time; at the
deadline the instance is judged again on fresh data; an enrolled box is stopped by its agent's --on-stop
command (the real agent, the stand-in nvidia-smi) and the result reported; an AWS instance is stopped in
moto. Unknown data never acts; Still needed cancels; two replicas act once."""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.actions.due import run_actions
from bot.state.actions import Actions
from bot.state.enrollment import Box, Enrollments, Grant
from bot.state.rentals import Instance, Rentals
from rules.samples import Sample
from tests.agent.test_agent import stand_in_smi
from tests.support.cli import run_cli
from tests.support.servers import fetch
from tests.support.slack_harness import Harness, running_app

# a day's price billed by the hour: stopping it stops the meter, so the bot releases it (a period item it cannot)
PRICE = {"unit": "day", "price": 400.0, "currency": "CNY", "billing": "hourly"}
GRACE = timedelta(minutes=30)


def enrolled(h: Harness, name: str = "box-1") -> tuple[Instance, str]:
    enrollments = Enrollments(h.deps.store)
    token = enrollments.issue(
        Grant("T1", "C1", "U1", None, 5, h.clock.now + timedelta(days=1)),
        created_by="U1",
        now=h.clock.now - timedelta(hours=5),
    )
    made, heartbeat = enrollments.enroll(
        token, Box(name, f"m-{name}", "A100-80GB", 1), PRICE, h.clock.now - timedelta(hours=5)
    )
    return made, heartbeat


def quiet(h: Harness, inst: Instance, minutes: int = 180, util: float = 0) -> None:
    samples = [Sample(h.clock.now - timedelta(minutes=m), 0, util, 1200, 81920) for m in range(minutes, -1, -5)]
    Rentals(h.deps.store).add_samples(inst.id, samples, [None] * len(samples))


def digest(h: Harness) -> dict[str, Any]:
    outcome = h.send_digest()
    assert outcome.status == "sent", outcome
    return h.posts(channel="C1")[-1]


def warned(h: Harness) -> tuple[Instance, str, dict[str, Any]]:
    """An enrolled box idle for hours in a `stop` channel, and the digest that warned about it."""
    inst, heartbeat = enrolled(h)
    Actions(h.deps.store).set_policy("T1", "C1", "stop", GRACE, by="UADMIN", now=h.clock.now)
    quiet(h, inst)
    return inst, heartbeat, digest(h)


def past_deadline(h: Harness, inst: Instance) -> None:
    """The grace has passed; the last hour's samples are fresh and quiet."""
    h.clock.advance(minutes=31)
    quiet(h, inst, minutes=60)


def told(h: Harness, message: dict[str, Any]) -> str:
    """The digest message as the last update left it (what an action said lands in it)."""
    updates = [u for u in h.fake.of("chat.update") if u.get("ts") == message["_ts"]]
    assert updates, "the digest was not updated"
    blocks = updates[-1]["blocks"]
    return json.dumps(json.loads(blocks) if isinstance(blocks, str) else blocks, ensure_ascii=False)


@pytest.mark.e2e  # starts a process
def test_an_idle_enrolled_box_is_warned_then_stopped_by_its_agent(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, heartbeat, message = warned(h)
        deadline = h.clock.now + GRACE
        text = json.dumps(message["blocks"], ensure_ascii=False)
        local = deadline.astimezone(ZoneInfo("Asia/Shanghai"))
        assert f"It will be stopped at {local:%m-%d %H:%M} Asia/Shanghai" in text  # with its date: graces run to 7d
        [warning] = Actions(h.deps.store).open_for([inst.id]).values()
        assert (warning.status, warning.message_ts, warning.deadline) == ("warned", message["_ts"], deadline)
        assert run_actions(h.deps, h.tellers()) == 0  # not yet
        past_deadline(h, inst)
        assert run_actions(h.deps, h.tellers()) == 1
        assert Actions(h.deps.store).get(warning.id).status == "requested"  # type: ignore[union-attr]
        flag = tmp_path / "stopped.flag"
        done = run_cli(
            "agent",
            "--url",
            h.base_url,
            "--once",
            "--buffer",
            str(tmp_path / "b.jsonl"),
            "--on-stop",
            f"touch {flag}",
            env=stand_in_smi(tmp_path) | {"GPU_ADVISOR_AGENT_TOKEN": heartbeat, "GPU_ADVISOR_LANG": "en"},
            tmp=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        assert flag.exists() and "the bot asked this box to stop" in done.stderr
        assert Actions(h.deps.store).get(warning.id).status == "done"  # type: ignore[union-attr]
        assert run_actions(h.deps, h.tellers()) == 0  # stop requested: confirmed once the box has gone quiet
        assert not [u for u in h.fake.of("chat.update") if u.get("ts") == message["_ts"]]  # nothing said yet
        h.clock.advance(minutes=6)
        assert run_actions(h.deps, h.tellers()) == 1
        after = Actions(h.deps.store).get(warning.id)
        assert after is not None and after.status == "stopped" and after.figures["samples"] >= 12
        released = Rentals(h.deps.store).by_id(inst.id)
        assert released is not None and released.released_by == "bot" and released.released_at == h.clock.now
        said = told(h, message)
        assert (
            "Stopped *box-1* (<@U1>)" in said and "idle 3.6 h, ¥400 a day saved" in said
        )  # 6 minutes later, confirmed quiet
        assert "rental_released" not in said  # its buttons went with it
        [dm] = h.posts(channel="U1")
        assert "*box-1* was stopped" in dm["text"] and "gave its GPU back" not in dm["text"]  # a box of its own
        listed = json.loads(
            run_cli("actions", "--team", "T1", "--json", env={"GPU_ADVISOR_DB": str(tmp_path / "bot.db")}).stdout
        )
        assert [(a["item"], a["kind"], a["result"]) for a in listed] == [("box-1", "stop", "stopped")]
        assert "touch" in listed[0]["detail"] and "exit 0" in listed[0]["detail"]


@pytest.mark.e2e  # starts a process
def test_without_on_stop_the_agent_says_it_cannot_act_and_the_channel_is_told(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, heartbeat, message = warned(h)
        past_deadline(h, inst)
        one_quiet_card = "2026/11/30 01:00:00.123, 0, NVIDIA A100-SXM4-80GB, 0, 1200, 81920, 61.20\n"
        env = stand_in_smi(tmp_path, one_quiet_card) | {"GPU_ADVISOR_AGENT_TOKEN": heartbeat, "GPU_ADVISOR_LANG": "en"}
        for _ in range(2):  # asked, refused; asked again, refused again
            run_actions(h.deps, h.tellers())
            done = run_cli(
                "agent", "--url", h.base_url, "--once", "--buffer", str(tmp_path / "b.jsonl"), env=env, tmp=tmp_path
            )
            assert "no --on-stop command was given" in done.stderr
            run_actions(h.deps, h.tellers())
        [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
        assert warning.status == "failed" and "no --on-stop" in (warning.detail or "")
        said = told(h, message)
        assert "Could not stop *box-1*" in said and "Left to people" in said
        assert Rentals(h.deps.store).by_id(inst.id).released_at is None  # type: ignore[union-attr]


@pytest.mark.parametrize("case", ["no_data", "still_needed", "busy"])
def test_nothing_is_done_without_fresh_idle_data_or_after_still_needed(tmp_path: Path, case: str) -> None:
    with running_app(tmp_path) as h:
        inst, _, message = warned(h)
        if case == "still_needed":
            h.send.click(message, "rental_still_needed", user="U1", value="box-1")
            h.fake.wait_for(lambda: h.fake.of("chat.update"))
        h.clock.advance(minutes=31)
        if case != "no_data":
            quiet(h, inst, minutes=60, util=50 if case == "busy" else 0)
        run_actions(h.deps, h.tellers())
        [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
        expected = {"no_data": "unknown", "still_needed": "still_needed", "busy": "busy"}[case]
        assert (warning.status, warning.detail) == ("cancelled", expected)
        if case == "still_needed":  # its item was answered already: the thread says it
            [said] = [p["text"] for p in h.posts(channel="C1") if p.get("thread_ts") == message["_ts"]]
        else:
            said = told(h, message)
            assert "rental_released" in said  # the buttons stay: nothing was done
        assert "Not stopped: *box-1*" in said
        assert Rentals(h.deps.store).by_id(inst.id).released_at is None  # type: ignore[union-attr]
        assert Actions(h.deps.store).requested_for(inst.id) is None


def test_two_replicas_at_once_act_once(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, _, _ = warned(h)
        past_deadline(h, inst)
        moved: list[int] = []
        replica = lambda: moved.append(run_actions(h.deps, h.tellers()))  # noqa: E731
        runs = [threading.Thread(target=replica) for _ in range(4)]
        for r in runs:
            r.start()
        for r in runs:
            r.join()
        assert sum(moved) == 1
        [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
        assert (warning.status, warning.attempts) == ("requested", 1)


def test_a_notify_channel_warns_nobody_and_a_hand_tracked_box_is_never_stopped(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        inst, _ = enrolled(h)
        quiet(h, inst)
        notify = json.dumps(digest(h)["blocks"])
        assert "will be stopped" not in notify and Actions(h.deps.store).open_for([inst.id]) == {}
        rentals = Rentals(h.deps.store)
        typed, _ = rentals.track_instance(
            "T1",
            "typed",
            {
                "gpu": "A100-80GB",
                "cards": 1,
                "share": None,
                **PRICE,
                "channel": "C1",
                "owner": "U2",
                "project": None,
                "started_at": h.clock.now - timedelta(hours=5),
            },
        )
        quiet(h, typed)
        Actions(h.deps.store).set_policy("T1", "C1", "stop", GRACE, by="UADMIN", now=h.clock.now)
        h.clock.advance(days=1)
        quiet(h, inst)
        quiet(h, typed)
        text = json.dumps(digest(h)["blocks"])
        assert "the bot cannot stop this one" in text and text.count("will be stopped") == 1
        assert list(Actions(h.deps.store).open_for([inst.id, typed.id])) == [inst.id]


@contextlib.contextmanager
def aws_instance(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Harness, Any, str, Instance]]:
    """A g5.xlarge launched in moto, found by the bot's AWS scan in a running app: the app, the EC2 client, the
    instance's id and the item it is."""
    from bot.server.jobs import jobs_of
    from tests.support.aws import ec2, launch, moto_server

    with moto_server(monkeypatch) as url:
        client = ec2(url)
        box = launch(client, "g5.xlarge", {"Owner": "U0456", "SlackChannel": "C1"})
        with running_app(tmp_path, aws_regions="us-east-1", aws_endpoint_url=url) as h:
            [job] = [j for j in jobs_of(h.settings, h.deps, h.doors()) if j.id == "discover:aws"]
            job.work()
            [inst] = Rentals(h.deps.store).instances("T1")
            yield h, client, box, inst


def test_an_idle_aws_instance_is_stopped_in_the_cloud_never_terminated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with aws_instance(tmp_path, monkeypatch) as (h, client, box, inst):
        Actions(h.deps.store).set_policy("T1", "C1", "stop", GRACE, by="UADMIN", now=h.clock.now)
        h.clock.advance(hours=3)
        quiet(h, inst)  # activity as CloudWatch's metrics would give it
        message = digest(h)
        assert "It will be stopped at" in json.dumps(message["blocks"])
        h.clock.advance(minutes=31)
        quiet(h, inst, minutes=60)
        assert run_actions(h.deps, h.tellers()) == 1
        state = client.describe_instances(InstanceIds=[box])["Reservations"][0]["Instances"][0]["State"]["Name"]
        assert state in ("stopping", "stopped")
        [warning] = [w for w, _ in Actions(h.deps.store).history("T1")]
        assert warning.status == "stopped" and "stop_instances" in (warning.detail or "")
        assert Rentals(h.deps.store).by_id(inst.id).released_by == "bot"  # type: ignore[union-attr]
        said = told(h, message)
        assert f"Stopped *{box}*" in said and "$24.14 a day saved" in said
        [dm] = h.posts(channel="U0456")
        assert "InsufficientInstanceCapacity" in dm["text"]  # a start needs a free card of its type
        assert run_actions(h.deps, h.tellers()) == 0  # never twice
        metrics = fetch(h.base_url + "/metrics")
        assert b'gpu_advisor_actions_total{kind="stop",result="stopped"} 1.0' in metrics


def test_act_in_slack_stop_is_an_admins_choice_and_the_channel_is_told(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:

        def reply(text: str, n: int, user: str) -> dict[str, Any]:
            h.send.command(text, user=user, response_url=h.fake.response_url(str(n)))
            return h.fake.wait_for(lambda: (r := h.fake.of("response_url")) and len(r) >= n and r)[n - 1]  # type: ignore[no-any-return]

        refused = reply("act stop grace=2h", 1, "U5")
        assert refused["response_type"] == "ephemeral" and "workspace admin" in refused["text"]
        assert Actions(h.deps.store).policy("T1", "C1").mode == "notify"
        h.fake.admins.add("UADMIN")
        done = reply("act stop grace=2h", 2, "UADMIN")
        assert done["response_type"] == "in_channel" and "2h later" in done["text"]
        policy = Actions(h.deps.store).policy("T1", "C1")
        assert (policy.mode, policy.grace, policy.set_by) == ("stop", timedelta(hours=2), "UADMIN")
        assert "<@UADMIN>" in reply("act notify", 3, "U5")["text"]  # set by someone else: they or an admin
        assert Actions(h.deps.store).policy("T1", "C1").mode == "stop"  # U5 may not undo an admin's policy
        bad = reply("act halt", 4, "UADMIN")
        assert "off, notify or stop" in bad["text"] or "off、notify 或 stop" in bad["text"]
        assert "7d" in reply("act stop grace=30d", 5, "UADMIN")["text"]
        reply("act off project=llm", 6, "U5")
        assert Actions(h.deps.store).policy("T1", "C1", "llm").mode == "off"
        assert Actions(h.deps.store).policy("T1", "C1", "other").mode == "stop"


def test_a_claim_in_a_stop_channel_warns_an_idle_instance_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.server.jobs import jobs_of
    from tests.support.aws import ec2, launch, moto_server

    with moto_server(monkeypatch) as url:
        box = launch(ec2(url), "g6.xlarge")
        with running_app(tmp_path, aws_regions="us-east-1", aws_endpoint_url=url, discover_channel="C1") as h:
            [job] = [j for j in jobs_of(h.settings, h.deps, h.doors()) if j.id == "discover:aws"]
            job.work()
            [inst] = Rentals(h.deps.store).instances("T1")
            Actions(h.deps.store).set_policy("T1", "C1", "stop", GRACE, by="UADMIN", now=h.clock.now)
            h.clock.advance(hours=3)
            quiet(h, inst)
            message = digest(h)
            assert "Found, not tracked" in json.dumps(message["blocks"])
            assert Actions(h.deps.store).open_for([inst.id]) == {}  # nobody's: not warned
            h.send.click(message, "found_claim", user="U5", value=box)
            [update] = h.fake.wait_for(lambda: h.fake.of("chat.update"))
            deadline = h.clock.now + GRACE
            shanghai = deadline.astimezone(ZoneInfo("Asia/Shanghai"))
            assert f"It will be stopped at {shanghai:%m-%d %H:%M} Asia/Shanghai" in json.dumps(update["blocks"])
            [warning] = Actions(h.deps.store).open_for([inst.id]).values()
            assert warning.deadline == deadline and warning.lang == "en"
