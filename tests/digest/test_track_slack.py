"""`/gpu-advise track` from Slack: the token once and only to the typist, storage, and bad input named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.state.rentals import Rentals
from tests.support.slack_harness import Harness, running_app


def reply(h: Harness, text: str, n: int, user: str = "U1") -> dict[str, Any]:
    h.send.command(text, user=user, response_url=h.fake.response_url(str(n)))
    return h.fake.wait_for(lambda: (r := h.fake.of("response_url")) and len(r) >= n and r)[n - 1]  # type: ignore[no-any-return]


def test_track_an_instance_and_its_storage_from_slack(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        made = reply(h, "track train-1 gpu=A100 price=14/h share=1/2 project=llm owner=<@U2|bob>", 1)
        assert made["response_type"] == "ephemeral" and "shown once" in made["text"]
        token = made["text"].split("`")[1]
        rentals = Rentals(h.deps.store)
        inst = rentals.by_token(token)
        assert inst is not None and (inst.name, inst.owner, inst.channel, inst.unit, inst.price, inst.share) == (
            "train-1",
            "U2",
            "C1",
            "hour",
            14.0,
            0.5,
        )
        assert h.posts(channel="C1") == []  # the token never goes to the channel
        [told] = h.wait_posts(1, channel="U2")  # the owner learns someone tracked a box in their name
        assert "<@U1> tracked *train-1* for you in <#C1>" in told["text"] and token not in told["text"]
        stored = reply(h, "track storage ckpt size=340GB price=0.35 instance=train-1", 2)
        assert "¥119 a month" in stored["text"]
        assert rentals.storage("T1")[0].instance_id == inst.id
        assert len(h.posts(channel="U2")) == 1 and h.posts(channel="U1") == []  # your own storage: no DM to you


def test_bad_track_input_names_the_key_and_the_accepted_form(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        cases = [
            ("track x gpu=A100 price=cheap", "`price`"),
            ("track x gpu=Z9 price=1/h", "`gpu`"),
            ("track x gpu=A100 price=1/h cards=1.5", "share=1/2"),
            ("track x price=1/h", "gpu=A100-80GB"),
            ("track x gpu=A100 price=1/h owner=@bob", "member ID"),
            ("track x gpu=A100 price=1/h speed=9", "speed"),
            ("track x gpu=H800", "no dedicated price of H800-80GB"),
            ("track storage s size=-3 price=0.3", "must be above zero"),
            ("track storage s size=3 price=0.3 instance=nope", "no instance named 'nope'"),
        ]
        for n, (text, said) in enumerate(cases, start=1):
            assert said in reply(h, text, n)["text"], text
        assert Rentals(h.deps.store).instances("T1") == [] and Rentals(h.deps.store).storage("T1") == []


def test_without_a_price_the_price_cache_gives_one_and_says_so(tmp_path: Path) -> None:
    with running_app(tmp_path) as h:
        made = reply(h, "track box gpu=A100 cards=2", 1)
        assert "price cache" in made["text"] and "ratecard" in made["text"]
        [inst] = Rentals(h.deps.store).instances("T1")
        assert (inst.price, inst.unit, inst.currency) == (800.0, "day", "CNY")  # the bundled 400/day card, twice
