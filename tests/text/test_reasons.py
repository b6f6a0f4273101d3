"""The rent-or-buy sentence of one card said "3,640 for each of 1 cards"; several cards keep each card's share."""

from __future__ import annotations

from bot.text import Lang
from bot.text.reasons import render
from rules.decision import Advice, Topic


def test_one_card_is_not_said_as_each_of_one() -> None:
    params = {"hours": 3640, "per_card": 3640, "cards": 1, "threshold": 2000}
    one = Advice(topic=Topic.COST, id="consider_buying", params=params)
    said = "About 3,640 GPU-hours a year, above 2,000 a card: price owning a card against renting."
    assert render(one, Lang.EN) == said
    assert "张卡每张" not in render(one, Lang.ZH)
    params = {"hours": 8000, "per_card": 1000, "cards": 8, "threshold": 2000}
    eight = Advice(topic=Topic.COST, id="rent_not_buy", params=params)
    assert "1,000 for each of 8 cards" in render(eight, Lang.EN)
