"""Everything Slack's /gpu-advise does, typed to the bot in a Feishu group through the core's one table: quote
(the articles' worked example), track (the token to the typer alone, the owner told), enroll, act (stop is an
admin's), report; and the cards' buttons that were "Got it" before: the form and Change an answer (a bad answer
shown on the card), I rented this (the track card), Estimate from the model, Claim and Not ours."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from bot.state.actions import Actions
from bot.state.enrollment import Enrollments
from bot.state.rentals import Rentals
from tests.digest.test_schedule import FIELDS
from tests.feishu.test_digest import GROUP, MONDAY_0910_SHANGHAI, OWNER, remind
from tests.support.fake_feishu import Call, buttons
from tests.support.feishu_harness import FeishuHarness, running_feishu
from tests.support.pending import settled

MENTION = [{"key": "@_user_1", "id": {"open_id": "ou_bot"}, "name": "GPU Advisor"}]
BOB = "ou_" + "b0b" * 10 + "b0"


def say(h: FeishuHarness, text: str, user: str = OWNER, mentions: list[dict[str, Any]] | None = None) -> Call:
    """Type `text` to the bot in the group; the first message it sends back."""
    before = len(h.fake.sent())
    h.send.message(f"@_user_1 {text}", chat=GROUP, chat_type="group", user=user, mentions=MENTION + (mentions or []))
    h.fake.wait_for(lambda: len(h.fake.sent()) > before)
    settled(h.deps)
    return h.fake.sent()[before]


def shown(call: Call) -> str:
    return json.dumps(call.card, ensure_ascii=False)


def team(h: FeishuHarness) -> str:
    return "feishu:" + h.send.tenant


def test_quote_answers_the_articles_example_in_the_thread(tmp_path: Path) -> None:
    with running_feishu(tmp_path, lang="en") as h:
        said = say(h, "quote gpu=A100 hours=4x14 share=1/2")
        assert said.method == "messages.reply"  # in a thread under the person's message
        assert "5,600" in shown(said) and "784" in shown(said)
        refused = shown(say(h, "quote gpu=A100"))
        assert "hours=4x14" in refused and "help" in refused


def test_track_sends_the_token_to_the_typer_alone_and_tells_the_owner(tmp_path: Path) -> None:
    with running_feishu(tmp_path, lang="en") as h:
        bob = [{"key": "@_user_2", "id": {"open_id": BOB}, "name": "Bob"}]
        say(h, "track train-1 gpu=A100 price=14/h share=1/2 owner=@_user_2", mentions=bob)
        said = h.fake.wait_for(lambda: next((c for c in h.fake.sent() if c.body.get("receive_id") == OWNER), None))
        inst = Rentals(h.deps.store).instance(team(h), "train-1")
        assert inst is not None and (inst.owner, inst.channel, inst.price, inst.share) == (BOB, GROUP, 14.0, 0.5)
        assert said.method == "messages.create" and said.query["receive_id_type"] == "open_id"
        assert said.body["receive_id"] == OWNER and "shown once" in shown(said)  # the token: a direct message
        assert all("shown once" not in shown(c) for c in h.fake.sent() if c.body.get("receive_id") != OWNER)
        h.fake.wait_for(lambda: any(c.body.get("receive_id") == BOB for c in h.fake.sent()))  # the owner is told
        storage = shown(say(h, "track storage ckpt size=500 price=0.7"))
        assert "ckpt" in storage and Rentals(h.deps.store).storage_named(team(h), "ckpt") is not None
        # sizes and prices as people type them: "2T" was "not a positive number"; a month of what is asked
        say(h, "track storage ds size=2T price=0.35元/GB/月")
        kept = Rentals(h.deps.store).storage_named(team(h), "ds")
        assert kept is not None and (kept.size_gb, kept.price_gb_month) == (2048, 0.35)
        asked = shown(say(h, "track storage ds2 size=100G price=2元/月"))  # a GB's dear month, or the disk's?
        assert "请按每 GB 写" in asked and Rentals(h.deps.store).storage_named(team(h), "ds2") is None
        bad = shown(say(h, "track train-2 gpu=A100 cards=1.5"))
        assert "1.5" in bad and Rentals(h.deps.store).instance(team(h), "train-2") is None


def test_enroll_sends_a_token_and_the_agent_command_directly(tmp_path: Path) -> None:
    with running_feishu(tmp_path, lang="en") as h:
        said = say(h, "enroll project=llm")
        assert said.body["receive_id"] == OWNER and "gpu-advise agent" in shown(said)
        token = shown(said).split("`")[1]
        grant = Enrollments(h.deps.store).grant(token, h.clock.now)
        assert grant is not None and (grant.team, grant.channel, grant.owner, grant.project) == (
            team(h),
            GROUP,
            OWNER,
            "llm",
        )


def test_act_stop_is_an_admins_and_notify_anyones(tmp_path: Path) -> None:
    with running_feishu(tmp_path, lang="en") as h:
        refused = shown(say(h, "act stop grace=2h"))  # the fake says nothing of this person: no admin
        assert "admin" in refused.lower()
        assert Actions(h.deps.store).policy(team(h), GROUP).mode != "stop"
        h.fake.chats[GROUP] = {"owner_id": OWNER, "user_manager_id_list": []}
        said = shown(say(h, "act stop grace=2h"))
        assert "2" in said and Actions(h.deps.store).policy(team(h), GROUP).mode == "stop"
        # a grace said aloud, its words unquoted; the mode by its Chinese word (each refused before)
        shown(say(h, "act 停机 grace=two and a half hours"))
        policy = Actions(h.deps.store).policy(team(h), GROUP)
        assert (policy.mode, policy.grace.total_seconds()) == ("stop", 2.5 * 3600)


def test_report_on_demand_and_off(tmp_path: Path) -> None:
    with running_feishu(tmp_path, lang="en") as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        inst, _ = Rentals(h.deps.store).track_instance(
            team(h),
            "train-1",
            FIELDS | {"owner": OWNER, "channel": GROUP, "started_at": h.clock.now - timedelta(days=9)},
        )
        said = say(h, "report last-week")
        assert said.method == "messages.create" and said.body["receive_id"] == GROUP
        assert "11-23" in shown(said)  # last Monday to Sunday, in the chat's zone
        report_id = said.body["_message_id"]
        h.fake.wait_for(lambda: h.fake.of("files.create"))  # the rows as a CSV file, for chargeback
        files = [c for c in h.fake.of("messages.reply") if c.body.get("msg_type") == "file"]
        assert files and files[0].path.endswith(f"/{report_id}/reply")
        images = [c for c in h.fake.of("messages.reply") if c.body.get("msg_type") == "image"]
        assert images and images[0].path.endswith(f"/{report_id}/reply")  # and the chart as an image
        off = shown(say(h, "report off"))
        assert "No weekly report" in off and "`report on`" in off and "/gpu-advise" not in off  # Feishu's words
        assert inst is not None


def _form_card(h: FeishuHarness) -> Call:
    return h.fake.wait_for(lambda: next((c for c in reversed(h.fake.sent()) if '"tag": "form"' in shown(c)), None))


def test_form_shows_a_bad_answer_on_the_card_then_recommends(tmp_path: Path) -> None:
    with running_feishu(tmp_path, lang="en") as h:
        card = _form_card(h) if say(h, "form") else None
        assert card is not None
        message_id = card.body["_message_id"]
        answers = {"duration": "10h", "memory": "lots", "model_parallel": "no", "frequency": "daily"}
        answers["can_resume"] = "no"
        h.send.submit(card.card, answers, user=OWNER, chat=GROUP, message_id=message_id)
        patched = h.fake.wait_for(lambda: h.fake.of("messages.patch"))
        again = json.loads(patched[-1].body["content"])
        assert "<font color='red'>" in json.dumps(again, ensure_ascii=False)  # the error, under its field
        typed = next(e for e in again["body"]["elements"][0]["elements"] if e.get("name") == "memory")
        assert typed["default_value"] == "lots"  # what was typed stays, to be corrected
        before = len(h.fake.sent())
        h.send.submit(card.card, answers | {"memory": "70/80"}, user=OWNER, chat=GROUP, message_id=message_id)
        h.fake.wait_for(lambda: len(h.fake.sent()) > before)
        settled(h.deps)
        assert any("Dedicated" in shown(c) or "dedicated" in shown(c) for c in h.fake.sent()[before:])


def test_the_track_card_takes_a_start_on_the_chats_clock_and_shows_a_bad_one_under_it(tmp_path: Path) -> None:
    """Feishu's events say no one's time zone: a start typed on the track card is read on the group's clock (its
    digest's zone, GPU_ADVISOR_REMIND_TZ here: Asia/Shanghai), and the owner is told from when it bills."""
    with running_feishu(tmp_path, lang="en") as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        card = _form_card(h) if say(h, "track") else None
        assert card is not None and '"name": "started"' in shown(card)
        message_id, box = card.body["_message_id"], {"name": "late-1", "gpu": "A100", "price": "14/h"}
        h.send.submit(card.card, box | {"started": "下周一"}, user=OWNER, chat=GROUP, message_id=message_id)
        again = json.loads(h.fake.wait_for(lambda: h.fake.of("messages.patch"))[-1].body["content"])
        assert "'下周一' is not a time" in json.dumps(again, ensure_ascii=False)  # under its field
        assert Rentals(h.deps.store).instances(team(h)) == []
        before = len(h.fake.sent())
        h.send.submit(card.card, box | {"started": "昨晚11点"}, user=OWNER, chat=GROUP, message_id=message_id)
        inst = h.fake.wait_for(lambda: Rentals(h.deps.store).instance(team(h), "late-1"))
        assert inst.started_at == datetime(2026, 11, 29, 23, tzinfo=ZoneInfo("Asia/Shanghai"))  # Sunday night
        told = h.fake.wait_for(lambda: next((c for c in h.fake.sent()[before:] if "Billed" in shown(c)), None))
        assert "Billed from 2026-11-29 23:00 Asia/Shanghai, when it began." in shown(told)


def _recommendation(h: FeishuHarness) -> Call:
    say(h, "10h mem=70/80 mp=no freq=daily resume=no")
    return h.fake.wait_for(lambda: next((c for c in reversed(h.fake.sent()) if "change_answers" in shown(c)), None))


def test_every_button_of_the_recommendation_does_what_it_says(tmp_path: Path) -> None:
    with running_feishu(tmp_path, lang="en") as h:
        card = _recommendation(h)
        pressed = {b["behaviors"][0]["value"]["action"]: b for b in buttons(card.card)}
        assert set(pressed) == {"change_answers", "start_over", "rented"}
        before = len(h.fake.sent())
        h.send.press(pressed["change_answers"], user=OWNER, chat=GROUP, message_id=card.body["_message_id"])
        form = _form_card(h)
        assert h.fake.sent().index(form) >= before and '"default_value": "10h"' in shown(form)
        h.send.press(pressed["rented"], user=OWNER, chat=GROUP, message_id=card.body["_message_id"])
        track = h.fake.wait_for(lambda: (f := _form_card(h)) is not form and f)
        assert '"default_value": "A100-80GB"' in shown(track) or "A100" in shown(track)
        h.send.submit(track.card, {"name": "rented-1", "price": "14/h"}, user=OWNER, chat=GROUP)
        h.fake.wait_for(lambda: Rentals(h.deps.store).instance(team(h), "rented-1"))
        before = len(h.fake.sent())
        h.send.press(pressed["start_over"], user=OWNER, chat=GROUP, message_id=card.body["_message_id"])
        h.fake.wait_for(lambda: len(h.fake.sent()) > before)


def test_claim_and_not_ours_on_a_found_item(tmp_path: Path) -> None:
    with running_feishu(tmp_path, lang="en") as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        remind(h)
        rentals = Rentals(h.deps.store)
        for name in ("found-1", "found-2"):
            fields = FIELDS | {"owner": "", "channel": GROUP, "started_at": h.clock.now, "source": "aws"}
            rentals.track_instance(team(h), name, fields)
        h.clock.now += timedelta(minutes=21)
        [sent] = h.run_due()
        assert sent.status == "sent"
        post = h.fake.of("messages.create")[-1]
        claims = [b for b in buttons(post.card) if b["behaviors"][0]["value"]["action"] == "found_claim"]
        hides = [b for b in buttons(post.card) if b["behaviors"][0]["value"]["action"] == "found_not_ours"]
        assert len(claims) == len(hides) == 2
        answer = h.send.press(claims[0], user=BOB, chat=GROUP, message_id=post.body["_message_id"])
        assert "toast" in answer.json()
        h.fake.wait_for(lambda: h.fake.of("messages.patch"))
        claimed = rentals.instance(team(h), "found-1")
        assert claimed is not None and claimed.owner == BOB
        refused = h.send.press(hides[1], user=BOB, chat=GROUP, message_id=post.body["_message_id"])
        assert refused.status_code == 200
        kept = rentals.instance(team(h), "found-2")
        assert kept is not None and not kept.hidden_by  # Bob is no admin
        h.fake.chats[GROUP] = {"owner_id": OWNER, "user_manager_id_list": []}
        h.send.press(hides[1], user=OWNER, chat=GROUP, message_id=post.body["_message_id"])
        h.fake.wait_for(lambda: (i := rentals.instance(team(h), "found-2")) is not None and i.hidden_by)


def test_a_reply_feishu_could_not_take_is_redone_by_the_redo_job_not_at_the_next_start(tmp_path: Path) -> None:
    """The redo job ran only with a Slack client: a Feishu-only serve redid a failed reply at its next start."""
    from bot.server.jobs import jobs_of

    with running_feishu(tmp_path, lang="en") as h:
        h.fake.down.add("messages.reply")
        h.send.message("@_user_1 help", chat=GROUP, chat_type="group", user=OWNER, mentions=MENTION)
        h.fake.wait_for(lambda: h.gateway.last_failure)  # tried, with the client's retries, and given up
        assert h.fake.sent() == [] and h.fake.of("messages.reply")  # tried, each try answered 503
        assert h.deps.inbox.pending(timedelta(days=1))  # kept, its work not done
        h.fake.down.clear()
        [redo] = [job for job in jobs_of(h.deps.settings, h.deps, [h.gateway]) if job.id == "inbox:redo"]
        assert redo.every <= timedelta(minutes=1)
        assert redo.work() == 0  # not yet stalled: the taker may still be at it
        h.clock.advance(seconds=h.deps.settings.serve.redo_after_s + 1)
        assert redo.work() == 1
        [answered] = h.fake.sent()
        assert answered.method == "messages.reply" and "tenant's key" in shown(answered)
        assert redo.work() == 0 and h.deps.inbox.pending(timedelta(days=1)) == []  # done once
        assert h.gateway.health()["tenants"] == []  # a help leaves nothing of the tenant behind
        say(h, "remind at 09:30 Asia/Shanghai")
        assert h.gateway.health()["tenants"] == [team(h)]  # the key the terminal's --team takes, on /healthz too


def test_analyze_then_a_capture_sent_as_a_file_answers_duration_and_memory(tmp_path: Path) -> None:
    from tests.slack.test_captures import whole_run

    with running_feishu(tmp_path, lang="en") as h:
        root = say(h, "analyze")  # the profile's first message, in the group
        root_id = root.body["_message_id"]
        h.fake.wait_for(lambda: any("Upload a capture" in shown(c) for c in h.fake.of("messages.reply")))
        convo = h.deps.conversations.by_thread(team(h), GROUP, root_id)
        assert convo is not None
        h.fake.files[("om_file_1", "file_v3_capture")] = whole_run()
        h.send.file("file_v3_capture", "capture.csv", root=root_id, user=OWNER, chat=GROUP, message_id="om_file_1")
        summary = h.fake.wait_for(
            lambda: next((c for c in h.fake.of("messages.reply") if "Continuity" in shown(c)), None)
        )
        assert "`dur=2.5h`, `mem=40/80`" in shown(summary) and summary.path.endswith(f"/{root_id}/reply")
        [download] = h.fake.of("messages.resources.get")
        assert download.query == {"type": "file"} and download.auth.startswith("Bearer t-")
        h.fake.wait_for(lambda: h.fake.of("images.create"))  # the chart, as an image in the thread
        h.fake.wait_for(lambda: any(c.body.get("msg_type") == "image" for c in h.fake.of("messages.reply")))
        settled(h.deps)
        convo = h.deps.conversations.by_thread(team(h), GROUP, root_id)
        assert convo is not None and convo.answers["duration"] == "2.5h" and convo.answers["memory"] == "40/80"


def test_a_capture_too_large_or_gone_is_said_and_someone_elses_file_left_alone(tmp_path: Path) -> None:
    from tests.slack.test_captures import whole_run

    with running_feishu(tmp_path, lang="en", capture_max_bytes=2048) as h:
        root_id = say(h, "analyze").body["_message_id"]
        h.fake.files[("om_big", "file_big")] = whole_run(200)
        h.send.file("file_big", "big.csv", root=root_id, user=OWNER, chat=GROUP, message_id="om_big")
        h.fake.wait_for(lambda: any("larger than" in shown(c) for c in h.fake.of("messages.reply")))
        h.send.file("file_gone", "gone.csv", root=root_id, user=OWNER, chat=GROUP, message_id="om_gone")
        h.fake.wait_for(lambda: any("gone from Feishu" in shown(c) for c in h.fake.of("messages.reply")))
        before = len(h.fake.of("messages.resources.get"))
        h.send.file("file_big", "big.csv", root=root_id, user=BOB, chat=GROUP, message_id="om_big")
        told = h.fake.wait_for(lambda: [c for c in h.fake.of("ephemeral.send") if c.body["open_id"] == OWNER])
        said = json.dumps(told[-1].body["card"], ensure_ascii=False)  # a card only the starter sees in the group
        assert told[-1].body["chat_id"] == GROUP and "replied in your profile thread" in said
        assert len(h.fake.of("messages.resources.get")) == before  # Bob's file is not fetched


def test_a_revoked_tenant_token_is_renewed_at_once(tmp_path: Path) -> None:
    """Issue 53.4: the SDK kept a revoked token until it expired, so every reply failed meanwhile (7 helps over
    3.5 minutes got none). Refused with 99991663, the cached token is dropped and the call made once more."""
    with running_feishu(tmp_path, lang="en") as h:
        say(h, "help")
        h.fake.revoke()
        before = len(h.fake.of("auth.tenant_token"))
        answered = say(h, "help")
        assert answered.auth == f"Bearer {h.fake.token}" and "tenant" in shown(answered)  # with the new token
        tries = [c for c in h.fake.of("messages.reply") if c.status != 200]
        assert len(tries) == 1  # the revoked token, refused once
        assert len(h.fake.of("auth.tenant_token")) == before + 1  # asked for once


def test_a_reply_feishu_kept_but_answered_502_is_posted_once(tmp_path: Path) -> None:
    """Issue 53.6: sub-command replies carried no uuid, so the client's retry after a lost answer posted twice.
    Every send carries one, from the work it belongs to: Feishu keeps one message for it."""
    with running_feishu(tmp_path, lang="en") as h:
        h.fake.lose_answer_once.add("messages.reply")
        say(h, "list")
        settled(h.deps)
        tries = h.fake.of("messages.reply")
        assert len(tries) == 2 and tries[0].body["uuid"] == tries[1].body["uuid"]  # retried with the same key
        assert len(h.fake.sent()) == 1  # one message in the chat


def test_answers_in_a_burst_reuse_the_connection_to_feishu(tmp_path: Path) -> None:
    """Issue 50: each Open API call went through the SDK's module-level requests.request, a new session, TCP
    connection and name lookup every time (about 40 % of the Feishu work's CPU). Twenty answers in a row now
    reuse a few kept-alive connections."""
    with running_feishu(tmp_path, lang="en") as h:
        say(h, "help")  # the token and the first connections
        before, sent = h.fake.connections, len(h.fake.sent())
        for _ in range(20):
            say(h, "help")
        assert len(h.fake.sent()) - sent == 20
        assert h.fake.connections - before <= 4, h.fake.connections - before  # the gateway's threads at most
