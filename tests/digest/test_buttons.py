"""The digest's buttons, pressed over real signed HTTP: only the owner or an admin, and what each does."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.digest.send import send_digests
from bot.slack.digest_outlet import SlackOutlet
from bot.slack.inbox import redo_stalled
from bot.slack.ui.digest import render
from bot.state.digest_sends import Sends
from bot.state.power import PowerLog
from bot.state.rentals import RentalError, Rentals
from bot.text import Lang, t
from rules.samples import Sample
from tests.support.pending import until
from tests.support.slack_harness import Harness, running_app

FIELDS = {
    "gpu": "A100-80GB",
    "cards": 1,
    "share": None,
    "unit": "day",
    "price": 400.0,
    "currency": "CNY",
    "channel": "C1",
    "owner": "U1",
    "project": "llm",
}


def digest(h: Harness, *, storage: bool = False) -> tuple[Rentals, dict[str, Any]]:
    """An idle instance (and its checkpoint storage), and the digest message the fake Slack received."""
    rentals = Rentals(h.deps.store)
    now = h.clock.now
    inst, _ = rentals.track_instance("T1", "train-1", FIELDS | {"started_at": now - timedelta(hours=3)})
    quiet = [Sample(now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(120, -1, -5)]
    rentals.add_samples(inst.id, quiet, [None] * len(quiet))
    if storage:
        rentals.track_storage(
            "T1",
            "ckpt",
            {
                "size_gb": 340.0,
                "price_gb_month": 0.3,
                "currency": "CNY",
                "channel": "C1",
                "owner": "U1",
                "project": "llm",
                "created_at": now,
            },
            "train-1",
        )
    [outcome] = send_digests(
        rentals,
        Sends(h.deps.store),
        SlackOutlet(h.deps_client(), render),
        team="T1",
        channels=None,
        now=h.clock,
        rules=h.deps.policy.idle,
        lang=Lang.EN,
        zone=ZoneInfo("Asia/Shanghai"),
        pace_s=0,
    )
    assert outcome.status == "sent"
    return rentals, h.posts(channel="C1")[-1]


def updates(h: Harness, count: int) -> list[dict[str, Any]]:
    return h.fake.wait_for(lambda: (u := h.fake.of("chat.update")) and len(u) >= count and u)  # type: ignore[no-any-return]


def test_someone_else_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rentals, message = digest(h)
        status, _ = h.send.click(message, "rental_released", user="U7")
        assert status == 200
        [refusal] = h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
        assert refusal["user"] == "U7" and "Only <@U1>" in refusal["text"]
        inst = rentals.instance("T1", "train-1")
        assert inst is not None and inst.released_at is None
        assert h.fake.of("chat.update") == []


def test_the_owner_releases_it_and_is_asked_about_its_storage_in_the_same_message(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        rentals, message = digest(h, storage=True)
        h.send.click(message, "rental_released", user="U1", value="train-1")
        [update] = updates(h, 1)
        assert update["ts"] == message["_ts"]
        text = str(update["blocks"])
        assert "released by <@U1>" in text and "leaves storage *ckpt*" in text
        inst = rentals.instance("T1", "train-1")
        assert inst is not None and inst.released_at == h.clock.now  # it stops costing from the press
        # the question's Deleted button, in the updated message
        h.send.click(update | {"channel": "C1", "_ts": message["_ts"]}, "storage_deleted", user="U1", value="ckpt")
        second = updates(h, 2)[-1]
        assert "~ckpt~ deleted" in str(second["blocks"])
        assert rentals.storage("T1")[0].deleted_at == h.clock.now


def test_an_admin_may_answer_and_still_needed_snoozes_a_day(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        h.fake.admins.add("U9")
        rentals, message = digest(h)
        h.send.click(message, "rental_still_needed", user="U9")
        [update] = updates(h, 1)
        assert "still needed, says <@U9>" in str(update["blocks"])
        inst = rentals.instance("T1", "train-1")
        assert inst is not None and inst.snoozed_until == h.clock.now + timedelta(days=1)
        # not news while snoozed; news again (no data since) once the snooze is over
        h.clock.advance(hours=20)
        assert again(h, rentals) == "nothing"
        h.clock.advance(hours=5)
        assert again(h, rentals) == "sent"


def again(h: Harness, rentals: Rentals) -> str:
    return str(h.send_digest(force=True).status)


def test_a_message_slack_did_not_take_is_updated_again_by_itself_not_the_press(tmp_path: Path) -> None:
    """Released pressed while Slack answers chat.update with 5xx past the client's retries: the release is written
    and the press done; the message's update is kept as a request of its own, and the redo job makes it (the
    digest composed again from what is still listed, the answer's line at the top). Redoing the press instead
    would find the item released and tell the owner it is gone, the message never updated."""
    with running_app(tmp_path, slack_retry_backoff_s=0.01) as h:
        rentals, message = digest(h)
        h.fake.server_errors["chat.update"] = 4  # the first try and the client's three retries
        h.send.click(message, "rental_released", user="U1")
        h.fake.wait_for(lambda: len(h.fake.of("chat.update")) == 4)

        def the_update_alone() -> list[tuple[str, str, Any]]:
            left = h.deps.inbox.pending(timedelta(days=1))
            return left if len(left) == 1 and left[0][0].endswith(":card") else []  # the press done

        [(_, kind, _)] = until(the_update_alone)  # the inbox, not Slack: polled (tests/support/pending.py)
        assert kind == "slack_card_again"
        released = rentals.instance("T1", "train-1").released_at  # type: ignore[union-attr]
        assert released == h.clock.now
        h.fake.server_errors["chat.update"] = 4  # still down at the first redo: kept for the next
        assert redo_stalled(h.deps, h.deps_client(), timedelta(0)) == 1
        assert len(h.fake.of("chat.update")) == 8 and len(h.deps.inbox.pending(timedelta(days=1))) == 1
        assert redo_stalled(h.deps, h.deps_client(), timedelta(0)) == 1
        update = h.fake.of("chat.update")[-1]
        assert update["ts"] == message["_ts"] and update["channel"] == "C1"
        text = str(update["blocks"])
        assert "released by <@U1>" in text and "rental_released" not in text  # its line, no button left for it
        assert h.fake.of("chat.postEphemeral") == [] and h.deps.inbox.pending(timedelta(days=1)) == []
        assert rentals.instance("T1", "train-1").released_at == released  # type: ignore[union-attr]
        assert redo_stalled(h.deps, h.deps_client(), timedelta(0)) == 0


def test_an_update_made_again_keeps_the_other_items_buttons_and_the_header(tmp_path: Path) -> None:
    """The redo composes the digest again from what is still listed: an item not answered keeps its line and its
    buttons, and the message keeps its header (its language), as the first try's in-place edit does. Composed
    through the generic layout, it lost every button and the header."""
    with running_app(tmp_path, slack_retry_backoff_s=0.01) as h:
        rentals = Rentals(h.deps.store)
        now = h.clock.now
        other, _ = rentals.track_instance("T1", "train-2", FIELDS | {"started_at": now - timedelta(hours=3)})
        quiet = [Sample(now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(120, -1, -5)]
        rentals.add_samples(other.id, quiet, [None] * len(quiet))
        rentals, message = digest(h)
        h.fake.server_errors["chat.update"] = 4
        h.send.click(message, "rental_released", user="U1")
        h.fake.wait_for(lambda: len(h.fake.of("chat.update")) == 4)
        # the press done, its update alone kept (the inbox, not Slack: polled)
        until(lambda: [k[-5:] for k, _, _ in h.deps.inbox.pending(timedelta(days=1))] == [":card"])
        assert redo_stalled(h.deps, h.deps_client(), timedelta(0)) == 1
        blocks = h.fake.of("chat.update")[-1]["blocks"]
        assert blocks[0]["block_id"] == "digest:en" and "1 to look at" in str(blocks[0])
        buttons = [e for b in blocks if b["type"] == "actions" for e in b["elements"]]
        assert buttons and {b["block_id"] for b in blocks if b["type"] == "actions"} == {"act:i:train-2"}
        assert {e["action_id"] for e in buttons} >= {"rental_released", "rental_still_needed"}
        assert "released by <@U1>" in str(blocks)


def test_an_update_slack_refuses_for_good_is_said_and_not_kept(tmp_path: Path) -> None:
    """chat.update refused (not unreachable: the message can no longer be edited): the presser is told, as any
    request that fails on its own, and nothing stays pending to be redone."""
    with running_app(tmp_path) as h:
        rentals, message = digest(h)
        h.fake.errors["chat.update"] = "cant_update_message"
        h.send.click(message, "rental_released", user="U1")
        [note] = h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
        assert note["user"] == "U1"
        until(lambda: h.deps.inbox.pending(timedelta(days=1)) == [])
        assert rentals.instance("T1", "train-1").released_at == h.clock.now  # type: ignore[union-attr]
        assert redo_stalled(h.deps, h.deps_client(), timedelta(0)) == 0


def test_a_second_press_on_a_released_instance_says_it_is_gone(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        _, message = digest(h)
        h.send.click(message, "rental_released", user="U1")
        updates(h, 1)
        h.send.click(message, "rental_released", user="U1")
        [note] = h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
        assert "already released" in note["text"]


def test_a_press_updates_the_message_in_its_own_language_and_recounts_the_header(tmp_path: Path) -> None:
    """Issue 19.3: a zh-CN owner pressing Released on an English digest got Chinese lines under an
    English header that still counted the released item; 'not news until' named no zone (19.5)."""
    with running_app(tmp_path) as h:
        h.fake.locales["U1"] = "zh-CN"
        _, message = digest(h)  # posted in English
        assert message["blocks"][0]["block_id"] == "digest:en" and "1 to look at" in str(message["blocks"][0])
        h.send.click(message, "rental_still_needed", user="U1", value="train-1")
        [update] = updates(h, 1)
        said = json.dumps(update["blocks"], ensure_ascii=False)
        assert "still needed, says <@U1>" in said and "还在用" not in said
        assert (
            update["blocks"][0]["text"]["text"] == "GPU rentals: every item answered, all clear"
        )  # recounted: none left
        until = (h.clock.now + timedelta(days=1)).astimezone(ZoneInfo("Asia/Shanghai"))
        assert f"not news until {until:%m-%d %H:%M} Asia/Shanghai" in said
        assert not re.search(r"[\u4e00-\u9fff]", said)  # no Chinese in an English message


ENGLISH_WORDS = re.compile(r"\b(released|deleted|kept|still needed|look at|idle|says|month|Snooze|Keep)\b")


@pytest.mark.parametrize("lang", list(Lang))
def test_every_button_updates_a_digest_in_one_language(tmp_path: Path, lang: Lang) -> None:
    """Issue 19 'done': each digest and its update after every button, in both languages, never mixed
    (the pressers here read the other language)."""
    with running_app(tmp_path) as h:
        h.fake.locales["U1"] = "en-US" if lang is Lang.ZH else "zh-CN"
        rentals = Rentals(h.deps.store)
        now = h.clock.now
        for name in ("a", "b", "c"):
            inst, _ = rentals.track_instance("T1", name, FIELDS | {"started_at": now - timedelta(hours=3)})
            quiet = [Sample(now - timedelta(minutes=m), 0, 0, 1200, 81920) for m in range(120, -1, -5)]
            rentals.add_samples(inst.id, quiet, [None] * len(quiet))
        for name in ("s1", "s2"):
            rentals.track_storage(
                "T1",
                name,
                {
                    "size_gb": 340.0,
                    "price_gb_month": 0.3,
                    "currency": "CNY",
                    "channel": "C1",
                    "owner": "U1",
                    "project": "llm",
                    "created_at": now - timedelta(days=30),
                },
                None,
            )
        send_digests(
            rentals,
            Sends(h.deps.store),
            SlackOutlet(h.deps_client(), render),
            team="T1",
            channels=None,
            now=h.clock,
            rules=h.deps.policy.idle,
            lang=lang,
            zone=ZoneInfo("Asia/Shanghai"),
            pace_s=0,
        )
        message = h.posts(channel="C1")[-1]
        presses = [
            ("rental_released", "a"),
            ("rental_still_needed", "b"),
            ("rental_snooze_week", "c"),
            ("storage_deleted", "s1"),
            ("storage_keep", "s2"),
        ]
        for n, (action, name) in enumerate(presses, 1):
            h.send.click(message, action, user="U1", value=name)
            latest = updates(h, n)[-1]
            message = latest | {"channel": "C1", "_ts": message["_ts"]}
            said = json.dumps(latest["blocks"], ensure_ascii=False) + latest["text"]
            if lang is Lang.EN:
                assert not re.search(r"[\u4e00-\u9fff]", said), (action, said)
            else:
                assert not ENGLISH_WORDS.search(said), (action, said)
            assert latest["blocks"][0]["block_id"] == f"digest:{lang.value}"
        # every item answered: the header counts nothing left to look at
        assert latest["blocks"][0]["text"]["text"] == t("digest.header_clear", lang)  # not "0 to look at" (issue 53.21)


def test_an_admin_of_another_workspace_cannot_answer_for_this_ones_items(tmp_path: Path) -> None:
    """Issue 20.7: users.info is_admin was trusted without comparing the user's workspace with the item's."""
    with running_app(tmp_path) as h:
        h.fake.admins.add("UX")
        h.fake.user_teams["UX"] = "T9"  # an admin, of another workspace (a shared channel)
        rentals, message = digest(h)
        h.send.click(message, "rental_released", user="UX")
        [refusal] = h.fake.wait_for(lambda: h.fake.of("chat.postEphemeral"))
        assert refusal["user"] == "UX" and "Only <@U1>" in refusal["text"]
        inst = rentals.instance("T1", "train-1")
        assert inst is not None and inst.released_at is None


def test_one_impossible_figure_stops_only_its_own_channels_digest_and_gives_the_day_back(tmp_path: Path) -> None:
    """Issue 20.3: one storage row of infinite size stopped every digest of its workspace after the day
    was claimed. Rows like it can no longer be stored (check_numbers); one already stored harms no other."""
    from sqlalchemy import update

    from bot.state.schema import rental_storage

    with running_app(tmp_path) as h:
        rentals = Rentals(h.deps.store)
        now = h.clock.now
        for channel in ("C1", "C2"):
            rentals.track_storage(
                "T1",
                f"ckpt-{channel}",
                {
                    "size_gb": 340.0,
                    "price_gb_month": 0.3,
                    "currency": "CNY",
                    "channel": channel,
                    "owner": "U1",
                    "project": None,
                    "created_at": now - timedelta(days=40),
                },
                None,
            )
        with h.deps.store.writing() as conn:  # as an older version could have stored it
            conn.execute(update(rental_storage).where(rental_storage.c.name == "ckpt-C1").values(size_gb=float("inf")))
        outcomes = send_digests(
            rentals,
            Sends(h.deps.store),
            SlackOutlet(h.deps_client(), render),
            team="T1",
            channels=None,
            now=h.clock,
            rules=h.deps.policy.idle,
            lang=Lang.EN,
            zone=ZoneInfo("Asia/Shanghai"),
            pace_s=0,
        )
        # the impossible row is left out (and logged); the other channel's digest goes out
        assert {(o.channel, o.status) for o in outcomes} == {("C1", "nothing"), ("C2", "sent")}
        day = now.astimezone(ZoneInfo("Asia/Shanghai")).date()
        assert Sends(h.deps.store).sent_row("T1", "C1", day) is None  # not claimed: a fixed row goes out today
        with pytest.raises(RentalError) as refused:
            rentals.track_storage(
                "T1",
                "big",
                {
                    "size_gb": float("inf"),
                    "price_gb_month": 0.3,
                    "currency": "CNY",
                    "channel": "C1",
                    "owner": "U1",
                    "project": None,
                    "created_at": now,
                },
                None,
            )
        assert refused.value.code == "out_of_range" and refused.value.params["field"] == "size_gb"


def test_an_old_digests_button_does_nothing_to_a_new_box_of_the_same_name(tmp_path: Path) -> None:
    """A name is free again once its box is released; a button on a digest from before pressed Released on the
    new box of that name. The button carries its box's row id: the new box is left as it is, and the presser told."""
    with running_app(tmp_path) as h:
        rentals, message = digest(h)
        old = rentals.instance("T1", "train-1")
        assert old is not None
        rentals.release("T1", "train-1", h.clock.now, "U1")
        new, _ = rentals.track_instance("T1", "train-1", FIELDS | {"started_at": h.clock.now})
        for action in ("rental_released", "rental_stopped", "rental_still_needed"):
            h.send.click(message, action, user="U1", value="train-1")
        refusals = h.fake.wait_for(lambda: (e := h.fake.of("chat.postEphemeral")) and len(e) == 3 and e)
        assert all("now names another item: nothing was done to it" in r["text"] for r in refusals), refusals
        now = rentals.instance("T1", "train-1")
        assert now is not None and now.id == new.id and now.released_at is None and now.snoozed_until is None
        assert [r.source for r in PowerLog(h.deps.store).reports([new.id])[new.id]] == ["track"]  # not said off
