"""A prepaid balance topped up in chat (`autodl充值了2000`, `balance autodl +2000`, `topped up autodl with 500`):
`autodl 余额加2000` listed the balances and added nothing, `autodl充值了2000` was not understood. The amount is
added to what is left now; a request redone (its answer not delivered) adds it once."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from bot.state.balances import Balances
from tests.chat.test_both_platforms import GROUP, driving
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI
from tests.support.dingtalk_harness import running_dingtalk
from tests.support.fake_dingtalk import CORP
from tests.support.pending import settled, until

TEAM = f"dingtalk:{CORP}"


def _left(store: object, provider: str = "autodl") -> float:
    return next(b.amount for b in Balances(store).latest(TEAM) if b.provider == provider)  # type: ignore[arg-type]


def test_a_top_up_said_in_words_or_with_a_plus_is_added_to_what_is_left(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元 平台=autodl")
        refused = chat.command("autodl充值了2000")
        assert "还没有记录 autodl 的余额" in refused and not Balances(chat.deps.store).latest(TEAM), refused
        assert "amount" not in refused  # the field's name said first was noise to whoever typed words
        kept = chat.command("余额 autodl 3000")  # two days and more: said in days too (it was "50 小时" alone)
        assert "约可用 2.1 天（50 小时）" in kept, kept
        chat.h.clock.now += timedelta(hours=2)  # type: ignore[attr-defined]  # ¥120 billed
        said = chat.command("autodl充值了2000")
        assert "充值 ¥2,000；此前约剩 ¥2,880，现在约 ¥4,880" in said, said
        assert _left(chat.deps.store) == 4880
        for words, total in (("给autodl充值2000", 6880), ("autodl 余额加2000", 8880), ("充值 autodl 500", 9380),
                             ("balance autodl +500", 9880), ("余额 autodl 充值 100", 9980),
                             ("topped up autodl with 10", 9990), ("added 10 to autodl", 10000),
                             ("余额 +1000 autodl", 11000)):  # fmt: skip  # the provider last: "no provider +1000"
            said = chat.command(words)
            assert "充值 ¥" in said or "topped up ¥" in said, (words, said)
            assert _left(chat.deps.store) == total, words
        assert "不能加上 USD 的充值" in chat.command("balance autodl +$5")
        assert "去掉时间" in chat.command("balance autodl +5 at=9:00")
        chat.command("autodl 还剩300元")  # a balance said is still the balance
        assert _left(chat.deps.store) == 300
        chat.h.clock.now += timedelta(hours=6)  # type: ignore[attr-defined]  # ¥360 billed: ¥60 owed
        assert "已欠费 ¥60，多于充值的 ¥50" in chat.command("autodl充值了50")
        assert _left(chat.deps.store) == 300  # nothing kept


def test_a_top_up_redone_after_its_answer_was_not_delivered_is_added_once(tmp_path: Path) -> None:
    with running_dingtalk(tmp_path, redo_after_s=1) as h:
        h.clock.now = MONDAY_0910_SHANGHAI
        h.fake.message("余额 autodl 3000", "starter01", group=GROUP)
        settled(h.deps)
        h.fake.unavailable["POST /v1.0/card/instances/createAndDeliver"] = 4  # the first try and three retries
        h.fake.message("autodl充值了2000", "starter01", group=GROUP)
        until(
            lambda: (
                _left(h.deps.store) == 5000 and not h.fake.unavailable.get("POST /v1.0/card/instances/createAndDeliver")
            )
        )
        assert len(h.deps.inbox.pending(timedelta(days=1))) == 1  # the answer not delivered: left to be redone
        h.clock.now += timedelta(seconds=2)  # past GPU_ADVISOR_REDO_AFTER_S
        assert h.gateway.redo_stalled() == 1
        assert h.deps.inbox.pending(timedelta(days=1)) == [] and _left(h.deps.store) == 5000  # not 7000
        answered = list(h.fake.cards.values())[-1].params["markdown"]
        assert "充值 ¥2,000；此前约剩 ¥3,000，现在约 ¥5,000" in answered, answered


def test_a_balance_asked_after_and_when_it_is_told(tmp_path: Path) -> None:
    """`余额快用完了吗`, `余额不足了怎么办`, `余额低于500提醒我` got balance's usage line, `autodl 剩2000` was an
    unknown sub-command: the balances (with when they are told: by the hours left, the policy's), the balance kept."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元 平台=autodl")
        chat.command("autodl 剩2000")
        assert _left(chat.deps.store) == 2000
        for asked in ("余额快用完了吗", "余额不足了怎么办"):
            said = chat.command(asked)
            assert "autodl：约剩 ¥2,000" in said and "请用" not in said, said
        said = chat.command("余额多少的时候提醒")
        assert "低于 48、12 小时" in said and "autodl：约剩 ¥2,000" in said, said
        said = chat.command("余额低于500提醒我")  # an amount said: kept (tests/metering/test_balance_floor.py)
        assert "各平台的余额低于 500 时会在这里提醒" in said and "autodl：约剩 ¥2,000" in said, said
        assert _left(chat.deps.store) == 2000  # asking kept nothing


def test_a_balance_with_its_provider_named_last_is_that_providers(tmp_path: Path) -> None:
    """`余额 3200 aliyun` was refused as no provider named "3200"."""
    with driving("dingtalk", tmp_path) as chat:
        assert "aliyun：约剩 ¥3,200" in chat.command("余额 3200 aliyun")
        assert _left(chat.deps.store, "aliyun") == 3200
        assert "aliyun：约剩 ¥5,000" in chat.command("余额 5000 阿里云")
