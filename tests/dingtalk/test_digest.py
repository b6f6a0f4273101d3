"""The digest in a DingTalk group, end to end: `remind at 09:30 Asia/Shanghai` typed in the group and an idle
tracked item give a digest card; Released pressed by the owner releases it and updates the card for everyone,
pressed by someone else changes nothing and is said to them alone; a frame DingTalk delivers twice is done once."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.app import card_again
from bot.chat.ids import Action
from bot.dingtalk import events
from bot.state.rentals import Rentals
from tests.digest.test_schedule import FIELDS, MONDAY_0910_SHANGHAI
from tests.support.dingtalk_harness import DingTalkHarness, running_dingtalk
from tests.support.fake_dingtalk import CORP, Card
from tests.support.idle_item import idle_item
from tests.support.logs import warnings
from tests.support.pending import until

ANA, BOB = "manager4521", "staff0917"
GROUP = "cidGroupA1b2C3+d4/e5=="
SPACE = f"dtv1.card//IM_GROUP.{GROUP}"
TEAM = f"dingtalk:{CORP}"


def _idle_digest(h: DingTalkHarness) -> tuple[Rentals, Card]:
    h.clock.now = MONDAY_0910_SHANGHAI
    h.fake.message("remind at 09:30 Asia/Shanghai daily", ANA, group=GROUP)
    h.fake.wait_for(lambda: h.fake.in_space(SPACE))
    h.settled()
    rentals = idle_item(h.deps.store, h.clock.now, TEAM, GROUP, ANA)
    h.clock.now += timedelta(minutes=21)
    [sent] = h.run_due()
    assert sent.status == "sent" and sent.channel == GROUP
    return rentals, h.fake.in_space(SPACE)[-1]


def _released(card: Card) -> dict[str, str]:
    return next(b for b in card.buttons if json.loads(b["value"])["action"] == Action.RELEASED)


def test_the_owner_releases_from_the_digest_card_and_someone_else_cannot(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path, lang="en") as h:
        rentals, digest = _idle_digest(h)
        assert "train-1" in digest.params["markdown"] and digest.template.endswith(".schema")
        refused = h.fake.press(digest, _released(digest), BOB)
        assert "train-1" in refused["privateData"][BOB]["cardParamMap"]["tips"]  # said to Bob alone
        h.settled()
        assert (rentals.instance(TEAM, "train-1") or digest).released_at is None and digest.updates == 0
        button = _released(digest)
        answered = h.fake.press(digest, button, ANA, message_id="frame-release-1")
        h.fake.wait_for(lambda: digest.updates == 1)
        assert "released" in digest.params["markdown"].lower()
        assert digest.buttons == []  # its item answered, none left: the old buttons not kept by the update by key
        assert answered == {} or "released" in answered["cardData"]["cardParamMap"]["markdown"].lower()
        released = rentals.instance(TEAM, "train-1")
        assert released is not None and released.released_at is not None
        assert h.fake.press(digest, button, ANA, message_id="frame-release-1") == {}  # delivered again
        h.settled()
        assert digest.updates == 1  # done once


def test_a_message_delivered_twice_is_answered_once(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path, lang="en") as h:
        h.fake.message("prices A100", ANA, group=GROUP, msg_id="msgDup1")
        h.fake.message("prices A100", ANA, group=GROUP, msg_id="msgDup1")  # the same msgId, after a reconnect
        h.fake.wait_for(lambda: h.fake.in_space(SPACE))
        h.settled()
        assert len(h.fake.in_space(SPACE)) == 1


def test_the_groups_owner_may_answer_for_someone_elses_item(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path, lang="en") as h:
        rentals, digest = _idle_digest(h)
        h.fake.group_owners[GROUP] = "lead7788"  # DingTalk says who owns the group
        h.fake.press(digest, _released(digest), "lead7788")
        h.fake.wait_for(lambda: digest.updates == 1)
        released = rentals.instance(TEAM, "train-1")
        assert released is not None and released.released_at is not None
        assert h.gateway.health().get("last_failure") is None  # asking for a group's owner is no failure


def test_a_card_dingtalk_did_not_take_is_updated_again_by_itself_not_the_press(tmp_path: Path) -> None:
    """Released pressed while DingTalk answers the card's PUT with 503 past the client's retries: the release is
    written and the press done; the card's update is kept as a request of its own and the redo job makes it (the
    digest composed again, its answer's line at the top). Redoing the press instead would find the item released,
    and the card would keep its Released button for ever."""
    with running_dingtalk(tmp_path, lang="en", redo_after_s=1) as h:
        rentals, digest = _idle_digest(h)
        h.fake.unavailable["PUT /v1.0/card/instances"] = 4  # the first try and the client's three retries
        assert h.fake.press(digest, _released(digest), ANA, message_id="frame-release-2") == {}

        def the_update_alone() -> list[tuple[str, str, Any]]:
            left = h.deps.inbox.pending(timedelta(days=1))
            return left if len(left) == 1 and left[0][0].endswith(card_again.SUFFIX) else []  # the press done

        [(key, kind, _)] = until(the_update_alone)
        assert key == f"dingtalk-card:frame-release-2{card_again.SUFFIX}" and kind == events.CARD_AGAIN_KIND
        released = rentals.instance(TEAM, "train-1")
        assert released is not None and released.released_at == h.clock.now and digest.updates == 0
        h.fake.unavailable["PUT /v1.0/card/instances"] = 4  # still down at the first redo: kept for the next
        h.clock.now += timedelta(seconds=2)  # past GPU_ADVISOR_REDO_AFTER_S
        assert h.gateway.redo_stalled() == 1
        assert digest.updates == 0 and len(h.deps.inbox.pending(timedelta(days=1))) == 1
        h.clock.now += timedelta(seconds=2)  # past the first redo's claim
        assert h.gateway.redo_stalled() == 1
        assert digest.updates == 1 and h.deps.inbox.pending(timedelta(days=1)) == []
        shown = digest.params["markdown"]
        assert "released" in shown.lower() and not any(
            json.loads(b["value"])["action"] == Action.RELEASED for b in digest.buttons
        )
        assert (rentals.instance(TEAM, "train-1") or released).released_at == released.released_at
        assert h.gateway.redo_stalled() == 0


def test_report_on_demand_is_its_text_with_no_chart_drawn_for_a_chat_that_takes_no_files(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """DingTalk's robot sends no files: the report is its card's text, and no chart or CSV is made to be thrown
    away (matplotlib's import and first chart were about 0.8 s of CPU, and the log said each not sent)."""
    with running_dingtalk(tmp_path, lang="en") as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        Rentals(h.deps.store).track_instance(
            TEAM, "train-1", FIELDS | {"owner": ANA, "channel": GROUP, "started_at": h.clock.now - timedelta(days=9)}
        )
        h.fake.message("report last-week", ANA, group=GROUP)
        said = h.fake.wait_for(lambda: [c for c in h.fake.in_space(SPACE) if "11-23" in c.params["markdown"]])
        assert "¥2,800 spent" in said[0].params["markdown"]  # seven days at ¥400 a day
        h.settled()
    assert warnings(caplog) == []


def test_a_refusal_decided_after_the_acknowledgement_is_told_in_a_direct_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A press's refusal went only in its acknowledgement, which waits PRESS_WAIT_S for it: a press decided later
    (a slow moment, or a redo after a stop) was refused to nobody. It is told in the presser's chat with the robot;
    one decided in time is still said on the card alone."""
    from bot.dingtalk import gateway

    monkeypatch.setattr(gateway, "PRESS_WAIT_S", 0.0)  # every press decided after its acknowledgement
    with running_dingtalk(tmp_path, lang="en") as h:
        rentals, digest = _idle_digest(h)
        assert h.fake.press(digest, _released(digest), BOB) == {}  # acknowledged before it was decided
        h.settled()
        told = h.fake.wait_for(lambda: h.fake.in_space(f"dtv1.card//IM_ROBOT.{BOB}"))
        assert "train-1" in told[-1].params["markdown"], told[-1].params  # why, to Bob alone
        assert (rentals.instance(TEAM, "train-1") or digest).released_at is None and digest.updates == 0
    monkeypatch.setattr(gateway, "PRESS_WAIT_S", 5.0)
    with running_dingtalk(tmp_path / "in-time", lang="en") as h:
        rentals, digest = _idle_digest(h)
        refused = h.fake.press(digest, _released(digest), BOB)
        assert "train-1" in refused["privateData"][BOB]["cardParamMap"]["tips"]
        h.settled()
        assert h.fake.in_space(f"dtv1.card//IM_ROBOT.{BOB}") == []  # said once, on the card
