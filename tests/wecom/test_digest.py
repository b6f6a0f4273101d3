"""The digest in a WeCom group chat, end to end: `remind at 09:30 Asia/Shanghai` and an idle tracked item give a
digest card; Released clicked by the owner releases it and changes the card for everyone within WeCom's 5 s, clicked
by someone else changes nothing and is shown to them alone; a frame delivered twice is done once; a click answered
after WeCom's 5 s (a redo after a stop) sends the card anew."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from bot.chat.digest_messages import pressed_item
from bot.chat.ids import Action
from bot.state.rentals import Rentals
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI
from tests.support.fake_wecom import BOT_ID, Sent
from tests.support.idle_item import idle_item
from tests.support.wecom_harness import WeComHarness, running_wecom

ANA, BOB = "ana.li", "bob.wang"
GROUP = "wrkSFfCgAAxyzGroup01"
TEAM = f"wecom:{BOT_ID}"


def _idle_digest(h: WeComHarness) -> tuple[Rentals, Sent]:
    h.clock.now = MONDAY_0910_SHANGHAI
    h.fake.message("remind at 09:30 Asia/Shanghai daily", ANA, group=GROUP)
    h.fake.wait_for(lambda: h.fake.to(GROUP))
    h.settled()
    rentals = idle_item(h.deps.store, h.clock.now, TEAM, GROUP, ANA)
    h.clock.now += timedelta(minutes=21)
    [sent] = h.run_due()
    assert sent.status == "sent" and sent.channel == GROUP
    return rentals, h.fake.to(GROUP)[-1]


def _released(sent: Sent) -> dict[str, str]:
    return next(b for b in sent.buttons if json.loads(b["key"])["a"] == Action.RELEASED)


def test_the_owner_releases_from_the_digest_card_and_someone_else_cannot(tmp_path: Path) -> None:
    with running_wecom(tmp_path, lang="en") as h:
        rentals, digest = _idle_digest(h)
        assert "train-1" in digest.text and digest.card["card_type"] == "button_interaction"
        h.fake.click(digest, _released(digest), BOB)
        [(card, users)] = h.fake.wait_for(lambda: digest.updates)
        assert users == [BOB] and "train-1" in card["sub_title_text"]  # shown to Bob alone, on the card
        h.settled()
        assert (rentals.instance(TEAM, "train-1") or digest).released_at is None
        released_button = _released(digest)
        h.fake.click(digest, released_button, ANA, msgid="evt-release-1")
        h.fake.wait_for(lambda: len(digest.updates) == 2)
        assert "released" in digest.text.lower() and not digest.updates[-1][1]  # for everyone
        released = rentals.instance(TEAM, "train-1")
        assert released is not None and released.released_at is not None
        h.fake.click(digest, released_button, ANA, msgid="evt-release-1")  # the same frame again
        h.settled()
        assert len(digest.updates) == 2 and h.fake.refused_updates == 0  # done once


def test_a_message_delivered_twice_is_answered_once(tmp_path: Path) -> None:
    with running_wecom(tmp_path, lang="en") as h:
        h.fake.message("prices A100", ANA, group=GROUP, msgid="msgDup1")
        h.fake.message("prices A100", ANA, group=GROUP, msgid="msgDup1")
        h.fake.wait_for(lambda: h.fake.to(GROUP))
        h.settled()
        assert len(h.fake.to(GROUP)) == 1


def test_a_digest_of_several_items_gives_each_its_released_button(tmp_path: Path) -> None:
    """Past WeCom's six buttons a digest card showed the first box's four answers, one of the second's and the last
    box's Stopped: a third box had no Released. Each item's first answer now comes before any item's second."""
    with running_wecom(tmp_path, lang="en") as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        h.fake.message("remind at 09:30 Asia/Shanghai daily", ANA, group=GROUP)
        h.fake.wait_for(lambda: h.fake.to(GROUP))
        h.settled()
        for name in ("box-a", "box-b", "box-c"):
            rentals = idle_item(h.deps.store, h.clock.now, TEAM, GROUP, ANA, name=name)
        h.clock.now += timedelta(minutes=21)
        h.run_due()
        digest = h.fake.to(GROUP)[-1]
        pressed = [(json.loads(b["key"])["a"], json.loads(b["key"])["v"]) for b in digest.buttons]
        released = {pressed_item(v)[:2] for a, v in pressed if a == Action.RELEASED}
        assert len(pressed) == 6 and released == {("i", "box-a"), ("i", "box-b"), ("i", "box-c")}
        assert [a for a, _ in pressed].count(Action.STILL_NEEDED) == 3  # then each one's second answer
        last = next(
            b
            for b in digest.buttons
            if (a := json.loads(b["key"]))["a"] == Action.RELEASED and pressed_item(a["v"])[1] == "box-c"
        )
        h.fake.click(digest, last, ANA)
        h.fake.wait_for(lambda: digest.updates)
        h.settled()
        assert (rentals.instance(TEAM, "box-c") or digest).released_at is not None
        assert (rentals.instance(TEAM, "box-a") or digest).released_at is None
