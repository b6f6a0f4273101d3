"""A first message naming no sub-command (`你好`, `A100多少钱`, `我想租卡`) was answered "unknown sub-command": the
bot's first words to a person trying it out."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest

from bot.app.free_words import free_words
from tests.chat.test_both_platforms import driving
from tests.digest.test_schedule import MONDAY_0910_SHANGHAI


@pytest.mark.parametrize(
    ("said", "meant"),
    [("你好", ("help", [])), ("hi!", ("help", [])), ("怎么用？", ("help", [])), ("what can you do", ("help", [])),
     ("A100多少钱", ("prices", ["A100-80GB"])), ("4090 价格", ("prices", ["RTX4090-24GB"])),
     # the memory typed apart or in Chinese numerals: that card (A100 40G was the 80 GB card's prices)
     ("A100 40G多少钱", ("prices", ["A100-40GB"])), ("a100八十G多少钱", ("prices", ["A100-80GB"])),
     ("a100 四十g 价格", ("prices", ["A100-40GB"])),
     ("how much is an H100 per hour", ("prices", ["H100-80GB"])), ("我想租卡", ("advise", [])),
     ("帮我选一下用什么卡", ("advise", [])), ("which GPU should we rent", ("advise", [])),
     ("foo", None), ("多少钱", None), ("A100 H100", None),
     # a box named with 叫 or "called" and asked to be kept track of: `track NAME …` (not understood before)
     ("我们有台机器叫train-01，A800 8卡，每小时60块，帮我记上", ("track", ["train-01", "A800", "8卡", "每小时60块"])),
     ("新租了一台A100，名字叫box1，每小时14元，登记一下", ("track", ["box1", "A100", "每小时14元"])),
     ("we have a box called b1, A100, 14/h, please track it", ("track", ["b1", "A100", "14/h"])),
     ("我叫张三", None), ("这台机器叫什么", None),
     ("谁的机器最贵", ("list", ["dearest"])),  # not understood before
     ("set a budget of 5000 usd", ("budget", ["5000", "usd"])),  # no project: the team's (the list, before)
     # what the money went on, said first: the report (a period named 存储, a project named GPU, before)
     ("存储花了多少", ("report", ["this-month"])), ("GPU这个月花了多少", ("report", ["这个月"])),
     ("卡上个月花了多少钱", ("report", ["上个月"])), ("llm这个月花了多少", ("report", ["这个月", "project=llm"])),
     ("how much did storage cost this month", ("report", ["this month"])),  # a project named storage, before
     # GPU said after the period, and asked politely: the month's report (a project named GPU, and a period named
     # 帮我查一下上周, before)
     ("帮我看看这个月GPU花了多少钱", ("report", ["这个月"])), ("这个月显卡花了多少钱", ("report", ["这个月"])),
     ("帮我查一下上周花了多少", ("report", ["上周"])), ("请问这个月一共花了多少钱", ("report", ["这个月"])),
     ("我想知道这个月llm花了多少", ("report", ["这个月", "project=llm"])),
     # asked politely for a bill, and which box sat idle most: the period's report (periods named 帮我, 哪台 before)
     ("帮我导出上个月的账单", ("report", ["上个月"])), ("麻烦发一下上周的报告", ("report", ["上周"])),
     ("最近一周哪台机器闲置最多", ("report", ["最近一周"])), ("哪台机器闲置最多", ("report", ["this-month"])),
     ("what did we spend on gpus last week", ("report", ["last week"])),
     ("what's left on runpod", ("balance", [])),
     ("autodl还能用几天", ("balance", [])),  # not understood before
     ("autodl 余额低于200时提醒我", ("balance", ["提醒", "autodl 余额低于200时提醒我"])),  # a digest time, before
     # a latency's percentile is no card (`P99` was refused as an unknown GPU); a job described is none of these
     ("部署一个70B的模型做推理, QPS 200, P99 要小于50ms", None),
     # two cards weighed: side by side
     ("A100 和 H100 多少钱", ("prices", ["A100-80GB", "H100-80GB"])),
     ("A100和H100哪个划算", ("prices", ["A100-80GB", "H100-80GB"])),
     ("A100 vs H100", ("prices", ["A100-80GB", "H100-80GB"])),
     ("which is cheaper, A100 or H100?", ("prices", ["A100-80GB", "H100-80GB"])),
     ("4090还是A100 40G便宜", ("prices", ["RTX4090-24GB", "A100-40GB"])),
     # a run said with the GPU: its quote
     ("A100 每天4小时 两周 多少钱", ("quote", ["A100", "每天4小时", "两周"])),
     ("how much for an H100 4x14", ("quote", ["H100", "4x14"])),
     ("4090 跑3天 大概多少钱", ("quote", ["4090", "跑3天"])), ("A100 一个月 多少钱", ("quote", ["A100", "一个月"])),
     # a how-to question: the help's lines of that sub-command; the cheapest of a card: its prices
     ("怎么登记机器", ("help", ["track"])), ("how do I set a budget", ("help", ["budget"])),
     ("怎么设置提醒", ("help", ["remind"])), ("how to release a box?", ("help", ["release"])), ("怎么办", None),
     ("最便宜的4090在哪", ("prices", ["RTX4090-24GB", "cheapest"])),
     ("what is the cheapest A100", ("prices", ["A100-80GB", "cheapest"])),
     ("最实惠的A100", ("prices", ["A100-80GB", "cheapest"])),
     ("I'd like to rent a GPU", ("advise", [])), ("we need some GPUs", ("advise", [])),
     # a GPU alone, or first with a run: its prices, its quote
     ("A100", ("prices", ["A100-80GB"])), ("A100 40G", ("prices", ["A100-40GB"])),
     ("H100 跑一周", ("quote", ["H100", "跑一周"])), ("8卡A100 包月", ("quote", ["8卡A100", "包月"])),
     ("A100 哈哈", None),
     # the GPU glued to Chinese words, plural, after its count
     ("8张H100跑一周多少钱", ("quote", ["8张H100", "跑一周"])), ("4090一天多少钱", ("quote", ["4090", "一天"])),
     ("how much would 8 H100s cost for a week", ("quote", ["8xH100", "for", "a", "week"])),
     # what is left, and what was spent (in a period, this month's when none is said)
     ("查一下余额", ("balance", [])), ("还剩多少钱", ("balance", [])), ("本月花了多少钱", ("report", ["本月"])),
     ("autodl还能用多久", ("balance", [])), ("钱还能撑多久", ("balance", [])), ("what is our runway", ("balance", [])),
     ("训练要用多久", None), ("我们用多久了", None),  # how long a run takes, or has run: no balance
     ("上周花了多少", ("report", ["上周"])), ("我们最近7天花了多少钱", ("report", ["最近7天"])),
     ("花了多少钱", ("report", ["this-month"])), ("how much did we spend last week", ("report", ["last week"])),
     ("how much did we spend this month", ("report", ["this month"])),  # was "month": not a period
     # one project's spend
     ("llm项目这个月花了多少", ("report", ["这个月", "project=llm"])),
     ("项目llm上周花了多少", ("report", ["上周", "project=llm"])),
     ("what did we spend on llm this month", ("report", ["this month", "project=llm"])),
     # each project's spend: the report, which says it
     ("哪个项目花钱最多", ("report", ["this-month", "by=project"])),
     ("各项目花了多少", ("report", ["this-month", "by=project"])),
     ("上个月各个项目的花费", ("report", ["上个月", "by=project"])),
     ("which project spends the most", ("report", ["this-month", "by=project"])),
     ("spend by project", ("report", ["this-month", "by=project"])),
     ("last week's spend by project", ("report", ["last week", "by=project"])),
     # a budget set in a sentence
     ("llm的预算是2万", ("budget", ["llm", "2万"])), ("把llm预算设为5万", ("budget", ["llm", "5万"])),
     ("set llm budget to 20000", ("budget", ["llm", "20000"])),
     ("budget for llm is 20000", ("budget", ["llm", "20000"])),
     ("全队预算5万", ("budget", ["5万"])),  # the whole team's
     # the team's, the verb after 预算 (they were refused as no amount: `预算设为每月5万`, `把预算设成5万`)
     ("预算设为每月5万", ("budget", ["5万"])), ("把预算设成5万", ("budget", ["5万"])),
     ("团队预算改成每月8万", ("budget", ["8万"])), ("每月预算5万", ("budget", ["5万"])),
     ("set our budget to 50000", ("budget", ["50000"])),
     # with the verb said (it kept a budget of a project named 给llm项目设置, or listed the budgets)
     ("给llm项目设置预算5万", ("budget", ["llm", "5万"])), ("为llm设置每月预算5万", ("budget", ["llm", "5万"])),
     ("帮我给cv项目设一个预算3万", ("budget", ["cv", "3万"])), ("设置预算 llm 50000", ("budget", ["llm", "50000"])),
     ("设置llm的预算为5万", ("budget", ["llm", "5万"])), ("设置预算5万", ("budget", ["5万"])),
     ("请设置预算为5万元", ("budget", ["5万元"])),
     # a rent verb before the card, a bill asked for
     ("租一张A100一个月大概多少钱", ("quote", ["一张", "A100", "一个月"])),
     ("我想租8张H100跑一周要多少钱", ("quote", ["8张H100", "跑一周"])),
     # how much without 钱 (大概多少): a price question all the same; the spend's words by project or person
     ("租4张4090跑一个月大概多少", ("quote", ["4张4090", "跑一个月"])), ("4090一共多少", ("prices", ["RTX4090-24GB"])),
     ("按项目统计费用", ("report", ["this-month", "by=project"])), ("上个月按人汇总开销", ("report", ["上个月"])),
     # who spends most: the ranking (谁花钱最多 was a period named 谁); the idle rule asked
     ("谁花钱最多", ("report", ["this-month"])), ("上周谁花钱最多", ("report", ["上周"])),
     ("who is spending the most", ("report", ["this-month"])), ("什么算闲置", ("idle", ["rule"])),
     ("what's the idle rule", ("idle", ["rule"])), ("闲置的标准是什么", ("idle", ["rule"])),
     ("导出账单", ("report", ["this-month"])), ("上个月的账单", ("report", ["上个月"])),
     ("export the bill", ("report", ["this-month"])), ("billing", None),
     # who left most idle: the report's ranking (it was "nothing of yours is idle now"); a project glued
     ("上周谁的机器闲置最多", ("report", ["上周"])), ("哪个项目闲置最多", ("report", ["this-month"])),
     ("这个月llm花了多少", ("report", ["这个月", "project=llm"])),
     ("llm上周花了多少", ("report", ["上周", "project=llm"])),
     # the thing before the how-to, the sources and the rate, the board, the storage, the weekly report on
     ("agent怎么装", ("help", ["enroll"])), ("预算怎么设置", ("help", ["budget"])), ("idle怎么看", ("help", ["idle"])),
     ("汇率是多少", ("prices", ["status"])), ("价格多久更新一次", ("prices", ["status"])),
     ("刷新价格", ("prices", ["status"])), ("are prices up to date", ("prices", ["status"])),
     ("给我看板链接", ("board", [])), ("the dashboard", ("board", [])), ("存储列表", ("list", [])),
     ("有哪些存储", ("list", [])), ("每周一发报告", ("report", ["on"])), ("开启周报", ("report", ["on"])),
     # the list asked for by name (列出所有机器 was not understood)
     ("列出所有机器", ("list", [])), ("看一下我们的机器", ("list", [])), ("机器列表", ("list", [])),
     ("list all machines", ("list", [])), ("show me the boxes", ("list", [])), ("查看实例", ("list", [])),
     ("what cards do we have", ("list", [])), ("what's our daily burn", ("budget", ["forecast"])),
     # a budget taken off, the digest brought back or moved, the stop history (listed, or not understood, before)
     ("删除llm的预算", ("budget", ["llm", "off"])), ("llm的预算删掉", ("budget", ["llm", "off"])),
     ("取消预算", ("budget", ["off"])), ("remove the llm budget", ("budget", ["llm", "off"])),
     ("remove the team budget", ("budget", ["off"])), ("delete budget for llm", ("budget", ["llm", "off"])),
     ("resume the digest", ("remind", ["on"])), ("turn the digest back on", ("remind", ["on"])),
     ("恢复提醒", ("remind", ["on"])), ("change the digest to 10am", ("remind", ["at", "10am"])),
     ("show the actions", ("actions", [])), ("停机记录", ("actions", [])), ("哪些机器被停了", ("actions", [])),
     ("send the weekly report here every monday", ("report", ["on"])),
     ("how much do we spend per day", ("budget", ["forecast"])),
     ("how much did llm spend this month", ("report", ["this month", "project=llm"])),
     ("how much has llm spent", ("report", ["this-month", "project=llm"])),
     ("how much did the llm project spend last month", ("report", ["last month", "project=llm"])),
     # as English-speaking teams say them (each was an unknown sub-command, a bad period, or a balance listed)
     ("what's running right now", ("list", [])), ("show me everything", ("list", [])),
     ("turn off the daily digest", ("remind", ["off"])), ("send the digest now", ("idle", [])),
     ("what does the report say", ("report", [])), ("give me last month's report as csv", ("report", ["last month"])),
     ("add a balance of 500 for runpod", ("balance", ["runpod", "500"])),
     ("runpod balance is 500 dollars", ("balance", ["runpod", "500", "dollars"])),
     ("what should we rent", ("advise", [])),
     ("what's cheaper, 4090 or A100 for 100 hours", ("quote", ["4090", "A100", "for", "100", "hours"])),
     # money left idle: that period's report, which ranks it
     ("浪费了多少", ("report", ["this-month"])), ("本周闲置浪费了多少钱", ("report", ["本周"])),
     ("谁浪费最多", ("report", ["this-month"])), ("how much did we waste last week", ("report", ["last week"])),
     ("who wastes the most", ("report", ["this-month"])), ("who is wasting money", ("report", ["this-month"])),
     ("what's our spend this week", ("report", ["this week"])), ("total spend last month", ("report", ["last month"])),
     # a box said rented with its GPU and no name: track, which asks for the name
     ("帮我登记一台A100", ("track", ["A100-80GB"])), ("我租了一台4090", ("track", ["RTX4090-24GB"])),
     ("I just rented an H100", ("track", ["H100-80GB"])), ("我们租了哪些A100", ("list", [])),
     # a provider named in a price question: that provider's prices
     ("AutoDL上4090多少钱", ("prices", ["RTX4090-24GB", "AutoDL"])),
     ("阿里云A100多少钱", ("prices", ["A100-80GB", "阿里云"])),
     # said as English-speaking teams say them
     ("set a budget of $5000 for llm", ("budget", ["llm", "$5000"])),
     ("a $5000 budget for llm", ("budget", ["llm", "$5000"])), ("set 5000 for llm", None),
     ("when will the money run out", ("balance", [])), ("余额什么时候用完", ("balance", [])),
     ("显存用完了", None), ("give me a weekly report", ("report", ["last-week"])),
     ("what are we paying for", ("list", [])),
     ("what did llm cost last month", ("report", ["last month", "project=llm"])),
     ("I need 4 H100s for two weeks", ("quote", ["4xH100", "for", "two", "weeks"])),
     ("我们需要8张A100跑一个月", ("quote", ["8张A100", "跑一个月"])), ("I need a GPU", ("advise", [])),
     # the cheapest of any card: each card's cheapest
     ("有没有便宜点的卡", ("prices", ["cheapest"])), ("最便宜的卡", ("prices", ["cheapest"])),
     ("what is the cheapest gpu", ("prices", ["cheapest"])), ("最便宜的4090", ("prices", ["RTX4090-24GB", "cheapest"])),
     # the dearest first
     ("哪台机器最贵", ("list", ["dearest"])), ("最花钱的机器", ("list", ["dearest"])),
     # a stop asked for with its time first, or in English: `stop` (a digest time, "not understood" before)
     ("明天早上9点关训练机", ("stop", ["训练机", "at=明天早上9点"])),
     ("明天早上9点提醒我关训练机", ("stop", ["训练机", "at=明天早上9点", "remind"])),
     ("今晚12点帮我把训练机停掉", ("stop", ["训练机", "at=今晚12点"])),
     ("shut down box1 at 9pm", ("stop", ["box1", "at=9pm"])),
     ("turn off box1 in 2 hours", ("stop", ["box1", "at=in 2 hours"])),
     ("remind me to stop box1 at 6pm", ("stop", ["box1", "at=6pm", "remind"])),
     ("don't stop box1", ("stop", ["box1", "cancel"])), ("stop reminding me", ("remind", ["off"])),
     ("shut down box1 when it's done", ("stop", ["box1", "once-idle"])),
     ("cancel the stop of box1", ("stop", ["box1", "cancel"])),
     ("取消训练机的定时关机", ("stop", ["训练机", "cancel"])),
     ("what will we spend this month", ("budget", ["forecast"])),  # not understood before
     ("训练机2关机了", None),  # a box's report with a digit in its name: no stop at "训练机2"
     ("哪台机器最烧钱", ("list", ["dearest"])), ("哪个实例开销最大", ("list", ["dearest"])),  # not understood before
     # with a period other than this month: that period's costs (this month's list before)
     ("这周谁的机器最贵", ("list", ["dearest", "这周"])),
     ("which box costs the most last week", ("list", ["dearest", "last week"])),
     ("which box costs the most", ("list", ["dearest"])), ("most expensive machines", ("list", ["dearest"])),
     # what is rented: the asker's, the team's
     ("我的机器", ("list", ["mine"])), ("my boxes", ("list", ["mine"])), ("what am I renting", ("list", ["mine"])),
     ("我们租了哪些机器", ("list", [])), ("what do we rent", ("list", [])), ("所有机器", ("list", [])),
     ("周末不要提醒", ("remind", ["工作日"])), ("no reminders on weekends", ("remind", ["工作日"])),
     ("以后不要提醒了", ("remind", ["off"])), ("stop the reminders please", ("remind", ["off"])),
     ("llm 项目不用提醒", None), ("不要提醒张三", None),  # naming something else: the digest not turned off
     ("我的机器闲着吗", ("idle", [])), ("哪些机器可以关掉", ("idle", [])), ("what should we shut down?", ("idle", [])),
     # the budgets: asked after, or glued to, its word
     ("我们的预算怎么样", ("budget", [])), ("how is our budget", ("budget", [])),
     ("每天早上9点提醒我", ("remind", ["每天早上9点"])), ("每天都提醒我", ("remind", ["每天"])),
     # when the digest comes: its schedule
     ("when does the digest come", ("remind", [])), ("提醒什么时候发", ("remind", [])),
     # the reminders off, and a provider's balance, said as people say them
     ("取消提醒", ("remind", ["off"])), ("不要提醒了", ("remind", ["off"])),
     ("stop the reminders", ("remind", ["off"])),
     ("autodl 还剩300元", ("balance", ["autodl", "300元"])), ("阿里云余额 5000", ("balance", ["阿里云", "5000"])),
     ("AutoDL balance 320", ("balance", ["AutoDL", "320"])), ("训练机 300", None),
     # what is idle: the channel's digest now
     ("谁的机器闲着", ("idle", [])), ("哪些卡空着？", ("idle", [])), ("有没有闲置的机器", ("idle", [])),
     ("机器都闲着吗", ("idle", [])), ("what's idle", ("idle", [])), ("which boxes are idle?", ("idle", [])),
     ("闲着也是闲着", None), ("idle", None),
     # asked to be shown (not understood before); the stop policy's words stay the table's
     ("查看闲置机器", ("idle", [])), ("看看闲置的卡", ("idle", [])), ("闲置机器自动关机", None),
     # what runs now: the list (现在有几台机器在跑 was not understood)
     ("现在有几台机器在跑", ("list", [])), ("有多少台在运行？", ("list", [])), ("几台机器在跑", ("list", [])),
     ("how many GPUs do we have running", ("list", [])), ("how many boxes are up right now?", ("list", [])),
     ("which project costs the most", ("report", ["this-month", "by=project"])),
     ("most expensive project", ("report", ["this-month", "by=project"])),
     # a report by another word, or with its period around it
     ("报表", ("report", [])), ("周报", ("report", ["last-week"])), ("月报", ("report", ["this-month"])),
     ("上个月的报表", ("report", ["上个月"])), ("看一下本月报表", ("report", ["本月"])),
     ("show me last month's report", ("report", ["last month"])),
     # the weekly report sent here (read as a report of a period named 发到这个群 before)
     ("周报发到这个群", ("report", ["on"])), ("send weekly reports here", ("report", ["on"]))],
)  # fmt: skip
def test_what_a_message_without_a_sub_command_means(said: str, meant: tuple[str, list[str]] | None) -> None:
    assert free_words(said) == meant


def test_the_chat_answers_a_greeting_a_price_question_and_a_wish_to_rent(tmp_path: Path) -> None:
    with driving("feishu", tmp_path) as chat:
        assert "advise" in chat.command("你好") and "未知的子命令" not in chat.command("你好")
        assert "缓存的价格 — A100-80GB" in chat.command("A100多少钱")
        assert "GPU 选型建议" in chat.command("我想租卡")
        assert "A100-80GB × 1 的费用：每天 4 小时 × 14 天" in chat.command("A100 每天4小时 两周 多少钱")
        assert "unknown sub-command 'foo'" in chat.command("foo")


def test_help_of_one_sub_command_and_a_how_to_question(tmp_path: Path) -> None:
    """`怎么登记机器` was an unknown sub-command: a how-to question answers with the help's lines of it, as `help
    track` (`帮助 登记`) does, and says where the rest is."""
    with driving("feishu", tmp_path) as chat:
        for asked in ("怎么登记机器", "帮助 登记", "help track"):
            said = chat.command(asked)
            assert "`track " in said and "`remind at" not in said and "help" in said, (asked, said)
        assert "`remind at" in chat.command("help")  # alone: everything


def test_two_cards_weighed_are_priced_side_by_side(tmp_path: Path) -> None:
    """`A100和H100哪个划算` was an unknown sub-command and `prices A100 H100` refused the second card: each card now
    has its line, each option at its own billing (the A100's reference price is by the day), and what an hour's
    price does not say."""
    with driving("feishu", tmp_path) as chat:
        said = chat.command("A100和H100哪个划算")
        assert "A100-80GB · H100-80GB 对比" in said and "独占 ¥400/天 (domestic-reference" in said, said
        assert "**H100-80GB** (80 GB): 独占 ¥" in said and "/小时 (lambda" in said and "共享 1/2 卡 ¥14/小时" in said
        assert "单价便宜不等于整体便宜" in said and "quote gpu=A100-80GB hours=4x14" in said
        english = chat.command("prices A100 H100 4090 910B L40S")
        assert "另有 1 款：一次最多对比 4 款" in english and "RTX4090-24GB" in english and "L40S" not in english
        assert "A100-80GB · lambda" in chat.command("prices A100 lambda")  # a GPU and a provider: as before


def test_words_after_advise_are_answers_and_after_analyze_or_form_are_refused(tmp_path: Path) -> None:
    """`建议 做lora` dropped its words and asked the kind of work again; `advise 10h mem=70/80 …` asked all five
    questions; `分析 训练机` and `表单 hello` dropped theirs without a word."""
    from tests.chat.test_both_platforms import GROUP, DingTalkDriver
    from tests.support.fake_dingtalk import CORP

    with driving("dingtalk", tmp_path) as chat:
        assert isinstance(chat, DingTalkDriver)
        first = chat.command("建议 做lora")
        assert "GPU 选型建议" in first
        convo = chat.deps.conversations.open_for(f"dingtalk:{CORP}", GROUP, chat.ids["starter"])
        assert convo is not None and convo.answers.get("workload") == "做lora", convo.answers
        assert convo.step == 2  # the next question is asked
        once = chat.command("advise 10h mem=70/80 mp=no freq=daily resume=no")  # as typed without the word
        assert "独占卡：A100-80GB" in once and "4 项独占指标命中 3 项" in once, once
        first = chat.command("advise lora 10h mem=70/80 mp=no freq=daily resume=no")  # the kind of work first
        assert "独占卡：A100-80GB" in first and "LoRA：" in first, first
        machine = chat.command("分析 训练机")
        assert "`analyze` 后面不带参数（收到 训练机）" in machine and "`list` 和 `report`" in machine, machine
        assert "`form` 后面不带参数（收到 hello）" in chat.command("表单 hello")


def test_a_question_asked_while_a_profile_is_open_is_answered_where_chats_have_no_threads(tmp_path: Path) -> None:
    """In DingTalk and WeCom every message went to the open profile: `4090一天多少钱` was refused as the kind of
    work. A question the table answers that is no answer to the open question is answered; the profile stays."""
    with driving("dingtalk", tmp_path) as chat:
        chat.start()
        asked = chat.convo()
        prices = chat.command("4090一天多少钱")  # a day of it: its quote
        assert "RTX4090-24GB × 1 的费用：每天 24 小时 × 1 天" in prices, prices
        assert "尚未记录预付余额" in chat.command("查一下余额")
        assert "本群没有租用记录" in chat.command("本月花了多少钱")
        after = chat.convo()
        assert (after.status, after.answers, after.question_ts) == ("active", asked.answers, asked.question_ts)
        chat.reply("lora")  # an answer is still the profile's
        assert chat.convo().answers.get("workload") == "lora"


def test_how_long_the_balances_last_and_when_the_digest_comes_asked_after_the_word(tmp_path: Path) -> None:
    """`余额还能用多久` and `提醒 什么时候发` were refused with the usage: a question after the word is its answer."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("余额 autodl 500")
        for asked in ("余额还能用多久", "余额 还能用多久", "balance how long will it last"):
            said = chat.command(asked)
            assert "autodl：约剩 ¥500" in said or "autodl: about ¥500" in said, (asked, said)
        for asked in ("提醒 什么时候发", "提醒什么时候发"):
            said = chat.command(asked)
            assert "09:30" in said and "用法" not in said, (asked, said)


def test_how_the_budgets_stand_asked_in_words_is_the_list(tmp_path: Path) -> None:
    """`预算 还剩多少` was refused as a budget named 还剩多少; `预算还剩多少` was an unknown sub-command."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("预算 llm 5万")
        for asked in ("预算 还剩多少", "预算还剩多少", "budget status"):
            said = chat.command(asked)
            assert "**llm**" in said and "¥50,000" in said and "用法" not in said, (asked, said)


def test_a_budget_set_in_a_sentence_is_set(tmp_path: Path) -> None:
    """`budget for llm is 20000` was refused with the usage (a project named "for"), `llm的预算是2万` listed the
    budgets: each sets llm's, as `budget llm 20000` does."""
    with driving("dingtalk", tmp_path) as chat:
        for said, amount in (("budget for llm is 20000", "¥20,000"), ("llm的预算是3万", "¥30,000")):
            answer = chat.command(said)
            assert "llm" in answer and amount in answer and "用法" not in answer, (said, answer)
        assert "¥30,000" in chat.command("预算")
        # the team's, the verb after 预算 (refused with the usage: `设为每月5万` was read as no amount)
        for said, amount in (
            ("预算设为每月5万", "¥50,000"),
            ("把预算改成6万", "¥60,000"),
            ("预算 调到 7万", "¥70,000"),
        ):
            answer = chat.command(said)
            assert "全队" in answer and amount in answer and "用法" not in answer, (said, answer)


@pytest.mark.parametrize(
    ("word", "split"),
    [("预算还剩多少", ["预算", "还剩多少"]), ("预算5万", ["预算", "5万"]), ("删除存储ckpt", ["删除存储", "ckpt"]),
     ("报价A100", ["报价", "A100"]), ("预算", None), ("lora", None)],
)  # fmt: skip
def test_a_sub_commands_name_glued_to_its_first_word_is_split(word: str, split: list[str] | None) -> None:
    from bot.app.table import glued_name

    assert glued_name(word) == split


def test_a_chinese_sub_command_glued_to_its_first_word_is_that_sub_command(tmp_path: Path) -> None:
    """Chinese is typed without spaces: `报价A100 每天4小时 14天`, `登记训练机 …`, `关机训练机` were unknown
    sub-commands (or, in a chat without threads, answers to the open profile)."""
    with driving("dingtalk", tmp_path) as chat:
        assert "已在这里登记 **训练机**" in chat.command("登记训练机 A800 8卡 每小时60元")
        assert "A100-80GB × 1 的费用：每天 4 小时 × 14 天" in chat.command("报价A100 每天4小时 14天")
        assert "**训练机** 自此刻关机" in chat.command("关机训练机")
        assert "¥3,200" in chat.command("余额autodl 3200")
        chat.command("advise")  # a profile open: a glued command is still a command, not its answer
        assert "A100-80GB × 1 的费用" in chat.command("报价A100 4x14")
        from tests.chat.test_both_platforms import GROUP
        from tests.support.fake_dingtalk import CORP

        convo = chat.deps.conversations.open_for(f"dingtalk:{CORP}", GROUP, chat.ids["starter"])
        assert convo is not None and convo.status == "active" and "workload" not in convo.answers
        for said in ("lora", "3h", "no"):  # the kind of work, the run, the memory
            chat.command(said)
        chat.command("no")  # no model parallelism
        chat.command("daily")
        chat.command("关机后能接着跑")  # begins with 关机, and is an answer: the resume question's yes
        kept = chat.deps.conversations.get(convo.id)
        assert kept is not None and kept.values.get("can_resume") is True, kept.answers


def test_two_cards_answered_on_the_gpu_question_are_asked_which_where_chats_have_no_threads(tmp_path: Path) -> None:
    """At the GPU question, `H800或者A800` was answered as a question of its own (both cards' prices) and the
    question stayed open without a word: it is its answer, asked back which one."""
    with driving("dingtalk", tmp_path) as chat:
        chat.start()
        for said in ("lora", "3h", "70/80", "no", "daily", "yes", "跳过"):
            chat.reply(said)
        asked = chat.command("H800或者A800")
        assert "建议里用哪一款（H800-80GB / A800-80GB）" in asked and "对比" not in asked, asked


def test_a_projects_spend_named_bare_or_glued_to_its_period(tmp_path: Path) -> None:
    """`报告 llm` was refused as no period, and `llm这周花了多少` read `llm这周` as one; a project's name is looked
    for among the team's projects."""
    with driving("feishu", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]  # this week has hours, whenever it runs
        chat.command("登记 训练机 A800 8卡 项目=llm 每小时60元 起租=3天前")
        chat.command("登记 推理机 4090 2卡 每小时4元 项目=serve 起租=2天前")
        for asked in ("报告 llm", "llm这周花了多少", "报告 上周 llm"):
            said = chat.command(asked)
            assert "仅项目 llm" in said and "不是可用的时间段" not in said, (asked, said)
        assert "不是可用的时间段" in chat.command("报告 哈哈")  # neither a period nor a project: still said so
        chat.command("登记 小机 4090 每小时2元 项目=l 起租=3天前")  # a project's name that begins a period's word
        whole = chat.command("报告 last-week")
        assert "仅项目" not in whole and "不是可用的时间段" not in whole, whole


def test_each_projects_spend_asked_where_no_item_has_a_project_says_how_to_give_one(tmp_path: Path) -> None:
    """`哪个项目花钱最多` with no item under a project gave the totals alone, as if it had answered: the report, then
    how to give items a project; once one has, the report's spend by project, and no such note."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元 起租=3天前")
        for asked in ("哪个项目花钱最多", "按项目统计费用", "which project costs the most"):
            said = chat.in_group(asked)
            assert "还没有设置项目" in said or "has a project yet" in said, (asked, said)
        assert "还没有设置项目" not in chat.in_group("本月花了多少钱")  # not asked by project: the report alone
        assert "报告不能按 owner 拆分；可用 `by=project`" in chat.command("report by=owner")
        chat.command("登记 推理机 4090 2卡 每小时4元 项目=serve 起租=2天前")
        said = chat.in_group("哪个项目花钱最多")
        assert "按项目的花费" in said and "serve：¥" in said and "还没有设置项目" not in said, said


def test_a_budget_taken_off_and_a_report_asked_as_csv_in_words(tmp_path: Path) -> None:
    """`remove the llm budget` listed the budgets and removed nothing; `report last week as csv` was "not a period":
    the budget is taken off as `budget llm off` takes it, and the report is last week's (its CSV comes with it)."""
    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元 项目=llm 起租=10天前")
        chat.command("budget llm 5000")
        assert "Budget of llm removed" in chat.command("remove the llm budget")
        assert "llm" not in chat.command("预算")
        for asked in ("report last week as csv", "report 上周 导出csv"):
            said = chat.in_group(asked)
            assert "GPU 报告 11-23 至 11-29" in said and "不是可用的时间段" not in said, (asked, said)


def test_a_spend_asked_of_a_name_neither_a_project_nor_an_item_says_so(tmp_path: Path) -> None:
    """`训练机这个月花了多少` with no 训练机 tracked was "“训练机这个月”不是可用的时间段", as if the period were
    mistyped: the name is said to be neither a project nor an item, with the projects there are."""
    with driving("dingtalk", tmp_path) as chat:
        chat.command("登记 推理机 4090 每小时3元 项目=serve")
        for asked in ("训练机这个月花了多少", "训练机 上周花了多少"):
            said = chat.command(asked)
            neither = "训练机 既不是本团队的项目（serve），也不是登记的资源"
            assert neither in said and "时间段" not in said, (asked, said)
        assert "“哈哈”不是可用的时间段" in chat.command("report 哈哈")  # no period in it at all: as before


def test_thanks_and_an_acknowledgement_are_answered_not_refused(tmp_path: Path) -> None:
    """`谢谢`, `thanks`, `好的`, `ok` and `👍` said to the bot were each "unknown sub-command"."""
    with driving("feishu", tmp_path) as chat:
        assert "不客气" in chat.command("谢谢") and "You're welcome" in chat.command("thanks!")
        for said in ("好的", "收到", "👍"):
            answer = chat.command(said)
            assert "好的。还有需要可以直接问" in answer and "未知的子命令" not in answer, (said, answer)
        assert "OK. Ask me anything else" in chat.command("ok")
        assert "没读懂“好的吧哈哈”" in chat.command("好的吧哈哈")  # more than an acknowledgement: as before


def test_weekends_off_keeps_the_digest_and_a_time_moved_to_is_its_time(tmp_path: Path) -> None:
    """`周末不要提醒` turned the digest off altogether (read as 不要提醒), and `提醒改到晚上8点` was "not read": the
    first keeps the time and leaves out the weekends, the second moves the time."""
    with driving("wecom", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("每天早上10点提醒我")
        moved = chat.command("提醒改到晚上8点")
        assert "Asia/Shanghai 20:00，每天" in moved, moved
        weekdays = chat.command("周末不要提醒")
        assert "20:00，周一至周五" in weekdays, weekdays
        assert "20:00，周一至周五" in chat.command("提醒")  # as it stands: on, weekdays (not "已关闭")


@pytest.mark.parametrize(
    ("said", "lang"),
    [("用昇腾910B训练一个7B模型要多久", "zh"), ("帮我看看", "zh"), ("how long does it take to train a 7B model", "en")],
)
def test_a_sentence_not_understood_says_so_and_each_example_it_gives_works(
    said: str, lang: str, tmp_path: Path
) -> None:
    """A sentence read as nothing was "unknown sub-command 'how'" (or the whole sentence named a sub-command): it
    is said not understood, with questions that are, each of which is answered (none refused or not understood)."""
    import re

    with driving("wecom", tmp_path) as chat:
        answer = chat.command(said)
        assert ("没读懂" if lang == "zh" else "I did not understand") in answer, answer
        assert "sub-command" not in answer and "子命令" not in answer
        examples = re.findall(r"`([^`]+)`", answer.split("help")[0])
        assert len(examples) >= 4, answer
        for example in examples:
            got = chat.command(example)
            assert not any(w in got for w in ("没读懂", "not understand", "未知的子命令", "unknown sub")), (
                example,
                got,
            )
    with driving("wecom", tmp_path / "lsit") as chat:
        assert "`list`" in chat.command("lsit")  # a word near a sub-command's name: still the one it meant


def test_the_digests_time_said_before_remind_and_the_idle_rule_asked(tmp_path: Path) -> None:
    """`每天晚上8点提醒` was not understood, `提醒时间改成早上9点` refused "时间改成" as no days, `现在几点提醒` not
    understood, and `闲置超过3小时提醒我` told `idle` takes no words: the time is set as `remind at` sets it, asked
    is the schedule, and the idle rule is said with who may change it (the team's policy, not the channel's words)."""
    from bot.state.schedules import Schedules
    from tests.chat.test_both_platforms import GROUP
    from tests.support.fake_dingtalk import CORP

    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("登记 训练机 A800 8卡 每小时60元")
        schedules = Schedules(chat.deps.store, chat.deps.settings.digest.default_schedule())

        def at() -> str:
            plan = schedules.of(f"dingtalk:{CORP}", GROUP)
            return f"{plan.at:%H:%M} {'-'.join(map(str, sorted(plan.days)))}"

        for said, then in (
            ("每天晚上8点提醒", "20:00"),
            ("提醒时间改成早上9点", "09:00"),
            ("工作日早上9点半发提醒", "09:30"),
        ):
            assert "本群的提醒" in chat.command(said), said
            assert at().startswith(then), (said, at())
        assert at().endswith("0-1-2-3-4")  # weekdays
        assert "09:30" in chat.command("现在几点提醒")
        rule = chat.command("闲置超过3小时提醒我")
        assert "最近 60 分钟" in rule and "idle.window_minutes" in rule and "`act stop grace=3h`" in rule, rule
        assert "`idle`（闲置）后面不带参数" in chat.command("闲置 随便什么")  # other words: as before


def test_a_pause_asked_pauses_the_digest_till_then_and_remind_on_ends_it(tmp_path: Path) -> None:
    """`明天不要提醒` was not understood, then answered that no pause is kept (turn it off, remember to turn it on):
    the channel's digest is paused till the day said (a day alone is the last without it; `until`, `之前`: the
    first with it), said with the schedule, and comes again by itself; a pause with no day (`春节期间`) asks which;
    `remind on` ends a pause, and turns an off digest back on at its time and days."""
    from bot.state.schedules import Schedules
    from rules.remind_schedule import is_due
    from tests.chat.test_both_platforms import GROUP
    from tests.support.fake_dingtalk import CORP

    with driving("dingtalk", tmp_path) as chat:
        chat.h.clock.now = MONDAY_0910_SHANGHAI  # type: ignore[attr-defined]
        chat.command("remind at 20:00 mon-fri")
        schedules = Schedules(chat.deps.store, chat.deps.settings.digest.default_schedule())
        plan = lambda: schedules.of(f"dingtalk:{CORP}", GROUP)  # noqa: E731
        said = chat.command("明天不要提醒")  # Tuesday's skipped: back on Wednesday
        assert "12-02（周三）起" in said and plan().resume_on == date(2026, 12, 2), said
        tuesday_evening = MONDAY_0910_SHANGHAI + timedelta(days=1, hours=11)
        assert not is_due(plan(), tuesday_evening) and is_due(plan(), tuesday_evening + timedelta(days=1))
        assert "已暂停：12-02（周三）起恢复" in chat.command("remind")
        for asked, resumes in (("周五之前不要提醒", date(2026, 12, 4)), ("这周别提醒了", date(2026, 12, 7)),
                               ("pause the reminders until monday", date(2026, 12, 7))):  # fmt: skip
            chat.command(asked)
            assert plan().resume_on == resumes, asked
        assert "暂停到哪天" in chat.command("春节期间不要发提醒") and plan().resume_on == date(2026, 12, 7)
        assert "31 天之内" in chat.command("暂停提醒到今天") and plan().resume_on == date(2026, 12, 7)
        assert "20:00" in chat.command("remind on") and plan().resume_on is None and plan().enabled
        assert "remind on" in chat.command("remind off")  # how to undo it, said
        assert not plan().enabled and "已关闭" in chat.command("明天不要提醒")  # off: nothing to pause
        assert "20:00" in chat.command("remind on")
        assert plan().enabled and f"{plan().at:%H:%M}" == "20:00" and sorted(plan().days) == [0, 1, 2, 3, 4]


def test_a_service_described_with_its_load_is_advised_at_once(tmp_path: Path) -> None:
    """Every answer a decision needs said in one message (`部署一个70B的模型做推理, QPS 200, P99 要小于50ms`: a
    service's load and latency): the recommendation at once, nothing asked. `P99` was refused as an unknown GPU."""
    with driving("feishu", tmp_path) as chat:
        said = chat.command("部署一个70B的模型做推理, QPS 200, P99 要小于50ms")
        assert "200 QPS" in said and "<50 ms" in said and "独占" in said, said
        assert "未知的 GPU" not in said and "问题 1/" not in said, said
        assert "未回答" not in said, said  # a service is not asked the run length, frequency, resuming


def test_asking_for_an_answer_before_the_question_is_left_out(tmp_path: Path) -> None:
    """`帮我算一下4张4090跑一周多少钱` was refused as a quote whose word `帮我算一下` means nothing: the asking before a
    question (帮我算一下, 请问, 想问一下, 帮我查一下) is left out, glued to it or not, and the question answered."""
    with driving("feishu", tmp_path) as chat:
        assert "RTX4090-24GB × 4 的费用：每天 24 小时 × 7 天" in chat.command("帮我算一下4张4090跑一周多少钱")
        assert "缓存的价格 — A100-80GB" in chat.command("请问 A100多少钱")
        assert "H100-80GB × 1 的费用" in chat.command("想问一下H100一天多少钱")
        assert "尚未记录预付余额" in chat.command("帮我查一下余额")
        assert "未知的子命令“请问”" in chat.command("请问")  # asking, and no question
    with driving("slack", tmp_path / "en") as chat:
        said = chat.command("can you work out the cost of an A100 for 3 days")
        assert "Cost for A100-80GB × 1, 24 h/day × 3 days" in said, said  # unexpected 'can', before
        assert "Cached prices — H100-80GB" in chat.command("could you please tell me how much an H100 costs")


def test_a_box_named_in_a_sentence_is_tracked(tmp_path: Path) -> None:
    """`我们有台机器叫train-01，A800 8卡，每小时60块，帮我记上` was not understood, and `帮我登记一台机器，叫训练机，…`
    refused as a GPU given where the name goes: each is tracked under the name said with 叫."""
    with driving("feishu", tmp_path) as chat:
        assert "已在这里登记 **train-01**" in chat.command("我们有台机器叫train-01，A800 8卡，每小时60块，帮我记上")
        assert "已在这里登记 **训练机**" in chat.command("帮我登记一台机器，叫训练机，A800 8卡 每小时60元")
        listed = chat.command("list")
        assert "**train-01** A800-80GB × 8 · ¥60/小时" in listed and "**训练机** A800-80GB × 8 · ¥60/小时" in listed


def test_one_providers_balance_asked_and_a_balance_alert_asked_with_an_amount(tmp_path: Path) -> None:
    """`balance autodl` was the usage and `autodl 余额低于200时提醒我` a digest time refused: that provider's balance
    and runway (or that it has none), and that amount to be told below (tests/metering/test_balance_floor.py), with
    the balances."""
    with driving("feishu", tmp_path) as chat:
        assert "尚未记录 runpod 的余额：用 `balance runpod 金额` 记录" in chat.command("balance runpod")
        chat.command("balance autodl 500")
        chat.command("balance runpod 300 USD")
        one = chat.command("balance autodl")
        assert "autodl：约剩 ¥500" in one and "runpod" not in one, one
        assert "autodl：约剩 ¥500" in chat.command("balance autodl 还能用多久")
        said = chat.command("autodl 余额低于200时提醒我")
        assert "autodl 的余额低于 200 时会在这里提醒" in said and "runpod" in said, said


@pytest.mark.parametrize(
    ("said", "topic"),
    [("共享卡和独占卡有什么区别", "shared"), ("独占和共享哪个好", "shared"), ("what is a dedicated GPU", "shared"),
     ("difference between shared and dedicated GPUs", "shared"), ("什么是抢占式实例", "spot"),
     ("抢占式实例靠谱吗", "spot"), ("what is a spot instance", "spot"), ("MIG是什么", "slicing"),
     ("时间片和显存切片有什么区别", "slicing"), ("what is time-slicing", "slicing"),
     ("能用抢占式吗", "spot"), ("can I use spot for a 3 day training run", "spot")],
)  # fmt: skip
def test_a_kind_of_rental_asked_about_is_explained(said: str, topic: str) -> None:
    """Each was "not understood": `help`'s explanation of that kind."""
    assert free_words(said) == ("help", [topic])


def test_the_explanations_answer_in_the_askers_words_and_what_they_suggest_works(tmp_path: Path) -> None:
    with driving("feishu", tmp_path) as chat:
        said = chat.command("共享卡和独占卡有什么区别")
        assert "*独占卡*" in said and "时间片轮转" in said and "`advise`" in said, said
        assert "抢占式（竞价）实例" in chat.command("什么是抢占式实例")
        slicing = chat.command("MIG是什么")
        assert "qGPU" in slicing and "`help shared`" in slicing
        assert "*独占卡*" in chat.command("help shared")  # what it suggests (a sub-command: the team's language)
        assert "Spot (preemptible)" in chat.command("what is a spot instance")
        assert "*独占卡*" in chat.command("帮助 共享")
