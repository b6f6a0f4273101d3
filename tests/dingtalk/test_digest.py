"""The digest in a DingTalk group, end to end: `remind at 09:30 Asia/Shanghai` typed in the group and an idle
tracked item give a digest card; Released pressed by the owner releases it and updates the card for everyone,
pressed by someone else changes nothing and is said to them alone; a frame DingTalk delivers twice is done once."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from bot.chat.ids import Action
from bot.state.rentals import Rentals
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI
from tests.support.dingtalk_harness import DingTalkHarness, running_dingtalk
from tests.support.fake_dingtalk import CORP, Card
from tests.support.idle_item import idle_item

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
