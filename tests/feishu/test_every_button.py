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

from bot.chat.digest_messages import pressed_item
from bot.chat.ids import Action
from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from rules.power import Power
from tests.feishu.test_digest import GROUP, MONDAY_0910_SHANGHAI, OWNER, idle_box, remind
from tests.support.fake_feishu import buttons
from tests.support.feishu_harness import FeishuHarness, answered_at_once, running_feishu
from tests.support.pending import settled, until


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


def _is(button: dict[str, Any], action: str, name: str) -> bool:
    """The button is `action` on the instance `name`."""
    value = button["behaviors"][0]["value"]
    return bool(value["action"] == action and pressed_item(value["value"])[:2] == ("i", name))


ITEM_BUTTONS = [a.value for a in (Action.RELEASED, Action.STILL_NEEDED, Action.SNOOZE_WEEK, Action.STOPPED)]


@pytest.mark.parametrize("action", [*ITEM_BUTTONS, Action.STARTED.value, Action.STORAGE_DELETED.value,
                                    Action.STORAGE_KEEP.value])  # fmt: skip
def test_each_digest_button_answers_for_its_item(tmp_path: Path, action: str) -> None:
    with running_feishu(tmp_path, lang="en") as h:
        post = _digest(h)
        pressed = [b for b in buttons(post["card"]) if b["behaviors"][0]["value"]["action"] == action]
        assert pressed, f"the digest renders {action}"
        button = pressed[0]
        item = pressed_item(button["behaviors"][0]["value"]["value"])[1]
        answer = h.send.press(button, user=OWNER, chat=GROUP, message_id=post["_message_id"])
        assert answered_at_once(answer)
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
                and pressed_item(b["behaviors"][0]["value"]["value"])[1] == name
            ]
            answer = h.send.press(button, user=OWNER, chat=GROUP, message_id=post.body["_message_id"])
            assert answered_at_once(answer), answer.json()
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


def test_a_press_is_answered_at_once_and_what_it_did_follows(tmp_path: Path) -> None:
    """Issue 50: a press is answered as soon as it is kept, as Slack's is acknowledged, with a toast saying it is
    being done; its work follows. Here the digest card's patch takes Feishu 0.6 s: the owner's press is answered
    before the patch has even been sent, then the item is released and the card patched once. Someone else's
    press is answered the same way, then told why in a card only they see in the group, and changes nothing."""
    with running_feishu(tmp_path, lang="en") as h:
        post = _digest(h)
        h.fake.delays["messages.patch"] = 0.6
        [released] = [b for b in buttons(post["card"]) if _is(b, Action.RELEASED, "train-1")]
        refused = h.send.press(released, user="ou_somebody_else", chat=GROUP, message_id=post["_message_id"])
        assert answered_at_once(refused)
        [told] = h.told("ou_somebody_else", GROUP)
        assert f"Only <at id={OWNER}></at> (its owner)" in told and "train-1" in told
        assert h.fake.of("messages.patch") == [] and h.fake.of("messages.create")[1:] == []  # nothing else said
        answer = h.send.press(released, user=OWNER, chat=GROUP, message_id=post["_message_id"])
        assert answered_at_once(answer)
        assert h.fake.of("messages.patch") == []  # answered while the card is still on its way
        settled(h.deps)
        assert len(h.fake.of("messages.patch")) == 1
        assert Rentals(h.deps.store).instance("feishu:" + h.send.tenant, "train-1").released_at is not None  # type: ignore[union-attr]


def test_a_refusal_where_feishu_has_no_card_for_one_person_is_a_direct_message(tmp_path: Path) -> None:
    """Feishu sends a card only one member sees in a plain group alone (not in a topic group or a direct chat):
    there the presser is told in their direct chat with the bot."""
    with running_feishu(tmp_path, lang="en") as h:
        post = _digest(h)
        h.fake.topic_groups.add(GROUP)
        [snooze] = [b for b in buttons(post["card"]) if _is(b, Action.SNOOZE_WEEK, "train-1")]
        before = len(h.fake.of("messages.create"))
        assert answered_at_once(
            h.send.press(snooze, user="ou_somebody_else", chat=GROUP, message_id=post["_message_id"])
        )
        assert h.told("ou_somebody_else", GROUP) == []  # refused by Feishu there
        [direct] = h.fake.of("messages.create")[before:]
        assert direct.query["receive_id_type"] == "open_id" and direct.body["receive_id"] == "ou_somebody_else"
        assert "train-1" in json.dumps(direct.card, ensure_ascii=False)
        assert Rentals(h.deps.store).instance("feishu:" + h.send.tenant, "train-1").snoozed_until is None  # type: ignore[union-attr]


def _pressed(post: dict[str, Any], action: Action, item: str) -> dict[str, Any]:
    [button] = [b for b in buttons(post["card"]) if _is(b, action, item)]
    return button


def _redo_once_stalled(h: FeishuHarness) -> int:
    """serve's redo job, run once what is pending has waited past GPU_ADVISOR_REDO_AFTER_S."""
    from bot.server.jobs import jobs_of

    [redo] = [job for job in jobs_of(h.deps.settings, h.deps, [h.gateway]) if job.id == "inbox:redo"]
    h.clock.advance(seconds=h.deps.settings.serve.redo_after_s + 1)
    return int(redo.work())


def test_a_card_feishu_did_not_take_is_sent_again_by_itself_not_the_press(tmp_path: Path) -> None:
    """Released pressed while Feishu refuses the card's patch: the release is written and the press done; the card
    is kept as a request of its own and the redo job sends it, with the answer's line. Redoing the press instead
    would find the item released and tell the owner it is gone, the card never patched."""
    with running_feishu(tmp_path, lang="en") as h:
        post = _digest(h)
        h.fake.down.add("messages.patch")
        press = h.send.press(
            _pressed(post, Action.RELEASED, "train-1"), user=OWNER, chat=GROUP, message_id=post["_message_id"]
        )
        assert answered_at_once(press)
        h.fake.wait_for(lambda: len(h.fake.of("messages.patch")) == 4)  # its attempts, each answered 503

        def the_card_alone() -> list[tuple[str, str, Any]]:
            left = h.deps.inbox.pending(timedelta(days=1))
            return left if len(left) == 1 and left[0][0].endswith(":card") else []  # the press done

        [(_, kind, _)] = until(the_card_alone)  # the press's work ends after the card's last attempt
        assert kind == "feishu_card_again"
        team = "feishu:" + h.send.tenant
        released = Rentals(h.deps.store).instance(team, "train-1").released_at  # type: ignore[union-attr]
        assert released is not None
        h.fake.down.clear()
        assert _redo_once_stalled(h) == 1
        assert [c.status for c in h.fake.of("messages.patch")] == [503] * 4 + [200]
        assert "train-1" in json.dumps(h.fake.of("messages.patch")[-1].card["body"]["elements"][0], ensure_ascii=False)
        assert h.told(OWNER, GROUP) == [] and h.deps.inbox.pending(timedelta(days=1)) == []
        assert Rentals(h.deps.store).instance(team, "train-1").released_at == released  # type: ignore[union-attr]


def test_a_press_kept_and_never_worked_is_done_by_the_redo_job(tmp_path: Path) -> None:
    """A press kept and answered whose work never ran (the work process stopped before it) is done by the redo job
    once it has stalled: the item snoozed, the card patched, nothing left pending."""
    with running_feishu(tmp_path, lang="en") as h:
        post = _digest(h)
        value = _pressed(post, Action.SNOOZE_WEEK, "train-1")["behaviors"][0]["value"]
        tenant = h.send.tenant
        event = {
            "operator": {"tenant_key": tenant, "open_id": OWNER},
            "action": {"value": value, "tag": "button"},
            "context": {"open_message_id": post["_message_id"], "open_chat_id": GROUP},
        }
        header = {"event_id": "ev_kept", "event_type": "card.action.trigger", "tenant_key": tenant}
        assert h.deps.inbox.enqueue(
            "feishu:ev_kept", "feishu_card", {"schema": "2.0", "header": header, "event": event}
        )
        assert _redo_once_stalled(h) == 1
        assert len(h.fake.of("messages.patch")) == 1
        assert Rentals(h.deps.store).instance("feishu:" + tenant, "train-1").snoozed_until is not None  # type: ignore[union-attr]
        assert h.deps.inbox.pending(timedelta(days=1)) == []


def test_a_refusal_feishu_will_not_deliver_is_logged_and_the_press_is_done(tmp_path: Path) -> None:
    """Nothing was done, so there is nothing to redo: with Feishu refusing both the card only the presser sees and
    the direct message, the press is still marked done (not redone every minute for an hour) and the item stays."""
    with running_feishu(tmp_path, lang="en") as h:
        post = _digest(h)
        [snooze] = [b for b in buttons(post["card"]) if _is(b, Action.SNOOZE_WEEK, "train-1")]
        h.fake.down |= {"ephemeral.send", "messages.create"}
        h.send.press(snooze, user="ou_somebody_else", chat=GROUP, message_id=post["_message_id"])
        assert h.told("ou_somebody_else", GROUP) == []  # settled: nothing left pending
        assert {c.method for c in h.fake.calls if c.status == 503} == {"ephemeral.send", "messages.create"}
        assert Rentals(h.deps.store).instance("feishu:" + h.send.tenant, "train-1").snoozed_until is None  # type: ignore[union-attr]


def test_an_old_cards_storage_button_leaves_new_storage_of_its_name_alone(tmp_path: Path) -> None:
    """Storage deleted, then new storage kept under its name: the old card's Keep was for the deleted one (its row
    id rides on the button), so the new one is not kept out of the digest, and the presser is told why."""
    with running_feishu(tmp_path, lang="en") as h:
        post = _digest(h)
        team, rentals = "feishu:" + h.send.tenant, Rentals(h.deps.store)
        keep = next(b for b in buttons(post["card"]) if b["behaviors"][0]["value"]["action"] == Action.STORAGE_KEEP)
        rentals.delete_storage(team, "ckpt-1", h.clock.now)
        fields = {"size_gb": 100.0, "price_gb_month": 0.7, "currency": "CNY", "owner": OWNER, "channel": GROUP,
                  "created_at": h.clock.now}  # fmt: skip
        new = rentals.track_storage(team, "ckpt-1", fields, None)
        assert answered_at_once(h.send.press(keep, user=OWNER, chat=GROUP, message_id=post["_message_id"]))
        [told] = h.told(OWNER, GROUP)
        assert "ckpt-1 now names another item: nothing was done to it" in told, told
        kept = rentals.storage_named(team, "ckpt-1")
        assert kept is not None and kept.id == new.id and kept.kept_until is None and kept.deleted_at is None
