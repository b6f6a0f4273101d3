"""A person @mentioned in a DingTalk message: the text shows their name (`@张三`), atUsers their userId. `登记 …
负责人=@张三` was refused asking for a userId nobody knows; with one person mentioned, the name is that person."""

from __future__ import annotations

from pathlib import Path

from bot.state.rentals import Rentals
from tests.support.dingtalk_harness import running_dingtalk
from tests.support.fake_dingtalk import CORP

GROUP = "cidGroupM1+e2/n3=="
ALICE, BOB, CAROL = "alice01", "bob02", "carol03"


def _said(h: object, before: int) -> str:
    cards = list(h.fake.cards.values())  # type: ignore[attr-defined]
    return str(cards[before].params.get("markdown", ""))


def test_an_owner_mentioned_by_name_is_that_person(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path) as h:
        rentals = Rentals(h.deps.store)
        before = len(h.fake.cards)
        h.fake.message("登记 box-1 gpu=A100 price=14/h 负责人=@张三", ALICE, group=GROUP, at=(BOB,))
        h.settled()
        assert "box-1" in _said(h, before)
        found = rentals.instance(f"dingtalk:{CORP}", "box-1")
        assert found is not None and found.owner == BOB
        # two people mentioned: which name is whose is not said, so the name is refused with the userId form
        before = len(h.fake.cards)
        h.fake.message("登记 box-2 gpu=A100 price=14/h 负责人=@张三 @李四", ALICE, group=GROUP, at=(BOB, CAROL))
        h.settled()
        assert "<userId>" in _said(h, before) and rentals.instance(f"dingtalk:{CORP}", "box-2") is None
        # a word with @ inside it is no mention: an address stays as typed
        before = len(h.fake.cards)
        h.fake.message("登记 box-3 gpu=A100 price=14/h 负责人=a@b.cn", ALICE, group=GROUP, at=(BOB,))
        h.settled()
        assert "a@b.cn" in _said(h, before) and rentals.instance(f"dingtalk:{CORP}", "box-3") is None
