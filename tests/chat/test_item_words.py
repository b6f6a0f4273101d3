"""A message that starts with a tracked instance's name says what happened to it (`训练机 关机了`): each was an
unknown sub-command naming the instance. Off and on are its power; done with it asks back the release to send."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

import pytest

from bot.state.power import PowerLog
from bot.state.rentals import Rentals
from rules.power import Power
from tests.chat.test_both_platforms import GROUP, driving
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI
from tests.support.fake_dingtalk import CORP
from tests.support.fake_wecom import BOT_ID as WECOM_BOT

TEAM = f"dingtalk:{CORP}"


def power_now(chat: object, name: str) -> Power:
    """What was said last of its power."""
    store = chat.deps.store  # type: ignore[attr-defined]
    inst = Rentals(store).instance(TEAM, name)
    assert inst is not None
    return PowerLog(store).reports([inst.id])[inst.id][-1].state


def test_off_on_and_done_said_after_its_name(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        clock = chat.h.clock  # type: ignore[attr-defined]
        clock.advance(minutes=5)
        assert "自此刻关机" in chat.command("训练机 关机了") and power_now(chat, "训练机") is Power.OFF
        clock.advance(minutes=5)
        assert "自此刻开机" in chat.command("训练机已开机") and power_now(chat, "训练机") is Power.ON
        asked = chat.command("训练机，用完了")
        assert "发送 `释放 训练机`" in asked, asked
        assert Rentals(chat.deps.store).instance(TEAM, "训练机").released_at is None  # type: ignore[union-attr]
        clock.advance(minutes=5)
        chat.command("训练机 is off")
        assert power_now(chat, "训练机") is Power.OFF
        other = chat.command("训练机 哈哈")  # a name and anything else: what it takes, named
        assert "**训练机** 是已登记的资源，但无法识别“哈哈”" in other and "`训练机 关机了`" in other, other
        assert "训练机" in chat.command("训练机") and "未知" not in chat.command("训练机")  # alone: how it is


def test_said_while_a_profile_is_open_where_chats_have_no_threads(tmp_path: Path) -> None:
    """DingTalk has no threads: every message went to the open profile, which refused `训练机 关机了` as an answer."""
    with driving("dingtalk", tmp_path) as chat:
        chat.start()
        chat.command("登记 训练机 A800 8卡 每小时60元")
        asked = chat.convo()
        assert "自此刻关机" in chat.command("训练机 关机了")
        after = chat.convo()
        assert (after.status, after.answers, after.question_ts) == ("active", asked.answers, asked.question_ts)


def test_kept_storage_said_deleted_asks_back_the_delete(tmp_path: Path) -> None:
    """`数据盘 删了` was an unknown sub-command: it asks back with `删除存储 数据盘` to send; nothing is marked."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 存储 数据盘 500G 0.3元/GB/月")
        for said in ("数据盘 删了", "数据盘，不用了", "数据盘 is deleted"):
            answer = chat.command(said)
            assert "`删除存储 数据盘`" in answer or "`delete-storage 数据盘`" in answer, (said, answer)
        kept = Rentals(chat.deps.store).storage_named(TEAM, "数据盘")
        assert kept is not None and kept.deleted_at is None


def test_whose_an_item_is_is_its_line_of_the_list(tmp_path: Path) -> None:
    """`训练机是谁的`, `who owns 训练机` were unknown sub-commands, and `list 训练机` refused as no project."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元 项目=llm")
        for asked in ("训练机是谁的", "训练机 的负责人", "who owns 训练机", "list 训练机", "列表 训练机"):
            said = chat.command(asked)
            assert "训练机" in said and "@Starter01" in said and "A800-80GB × 8" in said, (asked, said)
        assert "不是这里的项目或资源" in chat.command("列表 哈哈")


def test_how_it_is_what_it_costs_and_a_release_asked_with_the_name_inside(tmp_path: Path) -> None:
    """`训练机 停了吗` and `训练机 多少钱` were "not read", `训练机 花了多少` was refused as a report period named
    训练机, `数据盘 多少钱一个月` and `把训练机释放掉` were unknown sub-commands."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        chat.command("登记存储 数据盘 1TB 每月500元")
        clock = chat.h.clock  # type: ignore[attr-defined]
        clock.advance(minutes=5)
        chat.command("训练机 关机了")
        clock.advance(minutes=5)
        for asked in ("训练机 停了吗", "训练机 还在跑吗", "训练机的状态", "训练机 is it on?"):
            said = chat.command(asked)
            assert "**训练机** 现在关机" in said or "**训练机** is off" in said, (asked, said)
        for asked in ("训练机 多少钱", "训练机 花了多少", "训练机 how much"):
            said = chat.command(asked)
            assert "¥60/小时" in said or "¥60/hour" in said, (asked, said)
        assert "每月 ¥500" in chat.command("数据盘 多少钱一个月")
        assert "发送 `释放 训练机`" in chat.command("把训练机释放掉")
        assert "`删除存储 数据盘`" in chat.command("帮我把数据盘删了")
        rentals = Rentals(chat.deps.store)
        assert rentals.instance(TEAM, "训练机").released_at is None  # type: ignore[union-attr]
        assert [s.deleted_at for s in rentals.storage(TEAM)] == [None]  # words never release nor delete
        assert "缓存的价格" in chat.command("A100多少钱")  # a GPU's price question is still that


def test_english_questions_with_an_apostrophe_or_the_name_inside_and_courtesy(tmp_path: Path) -> None:
    """`what's idle` (the help's own example) was "could not split the text into answers; close every quote": the
    apostrophe read as a quote. `is box1 still running?` and `how much has box1 cost` were unknown sub-commands, and
    `release box1 please` looked for an instance named "please"."""
    with driving("slack", tmp_path) as chat:
        chat.command("track box1 A100 8 cards 14/h")
        assert "Nothing to look at in" in chat.command("what's idle")  # the digest's answer, not a quote error
        assert "whether it is on or off now is not known" in chat.command("is box1 still running?")
        assert "¥14/hour for all 8 cards" in chat.command("how much has box1 cost")
        assert "¥14/hour for all 8 cards" in chat.command("what's box1 costing us")
        assert "¥14/hour" in chat.command("list thanks")
        assert "was already released" not in chat.command("please power box1")  # its stretches, the courtesy dropped
        chat.in_group("release box1 please")
        assert Rentals(chat.deps.store).instance("T1", "box1").released_at is not None  # type: ignore[union-attr]


def test_off_or_on_said_with_when_it_happened_bills_from_then(tmp_path: Path) -> None:
    """`训练机 昨晚11点关的`, `训练机 2小时前开机了` (what a person reports the morning after) were "not read": the time
    said with it is `power`'s at=, so the bill follows when it happened, not when it was said."""
    with driving("dingtalk", tmp_path) as chat:
        clock = chat.h.clock  # type: ignore[attr-defined]
        clock.now = MONDAY_0910_SHANGHAI  # 2 h ago is after last night's 23:00, whatever the hour the test runs
        chat.command("登记 训练机 A800 8卡 每小时60元 起租=3天前")
        said = chat.command("训练机 昨晚11点关的")
        assert "起关机" in said and "23:00" in said, said
        store = chat.deps.store
        inst = Rentals(store).instance(TEAM, "训练机")
        assert inst is not None
        off = PowerLog(store).reports([inst.id])[inst.id][-1]
        assert off.state is Power.OFF and off.at < clock.now - timedelta(hours=1)  # then, not now
        assert "起开机" in chat.command("训练机 2小时前开机了")
        assert power_now(chat, "训练机") is Power.ON
        assert "起关机" in chat.command("训练机 关机 at=1小时前")


def test_switching_off_asked_whether_to_release_and_how_long_it_ran(tmp_path: Path) -> None:
    """`关掉训练机`, `stop 训练机` and `训练机可以释放吗` were unknown sub-commands, `训练机用了多久` too: the bot says
    it switches nothing off when asked and what it does instead (nothing changes), asks back the release, and says
    how it has been this month."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        assert "¥60/" in chat.command("how much is 训练机 costing per day")  # its line of the list
        for asked in (
            "关掉训练机",
            "停掉 训练机",
            "帮我把训练机关了",
            "please shut down 训练机",
            "shut down 训练机 tonight",
        ):  # in words, or with no time read: asked back with `stop 训练机` to send (a word misread stops nothing)
            said = chat.command(asked)
            assert "要我现在停掉" in said or "To have me stop" in said, (asked, said)
            assert "`训练机 关机了`" in said or "`训练机 is off`" in said, said
        # the command itself: a box tracked by hand is none the bot can stop, said with what to do instead
        assert "机器人无法替你停掉 **训练机**" in chat.command("stop 训练机")
        assert "会在这里提醒负责人" in chat.command("stop 训练机 at 11pm")  # at a time: its owner told then
        assert power_now(chat, "训练机") is Power.ON  # asked, not said: nothing recorded
        assert "发送 `释放 训练机`" in chat.command("训练机可以释放吗")
        chat.h.clock.advance(minutes=5)  # type: ignore[attr-defined]
        for asked in ("训练机用了多久", "训练机 这个月开了多少小时"):  # 闲了多久: its idle hours (below)
            assert "**训练机** 现在开机" in chat.command(asked), asked
        assert "没读懂“关掉哈哈”" in chat.command("关掉哈哈")  # no item named: not read as one
        assert "A100 是卡型：请先给机器起个名字" in chat.command("登记 A100")
        assert "RTX4090-24GB 是卡型" in chat.command("我租了一台4090")  # said without a name: asked for one


def test_still_needed_said_in_words_snoozes_the_item_not_the_channel(tmp_path: Path) -> None:
    """`训练机 先别提醒了` turned the whole channel's digest off (read as 不要提醒了), and `训练机明天还要用` was an
    unknown sub-command: either is the digest's Still needed for that item (a day; `这周都还要用` a week), its owner's
    or an admin's; the channel's digest stays on."""
    from bot.state.schedules import Schedules

    with driving("dingtalk", tmp_path) as chat:
        chat.command("提醒 9:30")
        chat.command("登记 训练机 A800 8卡 每小时60元")
        now = chat.h.clock.now  # type: ignore[attr-defined]
        said = chat.command("训练机 先别提醒了")
        assert "训练机：@Starter01 表示还在用" in said and "前不再提醒" in said, said
        inst = Rentals(chat.deps.store).instance(TEAM, "训练机")
        assert inst is not None and inst.snoozed_until == now + timedelta(days=1)
        plan = Schedules(chat.deps.store, chat.deps.settings.digest.default_schedule()).of(TEAM, GROUP)
        assert plan.enabled  # the channel's digest is as it was
        chat.command("训练机 这周都还要用")
        inst = Rentals(chat.deps.store).instance(TEAM, "训练机")
        assert inst is not None and inst.snoozed_until == now + timedelta(days=7)
        assert "前不再提醒" in chat.command("训练机明天还要用")
        chat.command("登记存储 数据盘 1TB 每月500元")
        assert "选择保留" in chat.command("数据盘 先别提醒了")  # kept storage: its Keep
        assert Schedules(chat.deps.store, chat.deps.settings.digest.default_schedule()).of(TEAM, GROUP).enabled


def test_a_price_changed_deleting_asked_and_how_long_it_ran_in_words(tmp_path: Path) -> None:
    """`把训练机的价格改成每小时50元`, `change box1 price to 55/h`, `delete 训练机` and `how long has 训练机 been
    running` were unknown sub-commands: the price set as `billing NAME price=` sets it, the release (never made
    from words) asked back, and how it has been this month."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        chat.command("登记存储 数据盘 1TB 每月500元")
        assert "¥50/小时" in chat.command("把训练机的价格改成每小时50元")
        inst = Rentals(chat.deps.store).instance(TEAM, "训练机")
        assert inst is not None and (inst.price, inst.unit) == (50.0, "hour")
        assert "¥55/" in chat.command("change 训练机 price to 55/h")
        # a bare amount is per what it is priced by now (`price: 50 not understood` before), and asked of it
        assert "¥45/小时" in chat.command("训练机 单价改成45")
        assert "¥45/小时" in chat.command("训练机 现在多少钱一小时")  # its line of the list (an unread word before)
        assert "¥40/小时" in chat.command("billing 训练机 price=40")
        chat.command("训练机 价格改成每天900")
        assert "¥800/天" in chat.command("训练机 单价改成800")  # a day's now
        assert "无法识别“关机不计费”" in chat.command("训练机 单价改成 关机不计费")  # no amount: refused, named
        inst = Rentals(chat.deps.store).instance(TEAM, "训练机")
        assert inst is not None and (inst.price, inst.unit) == (800.0, "day")
        assert "`释放 训练机`" in chat.command("delete 训练机")  # asked back: never released from words
        assert "`删除存储 数据盘`" in chat.command("delete 数据盘")
        assert Rentals(chat.deps.store).instance(TEAM, "训练机").released_at is None  # type: ignore[union-attr]
        chat.h.clock.advance(minutes=5)  # type: ignore[attr-defined]
        assert "**训练机** 现在开机" in chat.command("how long has 训练机 been running")


def test_still_needed_said_by_someone_else_is_refused_naming_the_owner(tmp_path: Path) -> None:
    import json

    from tests.chat.test_both_platforms import STRANGER
    from tests.support.pending import settled

    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        before = len(chat.h.fake.cards)  # type: ignore[attr-defined]
        chat.h.fake.message("训练机 先别提醒了", chat.ids[STRANGER], group=GROUP)  # type: ignore[attr-defined]
        settled(chat.deps)
        said = json.dumps(list(chat.h.fake.cards.values())[before].params, ensure_ascii=False)  # type: ignore[attr-defined]
        assert "只有负责人" in said and "训练机" in said, said
        inst = Rentals(chat.deps.store).instance(TEAM, "训练机")
        assert inst is not None and inst.snoozed_until is None


def test_said_as_chinese_teams_say_it_with_a_verb_or_a_courtesy_glued(tmp_path: Path) -> None:
    """Each of these was refused or misread: `给llm项目设置预算5万` kept a budget of a project named 给llm项目设置;
    `帮我登记一台机器 训练机 …` asked for a name, `把提醒改到每天早上10点` and `删除训练机` were unknown, `余额还有多少`
    was answered with the usage, `训练机 每天多少钱` and `训练机什么时候开始的` were not read."""
    from bot.state.budgets import Budgets

    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        assert "已在这里登记 **训练机**" in chat.command("帮我登记一台机器 训练机 A800 8卡 每小时60元")
        inst = Rentals(chat.deps.store).instance(TEAM, "训练机")
        assert inst is not None and (inst.gpu, inst.cards, inst.price) == ("A800-80GB", 8, 60.0)
        chat.command("给llm项目设置预算5万")
        chat.command("设置预算 cv 30000")
        assert sorted(Budgets(chat.deps.store).of(TEAM)) == [("cv", "CNY"), ("llm", "CNY")]
        assert "10:00" in chat.command("把提醒改到每天早上10点")
        assert "提醒已关闭" in chat.command("把提醒关了")  # 关了 is a switch's off, as 关闭 is
        assert "预付余额" in chat.command("余额还有多少") and "balance 平台 金额" in chat.command("余额还有多少")
        assert "¥60/小时" in chat.command("训练机 每天多少钱")
        chat.h.clock.advance(minutes=5)  # type: ignore[attr-defined]
        assert "**训练机** 现在" in chat.command("训练机什么时候开始的")
        for asked in ("训练机什么时候开始租的", "训练机 是哪天开始租的", "训练机几号起租的"):  # not read before
            assert "**训练机** 现在" in chat.command(asked), asked
        asked = chat.command("删除训练机")
        assert "`释放 训练机`" in asked and Rentals(chat.deps.store).instance(TEAM, "训练机").released_at is None  # type: ignore[union-attr]
        needs = chat.command("我要跑一个72B的模型推理需要几张卡")
        assert "A100-80GB × 2" in needs, needs
        assert "A100-80GB × 1 的费用" in chat.command("租一张A100一个月大概多少钱")


def test_how_it_bills_said_and_the_sources_and_auto_stop_asked(tmp_path: Path) -> None:
    """`训练机 包月了`, `训练机改成包月 每月2万`, `训练机 按量计费` were not read (they mean `billing NAME
    包月 …`); `价格多久更新一次` was refused as an unknown GPU named 多久更新一次, `汇率是多少` unknown;
    `闲置超过2小时自动关机` was refused as `idle`'s words: now the policy and how `act stop` works (an admin's
    choice, never set from words)."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        said = chat.command("训练机 包月了")  # a month at ¥60 an hour: what a month is billed, said
        assert "每月按此折算计 ¥43,200" in said and "`billing 训练机 price=每月2万`" in said, said
        assert "折算" not in chat.command("训练机改成包月 每月2万")  # its own monthly price
        inst = Rentals(chat.deps.store).instance(TEAM, "训练机")
        assert inst is not None and (inst.billing, inst.price, inst.unit) == ("month", 20000.0, "month")
        chat.command("训练机 按量计费")
        assert Rentals(chat.deps.store).instance(TEAM, "训练机").billing == "hourly"  # type: ignore[union-attr]
        status = chat.command("价格多久更新一次")
        assert "价格来源" in status and "`ratecard`" in status and "汇率 1 USD = 7.2 CNY" in status, status
        assert "gpu-advise prices refresh" in status and status == chat.command("汇率是多少")
        asked = chat.command("闲置超过2小时自动关机")
        assert "`act stop [grace=4h]`" in asked and "闲置 60 分钟" in asked, asked


def test_said_as_english_speaking_teams_say_it(tmp_path: Path) -> None:
    """Each was refused or misread: `how much did box1 cost yesterday` (a project named box1), `box2 belongs to
    @someone` (not read), `release box1 and box2` (an instance named "and"), `runpod balance is 500 dollars` (listed,
    not recorded), and `runpod 500` kept ¥500 where RunPod bills in dollars."""
    from bot.state.balances import Balances

    with driving("dingtalk", tmp_path) as chat:
        chat.command("track box1 A100 2/h provider=runpod")
        chat.command("track box2 H100 3.5/h")
        chat.command("track box3 H100 3.5/h")
        box1 = Rentals(chat.deps.store).instance(TEAM, "box1")
        assert box1 is not None and (box1.price, box1.currency) == (2.0, "USD")  # RunPod's dollars
        assert "**box1**" in chat.command("how much did box1 cost yesterday")
        assert "**box1**" in chat.command("what's running right now")
        before = Rentals(chat.deps.store).instance(TEAM, "box2")
        chat.command("box2是A100")  # no owner named A100: 是 sets nobody
        same = Rentals(chat.deps.store).instance(TEAM, "box2")
        assert before is not None and same is not None and same.owner == before.owner
        assert "box2" in chat.command("box2 belongs to @someone02")
        after = Rentals(chat.deps.store).instance(TEAM, "box2")
        assert before is not None and after is not None and after.owner != before.owner
        chat.command("runpod balance is 500 dollars")
        [kept] = Balances(chat.deps.store).latest(TEAM)
        assert (kept.provider, kept.amount, kept.currency) == ("runpod", 500.0, "USD")
        assert "off" in chat.command("turn off the daily digest")
        chat.command("release box1 and box3")
        rentals = Rentals(chat.deps.store)
        assert all(rentals.instance(TEAM, n).released_at is not None for n in ("box1", "box3"))  # type: ignore[union-attr]
        gone = chat.command("box1花了多少钱")  # released: still its line of the list (a period named box1 before)
        assert "**box1**" in gone and "已释放" in gone, gone


@pytest.mark.parametrize("platform", ["feishu", "dingtalk", "wecom"])
def test_an_unexpected_error_is_said_with_its_id_and_the_work_is_done(
    platform: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug in a sub-command (here injected into `list`) went up to the chat's gateway: a chat without threads said
    nothing and kept the work to be redone, failing again each time. It is said with an error id the log has."""
    from bot.app import table

    def broken(inv: object, args: list[str]) -> None:
        raise ValueError("a bug")

    monkeypatch.setitem(table.SUBCOMMANDS, "list", broken)
    with driving(platform, tmp_path) as chat:
        said = chat.command("list")  # the harness waits for the work to be done: pending, it would fail
        ref = said.split("错误编号 `")[1].split("`")[0]
        assert "出错了" in said and len(ref) == 8, said
        assert any(ref in r.getMessage() and r.exc_info for r in caplog.records)


def test_still_needed_until_a_day_is_still_needed_until_that_day_ends(tmp_path: Path) -> None:
    """`训练机 周五之前还要用` (until Friday), `训练机 用到下周一`, `box1 is still needed until friday` were words not
    read: Still needed until the end of the day named, in the channel's zone; a day past or more than 31 days off
    is refused, saying how to say it, and nothing changes."""
    from zoneinfo import ZoneInfo

    shanghai = ZoneInfo("Asia/Shanghai")
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元")

        def until() -> datetime:
            inst = Rentals(chat.deps.store).instance(TEAM, "训练机")
            assert inst is not None and inst.snoozed_until is not None
            return inst.snoozed_until.astimezone(shanghai)

        assert "12-05 00:00" in chat.command("训练机 周五之前还要用")  # Monday 30 November: Friday's end
        assert until() == datetime(2026, 12, 5, tzinfo=shanghai)
        chat.command("训练机 用到下周一")
        assert until() == datetime(2026, 12, 8, tzinfo=shanghai)
        chat.command("训练机 is still needed until friday")
        assert until() == datetime(2026, 12, 5, tzinfo=shanghai)
        refused = chat.command("训练机 40号之前还要用")
        assert "不是今后 31 天内" in refused and "`训练机 周五之前还要用`" in refused, refused
        assert until() == datetime(2026, 12, 5, tzinfo=shanghai)  # unchanged
        assert "还在用" in chat.command("训练机 明天还要用")  # a day, as before (the button's)
        assert until() == MONDAY_0910_SHANGHAI.astimezone(shanghai) + timedelta(days=1)


def test_the_provider_and_the_owner_said_in_words_and_spend_asked_by_whom(tmp_path: Path) -> None:
    """`训练机 平台是autodl`, `训练机 改到阿里云上`, `把训练机转给 @…` were words not read or not understood, and
    `按项目统计费用` a sentence: the provider it bills to and its owner are set as `billing` sets them (a word that is
    no provider is not read as one), and spend by project or person is the report that ranks both."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元 项目=llm")
        rentals = Rentals(chat.deps.store)

        def provider() -> str | None:
            found = rentals.instance(TEAM, "训练机")
            assert found is not None
            return found.provider

        for words, account in (("训练机 平台是autodl", "autodl"), ("训练机 改到阿里云上", "aliyun"),
                               ("训练机 在autodl上", "autodl"), ("训练机 是阿里云的", "aliyun")):  # fmt: skip
            assert "余额" in chat.command(words), words
            assert provider() == account, words
        assert "无法识别“在家里”" in chat.command("训练机 在家里") and provider() == "aliyun"
        before = rentals.instance(TEAM, "训练机")
        assert "训练机" in chat.command("把训练机转给 @someone02")
        after = rentals.instance(TEAM, "训练机")
        assert before is not None and after is not None and after.owner != before.owner
        chat.h.clock.advance(hours=2)  # type: ignore[attr-defined]
        for words in ("按项目统计费用", "按人汇总开销", "上个月按项目统计费用"):
            said = chat.command(words)
            assert "没读懂" not in said and ("llm" in said or "10-01 至 10-31" in said), (words, said)


def test_an_items_cost_over_a_period_asked_is_that_periods(tmp_path: Path) -> None:
    """`训练机 昨天花了多少` was refused as a period named "训练机昨天", and `how much did box1 cost yesterday` answered
    with this month's line: the item's cost over the days asked, as the report and `list` reckon it (one figure)."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]  # Monday 30 November, 09:10 Shanghai
        chat.command("登记 训练机 A800 8卡 每小时60元 started=yesterday 9:00")  # Sunday 09:00: 15 h of it by midnight
        for asked, said in (("训练机 昨天花了多少", "**训练机** 在 11-29 花费 ¥900。"),
                            ("训练机 今天花了多少钱", "**训练机** 在 11-30 花费 ¥550。"),
                            ("训练机 这周花了多少", "**训练机** 在 11-30 花费 ¥550。"),
                            ("训练机 上周花了多少", "**训练机** 在 11-23 – 11-29 花费 ¥900。"),
                            ("训练机 这个月的费用", "**训练机** 在 11-01 – 11-30 花费 ¥1,450。"),
                            ("how much did 训练机 cost yesterday", "**训练机** 在 11-29 花费 ¥900。")):  # fmt: skip
            assert said in chat.command(asked), asked
        assert "没有产生费用" in chat.command("训练机 上个月花了多少")  # October: not tracked yet
        assert "本月 ¥1,450" in chat.command("训练机 花了多少钱")  # the month's line says the same figure


def test_in_english_a_card_corrected_and_a_box_given_to_someone(tmp_path: Path) -> None:
    """`box1 has 4 cards`, `box1 is actually an H100` were words not read, `give box1 to @…` not understood: its
    card and count corrected, and its owner set, as `billing` sets them; `box1 is on runpod` its provider."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("track box1 A100 8 cards $2/h each")
        rentals = Rentals(chat.deps.store)

        def box() -> tuple[str, int, str | None, str]:
            found = rentals.instance(TEAM, "box1")
            assert found is not None
            return found.gpu, found.cards, found.provider, found.owner

        assert "A100-80GB × 4" in chat.command("box1 has 4 cards")
        assert "H100-80GB × 4" in chat.command("box1 is actually an H100")
        assert "runpod" in chat.command("box1 is on runpod")
        said = chat.command("box1 is off")  # its power, not a card
        assert "off" in said and box()[:2] == ("H100-80GB", 4), said
        owner = box()[3]
        chat.command("give box1 to @someone02")
        assert box()[:3] == ("H100-80GB", 4, "runpod") and box()[3] != owner


def test_where_the_month_is_heading_asked_is_the_teams_forecast(tmp_path: Path) -> None:
    """`这个月大概要花多少`, `what's our burn rate`, `每天大概花多少钱` were not understood: the whole team's month in
    each currency, spent so far and where it is heading, reckoned as a budget's forecast is, budgeted or not."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]  # 30 November, 09:10 Shanghai
        assert "还没有登记任何资源" in chat.command("这个月大概要花多少")
        chat.command("登记 训练机 A800 8卡 每小时60元 started=yesterday 9:00")  # ¥1,450 so far, 14 h 50 min to go
        said = chat.command("这个月大概要花多少")
        assert "至今 ¥1,450；按当前速度，到 11-30 约 ¥2,340，此后每天约 ¥1,440" in said, said
        for words in ("what's our burn rate", "每天大概花多少钱", "budget forecast", "月底会花多少"):
            assert "¥2,340" in chat.command(words), words
        said = chat.command("下个月大概要花多少钱")  # "not a period" before: next month at this rate, every hour
        assert "下个月（2026 年 12 月，31 天）按当前速度约 ¥44,640" in said, said
        said = chat.command("how much will we spend next month")
        assert "next month (2026-12, 31 days) at this rate: about ¥44,640" in said, said
        spent = chat.command("这个月花了多少")  # spent, said in the past: the report, as before
        assert "花费 ¥1,450" in spent and "预计" not in spent, spent


def test_a_release_asked_for_later_says_it_is_now_and_how_to_keep_it_quiet_till_then(tmp_path: Path) -> None:
    """`release box1 tomorrow` answered "no instance named tomorrow", and `释放 训练机 明天` the same: a release is now,
    said so, nothing released, with the words that keep it out of the digest till then, which work."""
    import re

    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元")
        for asked in ("释放 训练机 明天", "release 训练机 on friday", "release 训练机 later"):
            said = chat.command(asked)
            assert "释放即刻生效" in said and "`释放 训练机`" in said, said
            found = Rentals(chat.deps.store).instance(TEAM, "训练机")
            assert found is not None and found.released_at is None
            quiet = [c for c in re.findall(r"`([^`]+)`", said) if not c.startswith("释放")]
            assert quiet and "还在用" in chat.command(quiet[0]), quiet  # the words it gave work
        assert "没有名为“box2”" in chat.command("release 训练机 box2")  # two names: as before


def test_a_digest_buttons_label_typed_before_the_name_is_read_as_said_after_it(tmp_path: Path) -> None:
    """Where a card's buttons are not pressed, people type the label: `已释放 训练机`, `还在用（1 天） 训练机`,
    `已关机 · 训练机`, `保留 数据盘` were unknown sub-commands ("did you mean 释放?"). Each is read as said after the
    name: the release or delete asked back (never made from words), still needed, off, kept."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元")
        chat.command("登记存储 数据盘 1TB 每月300元")
        assert "`释放 训练机`" in chat.command("已释放 训练机")
        assert "`释放 训练机`" in chat.command("released 训练机")
        rentals = Rentals(chat.deps.store)
        found = rentals.instance(TEAM, "训练机")
        assert found is not None and found.released_at is None  # asked back, not released
        assert "还在用" in chat.command("还在用（1 天） 训练机")
        week = chat.command("1 周后再提醒 训练机")
        assert "12-07 09:10" in week, week  # a week
        chat.h.clock.advance(minutes=1)  # type: ignore[attr-defined]
        assert "关机" in chat.command("已关机 · 训练机")
        assert "`删除存储 数据盘`" in chat.command("已删除 数据盘")
        assert "保留" in chat.command("保留 数据盘")
        assert "未知的子命令“已释放”" in chat.command("已释放 不存在的机器")  # no such item: as before


def test_done_and_asked_off_in_one_breath_its_cost_so_far_and_a_start_said_later(tmp_path: Path) -> None:
    """`训练机 跑完了，关掉吧` and `训练机 关掉吧` were "not read", `训练机 花了多少钱了` a period named 训练机, and
    `训练机 9点开始跑的` not read: the release asked back, what the bot does instead of switching off, its line of the
    list, and its power on from then."""
    with driving("dingtalk", tmp_path) as chat:
        clock = chat.h.clock  # type: ignore[attr-defined]
        clock.now = MONDAY_0910_SHANGHAI
        chat.command("登记 训练机 A800 8卡 每小时60元 起租=3天前")
        assert "发送 `释放 训练机`" in chat.command("训练机 跑完了，关掉吧")
        for asked in ("训练机 关掉吧", "训练机 关了吧"):
            assert "要我现在停掉" in chat.command(asked), asked
        assert power_now(chat, "训练机") is Power.ON and "起关机" in chat.command("训练机 2小时前关机了")
        for asked in ("训练机 花了多少钱了", "训练机 到现在一共花了多少"):
            said = chat.command(asked)
            assert "¥60/小时" in said and "时间段" not in said, (asked, said)
        said = chat.command("训练机 从1小时前开始跑")
        assert "起开机" in said and power_now(chat, "训练机") is Power.ON, said
        chat.command("训练机 关机了")
        clock.advance(minutes=10)
        said = chat.command("训练机 has been running since 5 minutes ago")
        assert power_now(chat, "训练机") is Power.ON, said  # "not read", before


def test_whether_it_was_released_asked_is_its_line_of_the_list(tmp_path: Path) -> None:
    """`训练机 释放了吗` was read as done with it (the release asked back), and once released `训练机 释放了吗` and
    `训练机 还在跑吗` were unknown sub-commands naming it: its line of the list, which says whether it is released."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        running = chat.command("训练机 释放了吗")
        assert "**训练机** A800-80GB × 8" in running and "已释放" not in running, running
        chat.command("释放 训练机")
        for asked in ("训练机 释放了吗", "训练机 还在跑吗", "训练机 退租了没有"):
            said = chat.command(asked)
            assert "**训练机** A800-80GB × 8" in said and "已释放" in said, (asked, said)


def test_kept_storage_asked_how_it_is_and_a_disk_just_kept_in_the_report(tmp_path: Path) -> None:
    """`数据盘 还在吗` and `数据盘 挂在哪台机器上` were unknown sub-commands naming it: its line of the list; and the
    report of a period up to today said "nothing was rented" of a disk kept a minute before: it says it billed
    nothing yet, as of a box."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记存储 数据盘 500G 每月0.7元/G")
        for asked in ("数据盘 还在吗", "数据盘 挂在哪台机器上", "数据盘多大", "数据盘的容量是多少"):
            said = chat.command(asked)
            assert "存储 **数据盘** 500 GB · 每月 ¥350" in said, (asked, said)
        assert "到目前为止花费为 0" in chat.command("存储花了多少")


def test_storage_tracked_with_its_kind_after_its_name_and_asked_in_english(tmp_path: Path) -> None:
    """`track disk1 storage 2T $0.05/GB/month` was refused as no GPU (the kind goes first): its kind after its
    name is read as before it; `disk1 still there?` was not understood: its line of the list."""
    with driving("slack", tmp_path) as chat:
        assert "Tracking storage *disk1* here" in chat.command("track disk1 storage 2T $0.05/GB/month")
        said = chat.command("disk1 still there?")
        assert "storage *disk1* 2,048 GB · $102 a month" in said, said


def test_a_name_nothing_is_tracked_under_is_said_so_with_the_name_meant(tmp_path: Path) -> None:
    """`disk9 还在吗` was refused as an unknown sub-command named disk9, as if a command were mistyped: no item goes
    by that name, said with the tracked name most like it; a misspelt sub-command keeps its own error."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        chat.command("登记存储 数据盘 500G 每月0.7元/G")
        for asked, meant in (("数据盒 还在吗", "数据盘"), ("训练鸡还在跑吗", "训练机"), ("disk9 删了", None)):
            said = chat.command(asked)
            name = asked.split()[0] if " " in asked else asked[:3]
            assert f"这里没有叫 **{name}** 的实例或保留中的存储" in said and "未知的子命令" not in said, (asked, said)
            assert (f"你是说 **{meant}** 吗" in said) is (meant is not None), (asked, said)
        assert "是想输入 `list` 吗" in chat.command("lsit 还在吗")  # a sub-command misspelt stays one
        assert "unknown sub-command 'foo'" in chat.command("foo bar")  # no news of an item: as before (English words)


def test_a_numbered_name_beside_a_tracked_one_is_not_the_tracked_one(tmp_path: Path) -> None:
    """`训练机2关机了` with only 训练机 tracked was read as 训练机 off at "2" and refused as no time, `box12 off` an
    unknown sub-command: a name that goes on in letters or digits is another name, said to be none here with the one
    meant; a time glued to a Chinese name (`训练机3点关机了`) is still its time, and both boxes once tracked are each
    their own."""
    with driving("wecom", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元 起租=3天前")
        chat.command("track box1 gpu=A100 price=14/h started=昨天9点")
        for said, name, meant in (("训练机2关机了", "训练机2", "训练机"), ("训练机2 还在跑吗", "训练机2", "训练机")):
            answer = chat.command(said)
            assert f"这里没有叫 **{name}** 的实例" in answer and f"你是说 **{meant}** 吗" in answer, (said, answer)
        answer = chat.command("box12 off")
        assert "No instance or kept storage here is called **box12**" in answer and "**box1**?" in answer, answer
        assert "2026-11-30 03:00" in chat.command("训练机3点关机了")  # the last 3 o'clock: this morning's
        chat.command("登记 训练机2 4090 2卡 每小时4元 起租=2天前")
        assert "**训练机2** 自此刻关机" in chat.command("训练机2关机了")
        assert "**训练机** 现在关机" in chat.command("训练机 还在跑吗")  # off since 3, as said: not touched by 训练机2


def test_several_boxes_named_in_one_message_are_each_told(tmp_path: Path) -> None:
    """`训练机1 和 训练机2 都关机了` was refused as 训练机1 off at "和训练机2 都", not a time: each box named, joined by
    和, 、, a comma or `and`, is told what is said of them all; a name joined that is none here is said so."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机1 A800 8卡 每小时60元 起租=3天前")
        chat.command("登记 训练机2 A800 8卡 每小时60元 起租=2天前")
        chat.command("track box3 gpu=4090 price=4/h started=昨天9点")
        both = chat.in_group("训练机1 和 训练机2 都关机了")
        assert "**训练机1** 自此刻关机" in both and "**训练机2** 自此刻关机" in both, both
        then = chat.in_group("训练机1、训练机2 昨晚11点关的")
        assert then.count("自 2026-11-29 23:00 Asia/Shanghai 起关机") == 2, then
        missing = chat.in_group("训练机1和训练机9都关机了")
        assert "这里没有叫 **训练机9** 的实例" in missing, missing
        english = chat.in_group("box3 and 训练机2 are both off")
        assert "**box3** 自此刻关机" in english and "已经记录过了" in english, english  # 训练机2 was off already
        lines = chat.in_group("训练机1 和 训练机2 是谁的")
        assert "**训练机1** A800-80GB × 8" in lines and "**训练机2** A800-80GB × 8" in lines, lines
        powered = PowerLog(chat.deps.store).reports([i.id for i in Rentals(chat.deps.store).instances(chat.team)])
        offs = sum(r.state is Power.OFF for reports in powered.values() for r in reports)
        assert offs == 5, offs  # 1 and 2 now, both at 23:00, box3 now


def test_a_box_told_of_in_english_as_people_say_it(tmp_path: Path) -> None:
    """`gpu-box-2 was turned off 3 hours ago` and `gpu-box-1 is idle, stop it` were "not read", `gpu-box-1 belongs to
    llm` made a user called llm its owner where llm is the team's project, and `how much did gpu-box-1 spend` was no
    item's question: each as its Chinese twin is read."""
    with driving("wecom", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("track gpu-box-1 gpu=H100 cards=8 price=2.5/h started=2 days ago")
        chat.command("track gpu-box-2 gpu=H100 cards=8 price=2.5/h started=2 days ago")
        assert "**gpu-box-2** is off from 2026-11-30 06:10" in chat.command("gpu-box-2 was turned off 3 hours ago")
        assert "**gpu-box-2** is on from now" in chat.command("gpu-box-2 got switched on")
        assert "**gpu-box-2** is off from now" in chat.command("gpu-box-2 has been shut down")
        assert "To have me stop" in chat.command("gpu-box-1 is idle, stop it")
        chat.command("set a budget of 20000 usd for project llm")
        assert "counts for project llm now" in chat.command("gpu-box-1 belongs to llm")
        box = Rentals(chat.deps.store).instance(f"wecom:{WECOM_BOT}", "gpu-box-1")
        assert box is not None and box.project == "llm" and box.owner == "starter01", box
        assert "is <@zhangsan>'s now" in chat.command("gpu-box-2 belongs to zhangsan")  # no project of that name
        assert "**gpu-box-1** H100-80GB × 8" in chat.command("how much did gpu-box-1 spend")
        assert "**Project llm only**" in chat.command("how much did llm spend this month")


def test_a_box_released_is_tracked_again_under_its_name(tmp_path: Path) -> None:
    """`登记 训练机 …` after `释放 训练机` was refused as already tracked (`billing 训练机 …` offered, which a released
    box refuses): the box rented again is tracked, what is said of 训练机 is of it, and the list keeps the released
    one's month; the same for storage deleted."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元 起租=3天前")
        chat.command("释放 训练机")
        assert "已在这里登记 **训练机**" in chat.command("登记 训练机 A800 8卡 每小时50元")
        chat.h.clock.advance(hours=2)  # type: ignore[attr-defined]
        assert "**训练机** 自此刻关机" in chat.command("训练机 关机了")  # the new one's: the released one refuses
        chat.h.clock.advance(minutes=1)  # type: ignore[attr-defined]
        listed = chat.command("list")
        assert "¥60/小时（8 卡合计） · @Starter01 · 11-30 已释放 · 本月 ¥4,320" in listed, listed  # the day: apart
        assert "¥50/小时（8 卡合计） · @Starter01 · 关机 · 本月 ¥100" in listed, listed
        assert "已登记名为“训练机”的实例" in chat.command("登记 训练机 4090 每小时3元")  # running: refused as before
        chat.command("登记存储 数据盘 500G 每月0.7元/G")
        chat.command("删除存储 数据盘")
        assert "已在这里登记存储 **数据盘**" in chat.command("登记存储 数据盘 200G 每月0.7元/G")
        assert "存储 **数据盘** 200 GB · 每月 ¥140" in chat.command("数据盘 还在吗")


def test_a_box_renamed_by_its_owner_in_a_sub_command_or_in_words(tmp_path: Path) -> None:
    """There was no way to rename an item: a box found in the cloud kept its cloud id as its name. `rename OLD NEW`
    (改名, 重命名) and `训练机 改名为 训练机A`, `把训练机改名为训练机A`, `call trainer box1` rename it, its owner's
    or an admin's to do; `训练机 改成包月` is still its billing."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("track i-0abc123 gpu=A100 price=14/h")
        assert "**i-0abc123** 已改名为 **训练机**" in chat.command("rename i-0abc123 训练机")
        assert "**训练机** 已改名为 **训练机A**" in chat.command("把训练机改名为训练机A")
        assert "**训练机A** 已改名为 **trainer**" in chat.command("训练机A 重命名为 trainer")
        assert "**trainer** is **box1** now" in chat.command("call trainer box1")
        assert "按月计费" in chat.command("box1 改成包月 12000")  # 改成 alone: its billing, never a rename
        assert "请用 `rename 旧名 新名`" in chat.command("改名 box1")
        assert "没有名为“nothing”的实例或保留中的存储" in chat.command("rename nothing x")
        chat.command("track box2 gpu=A100 price=14/h")
        assert "“box2”已是这里登记的实例或存储的名字" in chat.command("rename box1 box2")
        names = sorted(i.name for i in Rentals(chat.deps.store).instances(f"dingtalk:{CORP}"))
        assert names == ["box1", "box2"], names


@pytest.mark.parametrize(
    ("text", "name", "starts"),
    [
        ("训练机 关机了", "训练机", True),
        ("训练机关机了", "训练机", True),
        ("训练机2关机了", "训练机", False),
        ("训练机A 还在吗", "训练机", False),
        ("训练机3点关机了", "训练机", True),
        ("训练机 9:30关的", "训练机", True),
        ("训练机9:30关的", "训练机", True),
        ("训练机2小时前关的", "训练机", True),
        ("box12 off", "box1", False),
        ("box1 off", "box1", True),
        ("BOX1 off", "box1", True),
        ("box1-old off", "box1", False),
        ("box1", "box1", True),
        ("box", "box1", False),
    ],
)
def test_a_name_begins_a_message_only_where_it_ends_there(text: str, name: str, starts: bool) -> None:
    from bot.app.item_names import starts_with_name

    assert starts_with_name(text, name) is starts


def test_an_english_word_after_a_name_like_a_tracked_one_is_news_of_it() -> None:
    from bot.app.item_unknown import unknown_name

    assert unknown_name("box12 off", ["box1"]) == "box12"
    assert unknown_name("box12 off", ["训练机"]) is None  # like none tracked: a sub-command's argument as often
    assert unknown_name("digest off", ["box1"]) is None


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("disk9 还在吗", "disk9"),
        ("disk9还在吗？", "disk9"),
        ("gpu-box is off", "gpu-box"),
        ("box7 who owns it", "box7"),
        ("机器A 花了多少钱", "机器A"),
        ("digest off", None),  # an English word alone after an unknown one: a sub-command's argument as often
        ("foo bar", None),
        ("hello there friend 还在吗", None),  # the name is the first word or nothing
        ("还在吗", None),
        ("训练机闲着呢，帮我关掉", "训练机"),  # what it does, then the stop asked; never the clause before the comma
        ("is disk9 still there?", "disk9"),  # the name inside an English question
        ("who owns box9", "box9"),
        ("delete ckpt9", "ckpt9"),
    ],
)
def test_the_unknown_name_is_the_start_before_what_is_said_of_an_item(said: str, name: str | None) -> None:
    from bot.app.item_unknown import unknown_name

    assert unknown_name(said) == name


def test_kept_storage_asked_after_in_english_with_the_name_inside(tmp_path: Path) -> None:
    """`is disk1 still kept?`, `is disk1 still there` and `who owns disk1` were not understood (only a running box was
    read with its name inside): the disk's line of the list; asked of a box, its line too."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("track storage disk1 size=500 price=0.7")
        chat.command("track box1 gpu=A100 price=14/h")
        for asked in ("is disk1 still kept?", "is disk1 still there", "who owns disk1", "is disk1 idle?"):
            said = chat.command(asked)
            assert "storage **disk1** 500 GB" in said, (asked, said)
        assert "**box1** A100-80GB" in chat.command("is box1 still around?")


def test_kept_storage_attached_to_a_box_and_taken_off_it(tmp_path: Path) -> None:
    """`数据盘挂到训练机上` was not understood, and `数据盘 挂在哪台机器上` answered with a line that named no box: the
    box is set (or taken off, `数据盘 卸载了`), the list's line names it, and the box's release asks about the disk."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        chat.command("登记存储 数据盘 500G 每月0.7元/G")
        said = chat.command("数据盘挂到训练机上")
        assert "**数据盘** 现在挂在 **训练机** 上" in said, said
        assert "500 GB（挂在 **训练机** 上）" in chat.command("数据盘 挂在哪台机器上")
        assert "没有名为“推理机”的实例" in chat.command("数据盘挂到推理机上")
        box = Rentals(chat.deps.store).instance(TEAM, "训练机")  # type: ignore[attr-defined]
        assert box is not None and Rentals(chat.deps.store).storage_named(TEAM, "数据盘").instance_id == box.id  # type: ignore[attr-defined,union-attr]
        assert "没有挂在任何机器上" in chat.command("数据盘 卸载了")
        assert "挂在" not in chat.command("数据盘 还在吗")
        chat.command("数据盘 attached to 训练机")
        assert "训练机留下了存储 **数据盘**" in chat.command("释放 训练机")


def test_the_dearest_over_a_period_asked_is_that_periods(tmp_path: Path) -> None:
    """`这周谁的机器最贵` answered with this month's list, whatever period was asked: each item's cost over those days,
    the report's figures, the most first."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元")
        chat.command("登记 推理机 4090 每小时3元")
        chat.h.clock.now += timedelta(hours=3)  # type: ignore[attr-defined]
        said = chat.command("这周谁的机器最贵")
        assert "11-30 花费最多的" in said, said  # a Monday: the week so far is that day
        assert "• **训练机** ¥180" in said and "• **推理机** ¥9" in said, said
        assert said.index("训练机") < said.index("推理机") and "本月" not in said
        assert "登记的资源都没有产生费用" in chat.command("上个月哪台机器最花钱")
        assert "本月花费最多的在前" in chat.command("哪台机器最贵")  # this month's: the list, as before


def test_an_items_cost_then_its_project_and_a_disks_size_asked_in_english(tmp_path: Path) -> None:
    """`what did box1 cost yesterday` answered with this month's line, `box1 belongs to project llm` and `how big is
    ckpt` were not read (nor `训练机 属于 llm 项目`)."""
    with driving("slack", tmp_path) as chat:
        chat.command("track box1 H100 8 GPUs $2.5/h")
        chat.command("track storage ckpt 2T $0.05/GB/month")
        said = chat.command("what did box1 cost yesterday")
        assert "*box1* billed nothing over" in said and "this month" not in said, said
        assert "counts for project llm now" in chat.command("box1 belongs to project llm")
        assert Rentals(chat.deps.store).instance("T1", "box1").project == "llm"  # type: ignore[attr-defined,union-attr]
        assert "storage *ckpt* 2,048 GB" in chat.command("how big is ckpt")
    with driving("dingtalk", tmp_path / "zh") as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        assert "训练机 现在计入项目 llm" in chat.command("训练机 属于 llm 项目")


def test_a_box_asked_to_be_stopped_in_english_and_one_released_asked_after(tmp_path: Path) -> None:
    """`box1 is idle, can you stop it` was not read (what the bot does instead is said, as to `stop box1`), and a box
    released an hour before, asked after (`who is using box2`), was said to be no item here at all: its line, which
    says it was released."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("track box1 A100 14/h")
        chat.command("track box2 H100 $2.5/h")
        assert "To have me stop" in chat.command("box1 is idle, can you stop it")
        chat.command("release box2")
        for asked in ("who is using box2", "is box2 still running?"):
            said = chat.command(asked)
            assert "**box2** H100-80GB × 1" in said and "released" in said and "No instance" not in said, said
        assert "No instance or kept storage here is called **box9**" in chat.command("box9 is off")


def test_a_stop_asked_after_what_the_box_does_in_chinese(tmp_path: Path) -> None:
    """`训练机闲着呢，帮我关掉` was said to be no item called "训练机闲着呢,", `训练机空着，能停掉吗` not understood:
    each asks the box to be stopped, answered with what the bot does instead."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 训练机 A800 8卡 每小时60元")
        for asked in ("训练机闲着呢，帮我关掉", "训练机没在用，关了吧", "训练机空着，能停掉吗"):
            said = chat.command(asked)
            assert "要我现在停掉" in said and "这里没有叫" not in said, (asked, said)
        assert "这里没有叫" not in chat.command("训练机闲着呢，哈哈")  # the tracked name glued to words: not "none"


def test_when_a_boxs_period_ends_asked(tmp_path: Path) -> None:
    """`训练机什么时候到期` was not understood: a monthly or daily box says when its period ends and what the next
    costs (the metering rules' own periods); an hourly box that it has none."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 包月 每月3万")
        chat.command("登记 推理机 4090 每天100元 按天")
        chat.command("登记 小机 4090 每小时3元")
        chat.h.clock.now += timedelta(hours=1)  # type: ignore[attr-defined]
        month = chat.command("训练机什么时候到期")
        assert "**训练机** 按月计费：本期到 2026-12-30 09:10 Asia/Shanghai 结束" in month, month
        assert "每开始一个月计 ¥30,000" in month
        day = chat.command("推理机 几号续费")
        assert "本期到 2026-12-01 09:10 Asia/Shanghai 结束" in day and "每开始一天计 ¥100" in day, day
        assert "按小时计费，没有到期日" in chat.command("小机什么时候到期")
        assert "本期到 2026-12-30 09:10" in chat.command("when does 训练机 renew?")


def test_how_long_an_item_sat_idle_is_its_idle_hours_not_its_power(tmp_path: Path) -> None:
    """`训练机 这周闲置了多久` was not read and `训练机闲了多久` gave its on and off stretches, which say nothing of
    idle: the report's billed, busy, idle (with what it burned) and no-data GPU-hours of it, over the period said."""
    from tests.support.idle_item import idle_item

    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        team = f"dingtalk:{CORP}"
        idle_item(chat.deps.store, chat.h.clock.now, team, GROUP, "starter01", name="训练机")  # type: ignore[attr-defined]
        said = chat.command("训练机 这周闲置了多久")
        assert "**训练机** 在 11-30：付费 GPU 小时 9.0，在算 0.0，闲置 8.0（约 ¥133），无数据 1.0" in said, said
        assert "闲置" in chat.command("训练机闲了多久") and "开机 ·" not in chat.command("训练机闲了多久")
        chat.command("登记 推理机 4090 每小时4元 起租=2小时前")
        assert "都没有使用数据，无法判断是否闲置" in chat.command("推理机 闲置了多少小时")


def test_a_count_before_the_card_and_english_questions_of_an_items_cost_and_payer(tmp_path: Path) -> None:
    """`track trainer 2 H100 2.49/h each` was "'2' is not a GPU"; `trainer costs how much per day`, `how much is
    trainer per day` and `who is paying for trainer` were not understood: two cards at 2.49 each, and its line."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("track trainer 2 H100 2.49/h each provider=lambda")
        listed = chat.command("list")
        assert "**trainer** H100-80GB × 2 · $4.98/小时（2 卡合计）" in listed, listed
        for asked in ("trainer costs how much per day", "how much is trainer per day", "who is paying for trainer",
                      "who pays for trainer"):  # fmt: skip
            said = chat.command(asked)
            assert "**trainer** H100-80GB × 2 · $4.98/hour for all 2 cards" in said, (asked, said)


def test_storage_named_with_words_not_read_says_what_storage_takes_and_each_works(tmp_path: Path) -> None:
    """`数据盘 哈哈哈` was "unknown sub-command '数据盘'" where an instance's name gets what it takes;
    `数据盘 还要用吗`, asked of a teammate, was not read: its line of the list, which says what it costs."""
    import re

    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记存储 数据盘 500G 每月0.5元每G")
        for asked in (
            "数据盘 还要用吗",
            "数据盘还要吗",
            "数据盘 still needed?",
        ):  # its line: what it costs, for who decides
            line = chat.command(asked)
            assert "存储 **数据盘** 500 GB" in line and "每月 ¥250" in line, (asked, line)
        said = chat.command("数据盘 哈哈哈")
        assert "**数据盘** 是已登记的存储，但无法识别“哈哈哈”" in said, said
        english = chat.command("数据盘 lol")
        suggested = re.findall(r"`([^`]+)`", said.split("无法识别")[1]) + re.findall(r"`([^`]+)`", english)
        for words in sorted(suggested, key=lambda w: w.startswith("delete-storage")):  # the delete last
            answered = chat.command(words)
            assert "无法识别" not in answered and "not read" not in answered and "未知" not in answered, words


def test_a_boxs_use_asked_is_its_last_weeks_busy_and_idle_hours(tmp_path: Path) -> None:
    """`训练机的显卡利用率怎么样` and `训练机 最近忙不忙` were not read, `训练机 最近在跑吗` was a word not read: its
    last seven days' billed, busy and idle GPU-hours (here none with data, said so), and how it is now."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元 起租=5天前")
        for asked in ("训练机的显卡利用率怎么样", "训练机 利用率多少", "训练机 最近忙不忙"):
            said = chat.command(asked)
            assert "**训练机** 在 11-24 – 11-30" in said and "付费 GPU 小时 960.0" in said, (asked, said)
        assert "**训练机** 现在开机" in chat.command("训练机 最近在跑吗")
