"""Every button a Feishu card renders does what it says (issue 46): pressed by someone who may, each changes what
it names and answers with the card again or a new one, never a bare "Got it". The digest card's item buttons (an
idle instance, one stopped but still billed, storage left behind, an AutoDL box left off), and the question
cards' Skip and Estimate from the model. The recommendation's and the found items' are pressed in
test_subcommands.py."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.chat.ids import Action
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from rules.power import Power
from tests.feishu.test_digest import GROUP, MONDAY_0910_SHANGHAI, OWNER, idle_box, remind
from tests.support.fake_feishu import buttons
from tests.support.feishu_harness import FeishuHarness, running_feishu
from tests.support.pending import settled


def _digest(h: FeishuHarness) -> dict[str, Any]:
    h.clock.now = MONDAY_0910_SHANGHAI
    remind(h)
    idle_box(h, "train-1")
    team = "feishu:" + h.send.tenant
    rentals = Rentals(h.deps.store)
    off, _ = rentals.track_instance(
        team,
        "keeps-1",
        {"gpu": "A100-80GB", "cards": 1, "unit": "hour", "price": 9.0, "currency": "CNY", "owner": OWNER,
         "project": "llm", "channel": GROUP, "started_at": h.clock.now - timedelta(days=2), "stop_billing": "keeps"},
    )  # fmt: skip
    PowerLog(h.deps.store).say(
        off.id, Power.OFF, h.clock.now - timedelta(days=1), h.clock.now, source="person", by=OWNER
    )
    inst = rentals.instance(team, "train-1")
    assert inst is not None
    fields = {"size_gb": 500.0, "price_gb_month": 0.7, "currency": "CNY", "owner": OWNER, "project": "llm",
              "channel": GROUP, "created_at": h.clock.now - timedelta(days=30)}  # fmt: skip
    rentals.track_storage(team, "ckpt-1", fields, None)
    h.clock.now += timedelta(minutes=21)
    [sent] = h.run_due()
    assert sent.status == "sent"
    return h.fake.of("messages.create")[-1].body | {"card": h.fake.of("messages.create")[-1].card}


ITEM_BUTTONS = [a.value for a in (Action.RELEASED, Action.STILL_NEEDED, Action.SNOOZE_WEEK, Action.STOPPED)]


@pytest.mark.parametrize("action", [*ITEM_BUTTONS, Action.STARTED.value, Action.STORAGE_DELETED.value,
                                    Action.STORAGE_KEEP.value])  # fmt: skip
def test_each_digest_button_answers_for_its_item(tmp_path: Path, action: str) -> None:
    with running_feishu(tmp_path, lang="en") as h:
        post = _digest(h)
        pressed = [b for b in buttons(post["card"]) if b["behaviors"][0]["value"]["action"] == action]
        assert pressed, f"the digest renders {action}"
        button = pressed[0]
        item = button["behaviors"][0]["value"]["value"].split(":", 1)[1]
        answer = h.send.press(button, user=OWNER, chat=GROUP, message_id=post["_message_id"])
        assert answer.json()["toast"]["type"] == "success"
        settled(h.deps)
        [patched] = h.fake.of("messages.patch")  # the card again, the answer at its top
        top = json.dumps(patched.card["body"]["elements"][0], ensure_ascii=False)
        assert item in top
        team, rentals = "feishu:" + h.send.tenant, Rentals(h.deps.store)
        if action == Action.RELEASED:
            assert rentals.instance(team, item).released_at is not None  # type: ignore[union-attr]
        elif action in (Action.STILL_NEEDED, Action.SNOOZE_WEEK):
            assert rentals.instance(team, item).snoozed_until is not None  # type: ignore[union-attr]
        elif action in (Action.STOPPED, Action.STARTED):
            inst = rentals.instance(team, item)
            assert inst is not None
            [*_, last] = PowerLog(h.deps.store).reports([inst.id])[inst.id]
            assert last.state is (Power.OFF if action == Action.STOPPED else Power.ON) and last.source == "person"
        elif action == Action.STORAGE_DELETED:
            assert rentals.storage_named(team, item).deleted_at is not None  # type: ignore[union-attr]
        else:
            assert rentals.storage_named(team, item).kept_until is not None  # type: ignore[union-attr]


def test_skip_and_estimate_from_the_model_on_the_question_cards(tmp_path: Path) -> None:
    with running_feishu(tmp_path, lang="en") as h:
        h.send.message("advise")
        first = h.fake.wait_for(lambda: [c for c in h.fake.of("messages.reply") if buttons(c.card)])[0]
        assert "@mention me in your reply" in json.dumps(first.card)  # the first question says how to answer
        skip = next(b for b in buttons(first.card) if b["behaviors"][0]["value"]["action"] == Action.SKIP)
        h.send.press(skip, message_id=first.body["_message_id"])  # the kind of work is optional
        second = h.fake.wait_for(lambda: [c for c in h.fake.of("messages.reply") if buttons(c.card)][1:])[0]
        h.send.press(buttons(second.card)[0], message_id=second.body["_message_id"])  # the run's length
        memory = h.fake.wait_for(lambda: [c for c in h.fake.of("messages.reply") if buttons(c.card)][2:])[0]
        model = next(b for b in buttons(memory.card) if b["behaviors"][0]["value"]["action"] == Action.FROM_MODEL)
        before = len(h.fake.of("messages.reply"))
        h.send.press(model, message_id=memory.body["_message_id"])
        said = h.fake.wait_for(lambda: h.fake.of("messages.reply")[before:])[0]
        assert "7B LoRA" in json.dumps(said.card, ensure_ascii=False)


def test_the_left_off_lines_buttons_each_do_what_they_say_in_feishu(tmp_path: Path) -> None:
    """Issue 52: an AutoDL box off for days is said in the digest with when AutoDL releases it; its line's buttons
    (Snooze a week, Started, Released), pressed on the Feishu card, each do what they say, and a later digest no
    longer says the three."""
    with running_feishu(tmp_path, lang="en") as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        remind(h)
        team, rentals, now = "feishu:" + h.send.tenant, Rentals(h.deps.store), h.clock.now
        made = {}
        for name in ("snoozed", "started", "released"):
            made[name], _ = rentals.track_instance(
                team,
                name,
                {"gpu": "A100-80GB", "cards": 1, "unit": "hour", "price": 9.0, "currency": "CNY", "owner": OWNER,
                 "project": "llm", "channel": GROUP, "provider": "autodl", "started_at": now - timedelta(days=5)},
            )  # fmt: skip
            PowerLog(h.deps.store).say(
                made[name].id, Power.OFF, now - timedelta(days=3), now, source="person", by=OWNER
            )
        h.clock.now += timedelta(minutes=21)
        [sent] = h.run_due()
        assert sent.status == "sent"
        post = h.fake.of("messages.create")[-1]
        wanted = {"snoozed": Action.SNOOZE_WEEK, "started": Action.STARTED, "released": Action.RELEASED}
        for name, action in wanted.items():
            [button] = [
                b
                for b in buttons(post.card)
                if b["behaviors"][0]["value"]["action"] == action.value
                and b["behaviors"][0]["value"]["value"].split(":", 1)[1] == name
            ]
            answer = h.send.press(button, user=OWNER, chat=GROUP, message_id=post.body["_message_id"])
            assert answer.json()["toast"]["type"] == "success", answer.json()
            settled(h.deps)
        pressed_at = h.clock.now
        assert rentals.instance(team, "released").released_at == pressed_at  # type: ignore[union-attr]
        assert rentals.instance(team, "snoozed").snoozed_until == pressed_at + timedelta(days=7)  # type: ignore[union-attr]
        [*_, last] = PowerLog(h.deps.store).reports([made["started"].id])[made["started"].id]
        assert (last.state, last.source) == (Power.ON, "person")
        h.clock.now += timedelta(days=1)
        [again] = h.run_due()
        later = json.dumps(h.fake.of("messages.create")[-1].card, ensure_ascii=False)
        assert again.status == "sent"  # `started` is on again with no heartbeats: asked whether it still runs
        assert "powered off on AutoDL" not in later and "**snoozed**" not in later and "**released**" not in later


def test_a_press_is_answered_before_its_card_is_sent_again(tmp_path: Path) -> None:
    """Issue 50: a press's answer waited for its work's Open API round trips (the card patched). It is answered
    once its toast is known: here the digest card's patch takes Feishu 1.8 s, and the press's answer comes back
    before the patch has been answered; the patch follows. A refusal is answered with its own toast as before."""
    with running_feishu(tmp_path, lang="en") as h:
        post = _digest(h)
        h.fake.delays["messages.patch"] = 1.8  # under the 2 s the answer would wait for the work's end
        [released] = [
            b
            for b in buttons(post["card"])
            if b["behaviors"][0]["value"] == {"action": Action.RELEASED.value, "value": "i:train-1"}
        ]
        refused = h.send.press(released, user="ou_somebody_else", chat=GROUP, message_id=post["_message_id"])
        assert refused.json()["toast"]["type"] == "error"  # not theirs: said at once, nothing sent
        answer = h.send.press(released, user=OWNER, chat=GROUP, message_id=post["_message_id"])
        assert answer.json()["toast"]["type"] == "success"
        assert h.fake.of("messages.patch") == []  # answered while the card is still on its way
        settled(h.deps)
        assert len(h.fake.of("messages.patch")) == 1


def test_a_pressed_card_kept_for_the_work_process_and_stalled_is_sent_by_the_redo_job(tmp_path: Path) -> None:
    """A card kept to be sent again by serve's work process (bot/feishu/card_refresh.py) that nobody sent (the
    work process busy or gone) is sent by the redo job once it has stalled, the answer's line at its top, and done."""
    from bot.feishu import card_refresh
    from bot.server.jobs import jobs_of

    with running_feishu(tmp_path, lang="en") as h:
        post = _digest(h)
        h.fake.calls.clear()
        line = {"en": "Snoozed: train-1", "zh": "已暂停提醒：train-1"}
        body = {"team": "feishu:" + h.send.tenant, "chat": GROUP, "message": post["_message_id"],
                "zone": "Asia/Shanghai", "lang": "en", "line": line}  # fmt: skip
        assert h.deps.inbox.enqueue("feishu:ev_press:card", card_refresh.KIND, body)
        [redo] = [job for job in jobs_of(h.deps.settings, h.deps, [h.gateway]) if job.id == "inbox:redo"]
        assert redo.work() == 0  # not yet stalled
        h.clock.advance(seconds=h.deps.settings.serve.redo_after_s + 1)
        assert redo.work() == 1
        [patched] = h.fake.of("messages.patch")
        assert "Snoozed: train-1" in json.dumps(patched.body, ensure_ascii=False)
        assert h.deps.inbox.pending(timedelta(days=1)) == []
