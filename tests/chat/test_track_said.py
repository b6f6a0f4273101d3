"""`track` typed as people type it, without keys: `登记 训练机 A800 8卡 每小时 60元 项目=llm` was refused asking for
key=value at "A800", on every chat. What is read is kept as its key would keep it; a word read as nothing is refused
naming itself, and nothing is kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.state.rentals import Rentals
from tests.chat.test_both_platforms import driving
from tests.support.fake_dingtalk import CORP


def test_an_instance_and_storage_tracked_in_words_keep_what_their_keys_would(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时 60元 项目=llm 负责人=我")
        chat.command("登记 半卡机 A100 80G 半卡 autodl 包月 3000/月")
        chat.command("track x1 H800 8 cards 关机不计费 阿里云 60元/小时 project=p")
        chat.command("登记 推理卡 4090 一天30 卡数=2")
        said = chat.command("登记 存储 ckpt 2T 三毛五一个G一个月 实例=训练机")
        assert "每月 ¥717" in said  # 2,048 GB at 0.35
        rentals = Rentals(chat.deps.store)
        team = next(iter(rentals.teams()))
        kept = {
            i.name: (i.gpu, i.cards, i.share, i.price, i.unit, i.project, i.provider, i.billing, i.stop_billing)
            for i in rentals.instances(team)
        }
        assert kept == {
            "训练机": ("A800-80GB", 8, None, 60.0, "hour", "llm", None, None, None),
            "半卡机": ("A100-80GB", 1, 0.5, 3000.0, "month", None, "autodl", "month", None),
            "x1": ("H800-80GB", 8, None, 60.0, "hour", "p", "aliyun", None, "stops"),
            "推理卡": ("RTX4090-24GB", 2, None, 30.0, "day", None, None, None, None),
        }
        [disk] = rentals.storage(team)
        assert (disk.name, disk.size_gb, disk.price_gb_month) == ("ckpt", 2048.0, 0.35)
        assert disk.instance_id == rentals.instance(team, "训练机").id  # type: ignore[union-attr]


def test_words_read_as_nothing_are_refused_naming_themselves_and_nothing_is_kept(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        unread = chat.command("登记 x4 A100 8卡 60/h 哈哈")
        assert "“哈哈”既不是卡型、卡数、价格、平台，也不是键=值（已读出：gpu=A100, cards=8卡, price=60/h）" in unread
        assert "例如 `登记 训练机 A800 8卡 每小时60元 项目=llm`" in unread
        assert "“gpu”给出了两次" in chat.command("登记 x3 A100 60/h gpu=H100")
        unknown = chat.command("登记 x2 A900 60/h")  # a card's name the catalogue lacks: refused as gpu= is
        assert "A900" in unknown and "A800-80GB" in unknown
        disk = chat.command("登记 存储 ck2 500 0.35")  # which is the size? not guessed: a bare figure is a price
        assert "“0.35”既不是带单位的容量（500G、2T）、每 GB 每月的价格" in disk and "已读出：price=500" in disk
        rentals = Rentals(chat.deps.store)
        assert not [i for team in rentals.teams() for i in rentals.instances(team)]
        assert not [s for team in rentals.teams() for s in rentals.storage(team)]


def test_the_refusal_is_in_english_for_an_english_speaker(tmp_path: Path) -> None:
    with driving("slack", tmp_path) as chat:
        said = chat.command("track box A100 8cards 60/h lol")
        assert "'lol' is not a GPU, cards, a price, a provider or key=value (read: gpu=A100, cards=8cards" in said


def test_what_is_missing_is_named_with_an_example_not_the_whole_usage(tmp_path: Path) -> None:
    """`登记 存储 日志盘 100G` and `登记 训练机` answered with the whole usage of both kinds; `每GB每月0.3元` (what it
    is per said first) was no storage price."""
    with driving("dingtalk", tmp_path) as chat:
        assert "训练机：是什么 GPU？例如 `track 训练机 A800 8卡 每小时60元`" in chat.command("登记 训练机")
        assert "日志盘：每 GB 每月多少钱？" in chat.command("登记 存储 日志盘 100G")
        assert "日志盘：多大？" in chat.command("登记 存储 日志盘 0.3元/GB/月")
        assert "每月 ¥30" in chat.command("登记 存储 日志盘 100G 每GB每月0.3元")
        rentals = Rentals(chat.deps.store)
        [disk] = [s for team in rentals.teams() for s in rentals.storage(team)]
        assert (disk.size_gb, disk.price_gb_month) == (100.0, 0.3)


def test_a_whole_disks_month_is_kept_and_a_month_that_could_be_a_gbs_is_asked(tmp_path: Path) -> None:
    """`登记存储 数据盘 1TB 每月500元` (a disk's month, as its console shows it) was refused as words read as nothing;
    `100G 每月2元`, which may be a GB's month or the disk's, was too, not asked which."""
    with driving("feishu", tmp_path) as chat:
        assert "每月 ¥500" in chat.command("登记存储 数据盘 1TB 每月500元")
        asked = chat.command("登记存储 日志盘 100G 每月2元")
        assert "每月的什么价格？" in asked and "整盘每月500元" in asked
        assert "每月 ¥2" in chat.command("登记存储 日志盘 100G 整盘 每月2元")
        assert "每月 ¥300" in chat.command("登记存储 ckpt size=2T price=300元/月")
        rentals = Rentals(chat.deps.store)
        kept = {s.name: s.size_gb * s.price_gb_month for team in rentals.teams() for s in rentals.storage(team)}
        assert kept == pytest.approx({"数据盘": 500.0, "日志盘": 2.0, "ckpt": 300.0})


def test_a_price_says_its_own_currency_and_a_price_in_another_is_refused(tmp_path: Path) -> None:
    """`track mybox H100 8 GPUs $2.5/h` was kept as ¥2.5 an hour (the sign dropped), `1.5 USD/hour` was refused;
    `billing box $8/h` on an item billed in yuan kept ¥8, and once a dollar price was kept the month added the
    yuan already billed as dollars."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("track mybox H100 8 GPUs $2.5/h project=llm")
        chat.command("track box3 4090 2 cards 1.5 USD/hour")
        chat.command("track box5 A100 60元/小时")
        assert "“$2/h”的币种与 CNY 不一致" in chat.command("track box4 A100 $2/h currency=CNY")
        rentals = Rentals(chat.deps.store)
        team = next(iter(rentals.teams()))
        kept = {i.name: (i.price, i.currency) for i in rentals.instances(team)}
        assert kept == {"mybox": (2.5, "USD"), "box3": (1.5, "USD"), "box5": (60.0, "CNY")}
        refused = chat.command("billing box5 $8/h")
        assert "“box5”按 CNY 计费，而这个价格是 USD" in refused, refused
        assert "$3,000/月" in chat.command("billing mybox 包月 3000美元")  # its own currency: kept
        assert rentals.instance(team, "box5").price == 60.0  # type: ignore[union-attr]


def test_a_storage_price_says_its_own_currency(tmp_path: Path) -> None:
    """`登记 存储 盘1 500G $0.02/GB/月` kept ¥0.02 a GB-month, the sign dropped; `0.02美元/GB/月` was refused."""
    with driving("dingtalk", tmp_path) as chat:
        assert "每月 $10" in chat.command("登记 存储 盘1 500G $0.02/GB/月")
        assert "每月 $10" in chat.command("登记 存储 盘2 500G 0.02美元/GB/月")
        assert "不一致" in chat.command("登记 存储 盘4 500G $0.02/GB/月 currency=CNY")
        rentals = Rentals(chat.deps.store)
        kept = {s.name: (s.price_gb_month, s.currency) for team in rentals.teams() for s in rentals.storage(team)}
        assert kept == {"盘1": (0.02, "USD"), "盘2": (0.02, "USD")}


def test_a_price_said_for_one_card_is_kept_as_the_whole_machines(tmp_path: Path) -> None:
    """`登记 m3 A800*8 每卡每小时7.5元` and `单卡7.5元/小时` were refused as words read as nothing: a price said per
    card is the machine's price over its cards (an instance's price is always its whole price)."""
    with driving("feishu", tmp_path) as chat:
        for name, said in (("m1", "A800*8 每卡每小时7.5元"), ("m2", "A800 8卡 单卡7.5元/小时"),
                           ("m3", "A800 8卡 7.5元/卡时"), ("m4", "A800 8卡 7.5元/卡/时")):  # fmt: skip
            assert "心跳令牌" in chat.command(f"登记 {name} {said}"), said
        chat.command("track m5 H100 8 cards $2.5/h each")
        rentals = Rentals(chat.deps.store)
        kept = {i.name: (i.price, i.unit, i.currency) for team in rentals.teams() for i in rentals.instances(team)}
        assert kept == {f"m{n}": (60.0, "hour", "CNY") for n in range(1, 5)} | {"m5": (20.0, "hour", "USD")}, kept


def test_a_price_said_with_its_label_is_the_price(tmp_path: Path) -> None:
    """`登记 训练机 A800 单价 12元每小时` was refused: "单价" read as no card, count, price or provider. A label before
    the price (单价, 价格：, rate) is read as what it is, glued to the price or not."""
    with driving("feishu", tmp_path) as chat:
        for name, said in (("m1", "A800 单价 12元每小时"), ("m2", "A800 8卡 价格：每小时60元"),
                           ("m3", "A800 租金为12/h")):  # fmt: skip
            assert "心跳令牌" in chat.command(f"登记 {name} {said}"), said
        chat.command("track m4 A100 rate $2/h")
        rentals = Rentals(chat.deps.store)
        kept = {i.name: (i.price, i.unit, i.currency) for team in rentals.teams() for i in rentals.instances(team)}
        assert kept == {"m1": (12.0, "hour", "CNY"), "m2": (60.0, "hour", "CNY"), "m3": (12.0, "hour", "CNY"),
                        "m4": (2.0, "hour", "USD")}, kept  # fmt: skip
        assert "未给出价格" in chat.command("登记 m5 A800 单价")  # a label and no price: the cache's, said so


def test_money_without_its_period_is_asked_for_the_period(tmp_path: Path) -> None:
    """`$2 per GPU` and `每卡7.5元` were "read as nothing", as if no price had been typed: the amount is named and
    asked what it pays for, with the forms that take it; nothing is kept."""
    with driving("slack", tmp_path) as chat:
        said = chat.command("track box A100 4 cards $2 per GPU")
        assert "'$2' does not say what it pays for: an hour, a day or a month" in said, said
        assert "`$2/h per GPU`" in said and "not a GPU" not in said
        assert "'lol' is not a GPU" in chat.command("track box A100 4 cards $2/h lol")  # a price and a stray word
    with driving("feishu", tmp_path / "zh") as chat:
        said = chat.command("登记 训练机 A800 8卡 每卡7.5元")
        assert "“7.5元”没说是多长时间的价" in said and "`每卡7.5元/小时`" in said, said
        assert "心跳令牌" in chat.command("登记 训练机 A800 8卡 每卡7.5元/小时")  # as the answer says, it is kept
        rentals = Rentals(chat.deps.store)
        kept = [(i.price, i.unit) for team in rentals.teams() for i in rentals.instances(team)]
        assert kept == [(60.0, "hour")]


def test_words_after_a_one_word_key_are_read_as_the_words_before_it(tmp_path: Path) -> None:
    """`登记 训练机 A800 8卡 项目=llm 每小时60元` kept "llm 每小时60元" as the project's value and tracked the box
    at the price cache's ¥80 an hour without a word: the price said was lost."""
    with driving("feishu", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 项目=llm 每小时60元")
        chat.command("登记 t2 A800 项目=llm 8卡 每小时60元 平台=autodl")
        refused = chat.command("登记 t3 A800 项目=llm 哈哈")
        assert "“哈哈”既不是卡型" in refused, refused
        rentals = Rentals(chat.deps.store)
        kept = {i.name: (i.price, i.project, i.cards) for team in rentals.teams() for i in rentals.instances(team)}
        assert kept == {"训练机": (60.0, "llm", 8), "t2": (60.0, "llm", 8)}, kept


def test_a_name_tracked_again_says_how_to_change_it_and_each_way_works(tmp_path: Path) -> None:
    """`登记 训练机 A800 4卡 …` over a 训练机 tracked with 8 cards said only that the name was taken, and a card or
    count tracked wrong could not be corrected (a name, released, is not tracked again): how to change its price
    and its card are said, the commands it names work, and so do the words people say it with."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        said = chat.command("登记 训练机 A800 4卡 每小时30元")
        assert "`billing 训练机 price=30/h`" in said and "`billing 训练机 cards=4`" in said, said
        assert "¥30/小时" in chat.command("billing 训练机 price=30/h")
        assert "A800-80GB × 4" in chat.command("billing 训练机 cards=4")
        rentals = Rentals(chat.deps.store)

        def machine() -> tuple[str, int, float | None]:
            found = rentals.instance(f"dingtalk:{CORP}", "训练机")
            assert found is not None
            return found.gpu, found.cards, found.price

        assert machine() == ("A800-80GB", 4, 30.0)  # the price, the whole machine's, as it was
        for words, then in (("训练机 8卡改成2卡", ("A800-80GB", 2)), ("训练机 换成H800", ("H800-80GB", 2)),
                            ("训练机 其实是8张A800", ("A800-80GB", 8)), ("训练机 卡数改成4", ("A800-80GB", 4)),
                            ("billing 训练机 gpu=910B cards=8 price=80/h", ("Ascend-910B-64GB", 8))):  # fmt: skip
            assert "× " in chat.command(words), words
            assert machine()[:2] == then, words
        assert machine()[2] == 80.0
        assert "X9" in chat.command("billing 训练机 gpu=X9") and machine()[:2] == ("Ascend-910B-64GB", 8)
        assert "无法识别“换成xyz”" in chat.command("训练机 换成xyz")  # no card: not read as one


def test_an_amount_alone_after_a_month_or_a_day_basis_is_that_periods_price(tmp_path: Path) -> None:
    """`登记 训练机 A800 8卡 包月 12000` was refused as "12000" read as nothing, though billing reads `包月 12000` as a
    month's price; an amount alone after 按量 stays refused (an hour's price said without its hour is not guessed), and
    a name nothing is tracked under asked when it is due is said to be none."""
    with driving("dingtalk", tmp_path) as chat:
        assert "已在这里登记 **训练机**" in chat.command("登记 训练机 A800 8卡 包月 12000 平台=autodl")
        chat.command("登记 训练机2 A800 包天 400")
        chat.command("登记 训练机3 A800 包月 1.2万元")
        assert "“12000”既不是卡型" in chat.command("登记 训练机4 A800 按量 12000")
        rentals = Rentals(chat.deps.store)
        kept = {i.name: (i.price, i.unit, i.billing) for i in rentals.instances(f"dingtalk:{CORP}")}
        assert kept == {
            "训练机": (12000.0, "month", "month"),
            "训练机2": (400.0, "day", "day"),
            "训练机3": (12000.0, "month", "month"),
        }
        assert "这里没有叫 **推理机** 的实例" in chat.command("推理机 什么时候到期")
