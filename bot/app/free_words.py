"""What a first message says when it names no sub-command (`你好`, `怎么用`, `A100多少钱`, `我想租卡`): each was
"unknown sub-command", the bot's first answer to a person trying it out. A greeting or a how-to question is
answered with the help, a price question with the cached prices of the GPU it names (or the quote of the run it
says with it), a wish to rent with the profile that picks the card, a question of what is left with the balances
(`查一下余额`), one of what was spent with that period's report (`本月花了多少钱`; this month's, when none is
said), a wish to be reminded with the digest's time (`每天早上9点提醒我`), what is idle with the channel's digest now
(`谁的机器闲着`), a report asked by another word or with its period around it with that report (`报表`, `周报`,
`上个月的报表`). Anything else stays unknown (with the
nearest sub-command, bot/app/table.py). Patterns over a few words, not an intent classifier: each reading is said
back by what it answers, and a word it misses is the unknown sub-command it was. Where chats have no threads,
these questions are answered even while a profile is open, if they are no answer to its question
(bot/app/threadless.py)."""

from __future__ import annotations

import re

from bot.app.item_spent import other_period_in
from bot.app.price_asked import gpu_in, price_asked
from bot.app.spend_asked import budget_set, period, spent_asked
from bot.app.stop_words import time_first
from bot.app.switches_said import switch_said
from bot.fields.metering import PROVIDER_NAMES
from rules.days import DAY_WORDS
from rules.patterns import lazy

_HELLO = lazy(
    r"^(?:你好|您好|嗨|哈喽|哈啰|在吗|在么|在不在|hi|hello|hey|hiya|yo|怎么用|如何使用|怎么使用|使用说明|用法|说明"
    r"|你能做什么|能做什么|你会什么|有什么功能|what can you do|how (?:do i|to) use (?:this|it|you)|usage)"
    r"[\s!！?？。.~～,，]*$",
    re.IGNORECASE,
)
_RENT = lazy(
    r"推荐|选卡|租卡|租什么卡|租哪种卡|用什么卡|选什么卡|该租|怎么租|帮我选"
    r"|which gpu|what gpu|recommend|help me (?:pick|choose)|(?:like|want|need|plan|going) to rent"
    r"|what (?:should|would) (?:i|we) (?:rent|use)|what do (?:i|we) need to rent|which (?:card|instance) should"
    r"|rent (?:a |some )?gpus?|need (?:a |some )?gpus?",
    re.IGNORECASE,
)
# a box said rented, or to be tracked, with its GPU and no name (帮我登记一台A100, I just rented an H100)
_RENTED = lazy(
    r"(?:^(?:帮我|请|麻烦)?(?:登记|记一下|记录)|^(?:我|我们)?(?:刚|刚刚|新)?租了)(?!.*(?:哪些|什么|几台|多少))"
    r"|^(?:i|we)(?: just| have)? (?:rented|got|took)\b",
    re.IGNORECASE,
)
_WASTE = lazy(  # money left idle, asked (本周闲置浪费了多少钱, 谁浪费最多, how much did we waste last week)
    # who left most idle (上周谁的机器闲置最多: it was "nothing of yours is idle now")
    # 哪台机器闲置最多 (its period was "哪台")
    r"(?:谁的|哪个项目的?|哪台|哪个|哪些)?(?:机器|卡|实例|服务器)?(?:闲置|闲着|空闲|空着)(?:得|的)?最(?:多|久)(?:的)?"
    r"(?:是谁|是哪个|是哪台)?"
    r"|(?:闲置)?(?:浪费|白花)(?:了|掉)?(?:多少钱?|最多|的钱)?|闲置(?:的)?(?:花费|成本|费用|花了多少钱?)|谁(?=浪费)"
    r"|(?:how much )?(?:did|do|have) we waste(?:d)?|who wastes?(?: the)? most"
    r"|(?:who(?:'s| is| are)? )?wasting(?: the most)?(?: money)?|(?<![a-z])wasted?(?![a-z])",
    re.IGNORECASE,
)
_SOURCES = lazy(
    r"汇率|exchange rate|fx rate|(?:价格|报价|prices?)\s*(?:多久|什么时候|啥时候|何时)?(?:更新|刷新)"
    r"|(?:更新|刷新)(?:一下)?价格|(?:refresh|update) (?:the )?prices|prices? (?:up to date|updated|refreshed)",
    re.IGNORECASE,
)
_ANY_CHEAP = lazy(  # the cheapest of any card, none named (a GPU named is its own prices: checked before)
    r"^(?:有没有|哪(?:款|种|个|张))?(?:最)?(?:便宜|实惠)(?:点|一点|一些)?的(?:卡|显卡|gpu)(?:是哪(?:款|个|种))?[?？吗呢]?$"
    r"|^(?:what(?:'s| is|are)? )?(?:the )?cheapest (?:gpus?|cards?)\??$|^(?:any )?cheap(?:er)? (?:gpus?|cards?)\??$",
    re.IGNORECASE,
)


# idle boxes stopped by themselves, asked for (开启自动关机, 闲置超过2小时自动关机, stop idle boxes automatically):
# `act`'s help, whose `act stop` is an admin's choice for a channel; never a policy set from words
AUTO_STOP = lazy(
    r"自动(?:关机|停机|关掉|停掉)|auto(?:matically)?[ -]?(?:stop|shut ?down)"
    r"|(?:stop|shut down|turn off) (?:idle )?\S+ automatically|automatically (?:stop|shut down|turn off)",
    re.IGNORECASE,
)


# what a kind of rental is, asked (共享卡和独占卡有什么区别, 什么是抢占式实例, MIG是什么, what is time-slicing):
# `help`'s explanation of it (bot/app/table.py CONCEPTS); it was "not understood"
_CONCEPTS = (
    (
        "shared",
        lazy(
            r"(?:共享|独占|独享|整卡|切片).{0,6}(?:和|与|跟|还是|vs\.?|对比).{0,6}(?:共享|独占|独享|整卡|切片)"
            r".{0,8}(?:区别|不同|差别|差异|哪个好|怎么选|选哪个)|(?:什么是|啥是|什么叫)(?:共享卡|独占卡|独享卡|共享gpu)"
            r"|(?:共享卡|独占卡|独享卡)(?:是什么|是啥|什么意思)"
            r"|difference between (?:an? )?(?:shared|dedicated)\b.*\b(?:shared|dedicated)"
            r"|(?:shared|dedicated) (?:vs\.?|or|versus) (?:shared|dedicated)(?: (?:gpus?|cards?))?\??$"
            r"|what(?:'s| is| are) (?:an? )?(?:shared|dedicated) (?:gpus?|cards?)",
            re.IGNORECASE,
        ),
    ),
    (
        "spot",
        lazy(
            r"(?:什么是|啥是|什么叫)(?:抢占式|竞价)(?:实例|卡)?|(?:抢占式|竞价)(?:实例|卡)?(?:是什么|是啥|什么意思|靠谱吗)"
            r"|what(?:'s| is| are) (?:an? )?(?:spot|preemptible) (?:instances?|gpus?|capacity)"
            # whether spot suits a job (能用抢占式吗, can I use spot for a 3 day run): what it suits
            r"|(?:能|可以|适合|能不能|可不可以)(?:用)?(?:抢占式|竞价)|(?:can|should) (?:i|we) use (?:spot|preemptible)"
            r"|is (?:spot|preemptible) (?:ok|safe|good|fine|a good idea)",
            re.IGNORECASE,
        ),
    ),
    (
        "slicing",
        lazy(
            r"(?:时间片|显存切片|mig|vgpu|qgpu|cgpu|vnpu|hami).{0,10}(?:区别|不同|是什么|是啥|什么意思)"
            r"|(?:什么是|啥是|什么叫)(?:mig|vgpu|qgpu|时间片|显存切片)"
            r"|what(?:'s| is) (?:mig|vgpu|qgpu|time-?slicing)|difference between (?:mig|time-?slicing|vgpu)",
            re.IGNORECASE,
        ),
    ),
)


def concept_asked(said: str) -> str | None:
    """The kind of rental a question asks to have explained (`shared`, `spot`, `slicing`); None where none."""
    return next((name for name, pattern in _CONCEPTS if pattern.search(said)), None)


def free_words(text: str) -> tuple[str, list[str]] | None:
    """The sub-command and its words a message without one means: ("help", []), ("prices", [GPU]), ("quote", words)
    where a run is said with the GPU, ("advise", []); None when it means none of them."""
    said = text.strip()
    if _HELLO.match(said):
        return "help", []
    if (switched := switch_said(said)) is not None:  # 删除llm的预算, resume the digest, 停机记录
        return switched
    if (how := _HOW_TO.match(said)) is not None and (topic := _topic(how["what"] or how["thing"])) is not None:
        return "help", [topic]  # 怎么登记机器, how do I track a box: the help's lines of that sub-command
    if (concept := concept_asked(said)) is not None:  # 共享卡和独占卡有什么区别, what is a spot instance: explained
        return "help", [concept]
    if _WASTE.search(said):  # 浪费了多少, 谁浪费最多, how much did we waste last week: that period's report, idle cost
        return "report", [period(_WASTE.compiled.sub(" ", said))]
    if _IDLE_RULE.search(said):  # 什么算闲置, what's the idle rule: when a box counts idle, and who sets it
        return "idle", ["rule"]
    if _IDLE.search(said):  # 谁的机器闲着, what's idle: this chat's digest now
        return "idle", []
    if (named := _named_box(said)) is not None:  # 有台机器叫训练机，A800 8卡，每小时60块，帮我记上: tracked
        return "track", named
    if (priced := price_asked(said)) is not None:  # A100多少钱, A100 vs H100, H100 跑一周, I need 4 H100s …
        return priced
    if _RENTED.search(said) and (gpu := gpu_in(said)) is not None:  # 我租了一台4090: track's own "name it first"
        return "track", [gpu]
    if _SOURCES.search(said):  # 汇率是多少, 价格多久更新一次, 刷新价格: the sources' status and the exchange rate
        return "prices", ["status"]
    if _ANY_CHEAP.search(said):  # 最便宜的卡, 有没有便宜点的卡, cheapest gpu: each card's cheapest, cheapest first
        return "prices", ["cheapest"]
    if _RENT.search(said):
        return "advise", []
    if _DIGEST_NOW.match(said):  # send the digest now, 现在发一下提醒: the digest as it stands (`idle`)
        return "idle", []
    if _WHEN_DIGEST.search(said):  # 提醒什么时候发, when does the digest come: its schedule
        return "remind", []
    if _WEEKDAYS_ONLY.search(said):  # 周末不要提醒, no reminders on weekends: weekdays (it turned the digest off)
        return "remind", ["工作日"]
    if _PAUSE.search(said):  # 明天不要提醒, 周五之前不要提醒, skip tomorrow's digest: paused till then (春节: asked)
        return "remind", ["pause", *_paused_for(said)]
    if _REMIND_OFF_SAID.fullmatch(said):  # 取消提醒, 不要提醒了, stop the reminders: the digest off (said alone)
        return "remind", ["off"]
    if (gone := _BALANCE_FORGET.fullmatch(said)) is not None:  # 删除 autdl 的余额, forget the autdl balance
        return "balance", [next(p for p in gone.groups() if p), "forget"]
    if (left := _balance_said(said)) is not None:  # autodl 还剩300元, runpod balance is 500 dollars: recorded
        return "balance", left
    if _BALANCE_ALERT.search(said):  # autodl 余额低于200时提醒我: when runways are told (it was read as a time)
        return "balance", ["提醒", said]
    if (stop := time_first(said)) is not None:  # 明天早上9点(提醒我)关训练机, shut down box1 at 9pm: `stop`
        return stop
    if (at := _REMIND_AT_SAID.match(said)) is not None:  # 每天晚上8点提醒: the digest's time
        return "remind", at["when"].split()
    if _REMIND_ME.search(said):  # 每天早上9点提醒我: the digest's time
        return "remind", _REMIND_ME.compiled.sub(" ", said).split()
    if _DEAREST.search(said):  # 哪台机器最贵, which box costs the most: the list, most spent this month first
        when = other_period_in(said)  # 这周谁的机器最贵: the week's costs, not this month's list
        return "list", ["dearest", *([when] if when is not None else [])]
    if _MINE.search(said):  # 我的机器, my boxes: the list of the asker's
        return "list", ["mine"]
    if _OURS.search(said):  # 我们租了哪些机器, what do we rent: the team's list
        return "list", []
    if _FORECAST.search(said):  # 这个月大概要花多少, what's our burn rate: where the month is heading
        return "budget", ["forecast"]
    if (setting := budget_set(said)) is not None:  # 设置预算5万, no project named: the whole team's
        return "budget", [setting["project"]] * bool(setting["project"]) + setting["amount"].split()  # 5000 usd
    if _STORAGE_LIST.fullmatch(said):  # 存储列表, 有哪些存储: the list, which has the storage
        return "list", []
    if _WEEKLY_ON.fullmatch(said):  # 每周一发报告, 开启周报: this channel's weekly report on (its day is the setting's)
        return "report", ["on"]
    if _BOARD.search(said):  # 给我看板链接, board link: this channel's board
        return "board", []
    if _BUDGET.search(said):  # 我们的预算怎么样, how is our budget (预算还剩多少 is 预算 glued: bot/app/table.py)
        return "budget", []
    if _BALANCE.search(said):  # 查一下余额, 还剩多少钱: the balances and how long each lasts
        return "balance", []
    return spent_asked(said)


# a box said with its name, to be kept track of (我们有台机器叫训练机，A800 8卡，每小时60块，帮我记上; 新租了一台A100，
# 名字叫box1，每小时14元): `track NAME …` with the rest of its words
_CALLED = lazy(
    r"(?:^|[,，\s])(?:[^,，\s]*?(?:机器|服务器|实例|机子|卡|台|一台|box|instance|server))?"
    r"\s*(?:名字叫|名叫|叫做|叫|命名为|名字是|名为|called\s|named\s)\s*(?P<name>[^,，\s]+)",
    re.IGNORECASE,
)
_KEEP_TRACK = lazy(
    r"(?:帮我|请|麻烦)?(?:记上|记一下|记下来|记下|登记一下|登记下|登记|记录一下|记录|加上|加进去|添加)(?:吧|一下)?"
    r"|(?:please\s+)?(?:track|register|add|record)\s+(?:it|this|that)(?:\s+please)?|(?:please\s+)?keep track of it",
    re.IGNORECASE,
)
_BEFORE_NAME = lazy(r"^(?:我们|我)?(?:有|新租了|租了|刚租了|新开了|开了)?(?:一)?(?:台|个)(?:机器|服务器|实例|机子)?")


def _named_box(said: str) -> list[str] | None:
    """`track`'s words when a message names a box and asks to keep track of it (`我们有台机器叫训练机，A800 8卡，每小时
    60块，帮我记上`); None otherwise."""
    return box_called(said) if _KEEP_TRACK.search(said) is not None else None


def box_called(said: str) -> list[str] | None:
    """A box's words with its name said by 叫 or "called" (`一台机器，叫训练机，A800 8卡 每小时60元`): the name first,
    then the other clauses' words as `track` reads them; None where no name is said so."""
    called = _CALLED.search(said)
    if called is None:
        return None
    rest = said[: called.start()] + " " + said[called.end() :]
    words = [_BEFORE_NAME.sub("", w) for w in re.split(r"[,，、。;；\s]+", _KEEP_TRACK.compiled.sub(" ", rest))]
    return [called["name"], *(w for w in words if w and w.lower() not in _SAID_AROUND_BOX)]


# the words of a sentence around a box's own (we have a box called b1, I rented an H100 named h1 at $3/h)
_SAID_AROUND_BOX = frozenset(
    ("we", "i", "have", "has", "rented", "got", "just", "a", "an", "the", "at", "for", "new", "box", "machine",
     "server", "instance", "please", "also")
)  # fmt: skip


_HOW_TO = lazy(
    r"^(?:how (?:do|can|should) (?:i|we|you)|how to|怎么|如何|怎样|咋)\s*(?P<what>.+?)[?？。.]?$"
    # the thing first (agent怎么装, 预算怎么设置, 看板在哪里看)
    r"|^(?P<thing>.+?)\s*(?:要|该|应该)?(?:怎么|如何|怎样|咋)(?:装|安装|用|使用|接入|设置|设|配置|开|开启|弄|看)(?:呢|啊)?[?？。.]?$",
    re.I,
)
_TOPICS = (  # a how-to question's words, to the sub-command whose help answers it
    (r"预算|budget", "budget"),
    (r"提醒|remind|digest|日报", "remind"),
    (r"余额|充值|balance", "balance"),
    (r"报告|报表|report", "report"),
    (r"释放|退租|release", "release"),
    (r"自动停机|自动关机|停机策略|auto.?stop|act\b", "act"),
    (r"开机|关机|power|turn (?:it )?(?:on|off)", "power"),
    (r"计费方式|billing|包月|按量", "billing"),
    (r"agent|enroll|接入|自动上报|安装", "enroll"),
    (r"看板|board|dashboard", "board"),
    (r"闲置|idle", "idle"),
    (r"报价|算钱|quote|cost|price", "quote"),
    (r"登记|记录|添加|track|add|register", "track"),
)


def _topic(what: str) -> str | None:
    return next((word for words, word in _TOPICS if re.search(words, what, re.IGNORECASE)), None)


_IDLE_RULE = lazy(
    r"(?:什么|怎样|怎么|多久)(?:才|就)?算(?:是)?闲置|闲置(?:的)?(?:标准|规则|定义|判定|阈值)(?:是什么|是啥)?"
    r"|idle (?:rule|threshold|definition)s?|what counts as idle"
    r"|when (?:is|does) a (?:box|machine|gpu|card) (?:count as )?idle",
    re.IGNORECASE,
)
_IDLE = lazy(
    r"(?:谁的|哪些|哪台|有没有|有哪些)(?:机器|卡|实例|gpu|服务器|资源)?(?:在|还)?(?:闲着|空着|闲置|空闲)"
    r"|(?:闲置|空闲|闲着)的(?:机器|卡|实例|gpu|服务器|资源)|(?:机器|卡|实例|gpu|服务器)(?:在|还|都)?(?:闲着|空着)"
    r"|^(?:查看|看看|看一下|列出|显示|查一下)(?:一下)?(?:闲置|空闲)(?:的)?(?:机器|卡|实例|gpu|服务器|资源)?$"
    r"|what(?:'s| is) idle|anything idle|who(?:'s| is) idle|idle (?:boxes|machines|gpus|instances|cards)"
    r"|(?:which|what) (?:boxes|machines|gpus|instances|cards) (?:are|is) idle"
    # what could be stopped: what is idle is the answer (哪些机器可以关掉, what should we shut down)
    r"|哪些(?:机器|卡|实例|资源)?(?:可以|该|应该|能)(?:关|释放|停|退)"
    r"|what (?:should|can|could) (?:i|we) (?:stop|shut down|turn off|release)"
    r"|anything (?:to|i should|we should) (?:stop|shut down|turn off|release)",
    re.IGNORECASE,
)


def idle_asked(text: str) -> bool:
    """Whether `text` asks what is idle (`闲置的机器有哪些`, `idle boxes`): `idle`'s name with question words."""
    return bool(_IDLE.search(text))


_DIGEST_NOW = lazy(  # the digest asked for now (send the digest now, 现在发一下提醒): this chat's digest as it stands
    r"^(?:please\s+)?(?:send|show|post)\s+(?:me\s+)?(?:the\s+)?(?:daily\s+)?digest(?:\s+now)?(?:\s+please)?[.!]?$"
    r"|^(?:现在|马上)?(?:发|发一下|发个)(?:今天的)?(?:提醒|日报)(?:吧)?$",
    re.IGNORECASE,
)
_WHEN_DIGEST = lazy(
    r"(?:提醒|日报|摘要)(?:什么时候|几点)|(?:什么时候|几点)(?:发)?(?:提醒|日报)"
    r"|when (?:does|will|is) the (?:digest|reminder|daily digest)|what time (?:is|does) the (?:digest|reminder)",
    re.IGNORECASE,
)
_WEEKDAYS_ONLY = lazy(
    r"(?:周末|週末|星期六日|周六日)(?:就)?(?:不要|别|不用|不)(?:再)?(?:发)?提醒|周末除外|(?:只在|只|仅)?工作日(?:才)?提醒"
    r"|not on (?:the )?weekends?|no (?:reminders? on |digests? on )?weekends?|weekdays only|only on weekdays",
    re.IGNORECASE,
)
_REMIND_OFF = lazy(
    r"(?:取消|关闭|关掉|停止|停掉|暂停|不要|别|不用)(?:再)?(?:每天|每日)?的?(?:闲置)?提醒(?:了|吧)?"
    r"|(?:stop|turn off|switch off|cancel|pause|no more)(?: the| daily| idle)* (?:remind(?:ers?|ing)|digests?)"
    r"(?: (?:me|us))?",  # stop reminding me: it was a stop of an instance named "reminding"
    re.IGNORECASE,
)
# the digest off said alone, with courtesy around it: `llm 项目不用提醒` or `不要提醒张三` turn nothing off (a line
# naming something else was read as the channel's digest off: `训练机 先别提醒了`, `周末不要提醒`)
_REMIND_OFF_SAID = lazy(
    r"(?:请|麻烦|帮我|以后|今天|本群|这个群|群里|我们|都|就)*\s*(?:"
    + _REMIND_OFF.pattern
    + r")\s*(?:了|吧|啊|哦|哈|谢谢|,?\s*please|,?\s*thanks)*[。.!！]?",
    re.IGNORECASE,
)
# a provider's balance said as people say it: autodl 还剩300元, 阿里云余额 5000, autodl balance 320
_LEFT = lazy(
    r"^(?P<provider>[^\s\d]+?)\s*(?:的)?(?:账户)?(?:余额|balance)?\s*(?:还剩|剩余|剩下|还有|剩|是|为|:|：|is|of|=)?\s*"
    r"(?P<amount>[$¥￥]?\s*\d[\d,.]*\s*(?:万|千|k)?\s*(?:元|块|美元|刀|usd|cny|dollars?|yuan|rmb)?)(?:\s+left)?$"
    # the amount first: add a balance of 500 for runpod, record 320 on autodl, set the autodl balance to 300
    r"|^(?:add|record|set|put)\s+(?:a\s+|the\s+)?(?:balance\s+(?:of\s+)?)?"
    r"(?P<amount_first>[$¥￥]?\s*\d[\d,.]*\s*(?:k)?\s*(?:usd|cny|dollars?|yuan|rmb)?)\s+(?:for|on|to|at)\s+"
    r"(?P<provider_after>[^\s\d]+)$",
    re.IGNORECASE,
)
_AMOUNT = r"[$¥￥]?\s*\d[\d,.]*\s*(?:万|千|k)?\s*(?:元|块|块钱|美元|刀|usd|cny|dollars?|yuan|rmb)?"
# a provider's balance topped up (autodl充值了2000, 给autodl充值2000, autodl 余额加2000, topped up autodl with 500,
# added $500 to runpod): `balance PROVIDER +AMOUNT`, added to what is left
_TOPPED = lazy(
    rf"^(?:刚|刚刚|又)?(?:给|往|向)?\s*(?P<provider>[^\s\d+]+?)\s*(?:账户|账号)?(?:余额)?(?:里|上)?\s*(?:刚|又)?"
    rf"(?:充值了?|充了|续费了?|加了?)\s*(?P<amount>{_AMOUNT})$"
    rf"|^(?:刚|又)?(?:充值了?|充了)\s*(?P<provider_then>[^\s\d+]+?)\s*(?P<amount_then>{_AMOUNT})$"
    rf"|^(?:i |we )?(?:topped up|top up|topup)\s+(?P<provider_en>[^\s\d]+?)\s+(?:with\s+|by\s+)?"
    rf"(?P<amount_en>{_AMOUNT})$"
    rf"|^(?:i |we )?(?:topped up|added|add|put)\s+(?P<amount_to>{_AMOUNT})\s+(?:to|on|into)\s+"
    r"(?P<provider_to>[^\s\d]+?)(?:\s+(?:balance|account))?$",
    re.IGNORECASE,
)
# a time said before 提醒 (每天晚上8点提醒, 工作日早上9点半发提醒): the digest's time, as `remind` reads it
_REMIND_AT_SAID = lazy(
    r"^(?P<when>(?:每天|每日|工作日|每个工作日)?\s*(?:早上|上午|中午|下午|晚上|傍晚|凌晨)?\s*\d{1,2}"
    r"(?:[:：]\d{2}|点半?|点\d{1,2}分?)?)\s*(?:的时候)?(?:发|发送|推送)?(?:提醒|日报|摘要)(?:吧|一下)?[。.!！]?$"
)
# the digest paused for a while, asked (明天不要提醒, 这周别提醒了, 春节期间不要发提醒, skip tomorrow's digest, pause
# the reminders): the digest has no pause kept; the answer says what does the same
_PAUSE = lazy(
    rf"(?:今天|明天|后天|这几天|这周|本周|下周|国庆|春节|过年|假期|放假|休假|{DAY_WORDS}\s*(?:之前|以前))\S*?(?:都|就|先)?"
    r"(?:不要|别|不用|暂停)(?:再)?(?:发)?"
    r"(?:提醒|日报|摘要)|暂停(?:一下)?(?:每日)?(?:提醒|日报)"
    r"|(?:pause|skip) (?:the |tomorrow's |today's |this week's )?(?:daily )?(?:digest|reminders?)",
    re.IGNORECASE,
)
# how long a pause asked in words is: until a day (周五之前, 暂停提醒到周五, until monday), a day or week skipped
# (明天, 这周, tomorrow's, this week's); `remind pause`'s words for it (bot/app/remind_pause.py)
_PAUSED_UNTIL = lazy(
    rf"(?:until|till|到|直到)\s*(?P<until>{DAY_WORDS})|(?P<before>{DAY_WORDS})\s*(?:之前|以前)", re.IGNORECASE
)
_PAUSED_FOR = lazy(
    rf"(?P<day>{DAY_WORDS}|这周|本周|下周|this week|next week)(?:'s)?"
    r"(?=\s*(?:都|就|先)?(?:不要|别|不用|暂停|的?提醒|的?日报|(?:daily )?(?:digest|reminders?)))"
    r"|(?:pause|skip)\s+(?:the\s+)?(?P<en>tomorrow|today|this week|next week)(?:'s)?"
    r"|(?:digest|reminders?)\s+(?:for\s+)?(?P<after>tomorrow|today|this week|next week)",
    re.IGNORECASE,
)


def _paused_for(said: str) -> list[str]:
    """A pause's length as `remind pause` takes it: ["until", DAY], [DAY] (the last without a digest), or [] where it
    says none (春节期间: which days are asked)."""
    if (until := _PAUSED_UNTIL.search(said)) is not None:
        return ["until", until["until"] or until["before"]]
    if (skipped := _PAUSED_FOR.search(said)) is not None:
        return [skipped["day"] or skipped["en"] or skipped["after"]]
    return []


_REMIND_ME = lazy(r"都?请?提醒(?:我们?|大家|一下)|(?:please )?remind (?:me|us)(?: of idle boxes)?", re.IGNORECASE)
_THINGS = r"(?:机器|卡|显卡|gpu|实例|资源|服务器)"
_MINE = lazy(
    rf"^(?:我的|我租的|我名下的|我登记的){_THINGS}(?:有哪些|都有什么|呢|吗)?[?？]?$"
    r"|^(?:show |list )?my (?:boxes|machines|gpus|instances|rentals|cards)\??$|what (?:am i renting|do i rent)",
    re.IGNORECASE,
)
_DEAR = "最贵|最花钱|花钱最多|花得最多|最烧钱|烧钱最多|最费钱|费钱最多|开销最大|花费最高|花费最多"  # 哪台机器最烧钱
_DEAREST = lazy(
    rf"(?:哪台|哪个|哪些|谁的)(?:{_THINGS})?(?:{_DEAR})|最(?:贵|花钱|烧钱|费钱)的{_THINGS}"
    r"|which (?:box|machine|instance|gpu|server)s? (?:costs?|spen[dt]s?|is) (?:the )?(?:most|dearest|most expensive)"
    r"|(?:most expensive|costliest|dearest) (?:box|machine|instance|gpu|server)s?",
    re.IGNORECASE,
)
_OURS = lazy(
    rf"(?:我们|团队|大家|咱们)?(?:租了|在租|登记了)(?:哪些|什么|几台){_THINGS}?|^(?:所有|全部)的?{_THINGS}$"
    r"|what (?:do|are) we rent(?:ing)?|^(?:show |list )?(?:our|all) (?:boxes|machines|gpus|rentals)\??$"
    r"|what (?:are|do) we pay(?:ing)? for|我们(?:在)?(?:为|给)?(?:哪些|什么)(?:东西)?(?:付钱|花钱|付费)"
    r"|^what(?:'s| is) running(?: (?:right )?now)?\??$|^show (?:me )?(?:everything|all)$"
    r"|^(?:现在)?哪些(?:机器)?在跑[?？]?$"
    # the list asked for by name (列出所有机器, 看一下我们的机器, 机器列表, list all machines, show me the boxes)
    rf"|^(?:请|帮我|麻烦)?(?:列出|列一下|列举|看看|看一下|查看|查一下|显示|给我看看?)(?:一下)?(?:所有|全部|我们|团队)?的?"
    rf"{_THINGS}(?:列表|清单)?[?？]?$|^(?:所有|全部)?的?{_THINGS}(?:列表|清单)$"
    r"|^(?:list|show)(?: me)?(?: all)?(?: (?:the|our))? (?:boxes|machines|gpus|instances|servers|rentals)\??$"
    r"|^what (?:cards|gpus|boxes|machines|instances|servers) (?:do we have|have we got|are we using)\??$"
    r"|^how many (?:gpus|boxes|machines|instances|cards|servers) (?:do we have |are |have we got )?(?:running|on|up)"
    r"(?: (?:right )?now)?\??$"
    rf"|^(?:现在|目前)?(?:我们)?(?:有|一共有|总共有)?(?:几台|多少台|哪些|几个|多少个){_THINGS}?(?:在跑|在运行|开着|在用)(?:吗|呢)?[?？]?$",
    re.IGNORECASE,
)
_BUDGET = lazy(r"预算|\bbudgets?\b", re.IGNORECASE)
# where the month's spend is heading, asked (这个月大概要花多少, 月底会花多少, 每天大概花多少钱, what's our burn rate,
# how much will we spend this month): the team's forecast, budgeted or not
_FORECAST = lazy(
    r"(?:这个月|本月|月底|到月底|下个?月)(?:大概|预计|估计|总共|一共)?(?:会|要|得)?花(?:多少|掉多少)|预计(?:花费|开销|支出)"
    r"|(?:how much|what) will (?:we|it) (?:spend|cost|burn) next month|next month'?s? (?:spend|cost|forecast)"
    r"|(?:每天|一天|日均)(?:大概|平均)?(?:要|会)?花(?:多少|掉多少)|烧钱速度|花钱速度"
    r"|burn rate|(?:spend(?:ing)?|cost) (?:forecast|per day|a day)|forecast(?: (?:this|the) month)?"
    r"|(?:daily|monthly) (?:burn|spend)|burn (?:per|a) (?:day|month)|how much do we (?:spend|burn) (?:a|per) day"
    r"|how much (?:will|are) we (?:going to )?spend(?:ing)?(?: this month| per day| a day)?"
    r"|what will (?:we|it) (?:spend|cost|burn)(?: this month| by (?:the )?month'?s? end)?",  # not understood before
    re.IGNORECASE,
)
_STORAGE_LIST = lazy(
    r"(?:我们|团队)?(?:有哪些|有什么|哪些|所有的?|全部的?)?(?:存储|磁盘|云盘|硬盘)(?:列表|清单|有哪些|都有哪些)?[?？]?"
    r"|(?:list|show)?\s*(?:our |all )?(?:storage|disks|volumes)(?: list)?\??",
    re.IGNORECASE,
)
_WEEKLY_ON = lazy(
    r"(?:每周[一二三四五六日天]?|每个?星期[一二三四五六日天]?)(?:都)?(?:发|发送|给我)(?:一下|一份)?(?:周报|报告|报表)"
    r"|(?:开启|打开|恢复|重新开启)(?:每周)?(?:周报|报告)|(?:send|turn on) (?:the )?weekly reports?(?: again)?"
    # 周报发到这个群: the weekly report here (it was read as a report of a period named 发到这个群)
    r"|(?:每周的?)?(?:周报|报告|报表)(?:就|也|都)?(?:发到|发在|发给|发送到|发)(?:这个|本|我们)?(?:群|频道|会话|这里|这儿)(?:里|吧|吧。)?"
    r"|send (?:the )?weekly reports? (?:here|to this (?:channel|group|chat))"
    r"(?: (?:every|each|on) (?:week|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?)?",
    re.IGNORECASE,
)
_BOARD = lazy(r"看板(?:链接|地址|网址|在哪)|(?<![a-z])(?:dashboard|board link)(?![a-z])", re.IGNORECASE)
# a balance's alert asked (autodl 余额低于200时提醒我, 余额不足时提醒, alert me when the balance is low): the rule
_BALANCE_ALERT = lazy(
    r"(?:余额|balance|credits?).*(?:低于|少于|不足|小于|不到|快用完|用完前).*提醒|提醒.*(?:余额|balance).*(?:低于|不足|快用完)"
    r"|(?:alert|remind|tell|warn)\w* (?:me|us)? ?(?:when|if|before) (?:the |our )?(?:balance|credits?)"
    r"|(?:alert|remind|tell|warn|notify)\w* (?:me|us) (?:when|if|once) \S+(?:'s)?(?: (?:balance|credits?))?"
    r" (?:is |goes |drops |falls )?(?:below|under|less than)\b",
    re.IGNORECASE,
)
_BALANCE = lazy(
    r"余额|还剩多少钱|还能用多久|还够用多久|还能撑多久|能撑多久|还够用吗"  # autodl还能用多久: how long it lasts
    r"|(?:还)?(?:能|够)(?:用|撑)几天"
    r"|\bbalances?\b|how much (?:is )?left|what(?:'s| is) left (?:on|in|at)\b"
    r"|how long will|how long (?:does|do) (?:it|we) last|runway"
    r"|(?:money|credits?|balance) (?:will )?runs? out|run out of (?:money|credits?)"
    r"|(?:钱|余额|额度)(?:什么时候|啥时候|多久|几天)?(?:会|能)?(?:用完|花光)",
    re.IGNORECASE,
)


# a provider's balance taken back (typed under a wrong name): 删除 autdl 的余额, autdl 的余额删掉, forget the
# autdl balance
_BALANCE_FORGET = lazy(
    r"(?:帮我|请)?(?:删除|删掉|去掉|清除|移除|撤回)\s*(\S+?)\s*(?:的|这条)?余额(?:吧|一下)?[。.!！]?"
    r"|(\S+?)\s*(?:的|这条)?余额\s*(?:删除|删掉|删了|不要了|去掉|清除|撤回)(?:吧|了|一下)?[。.!！]?"
    r"|(?:please\s+)?(?:forget|delete|remove)\s+(?:the\s+)?(\S+?)(?:'s)?\s+balance[.!]?",
    re.IGNORECASE,
)


def _balance_said(said: str) -> list[str] | None:
    """A provider's balance said (autodl 还剩300元, runpod balance is 500 dollars, add a balance of 500 for runpod): its
    provider and amount, as `balance` takes them (topped up: the amount after +); None where it names no provider
    the bot knows."""
    topped = _TOPPED.match(said)
    if topped is not None:
        named = next(topped[k] for k in ("provider", "provider_then", "provider_en", "provider_to") if topped[k])
        amount = next(topped[k] for k in ("amount", "amount_then", "amount_en", "amount_to") if topped[k])
        return [named, "+" + amount.replace(" ", "")] if named.lower() in PROVIDER_NAMES else None
    left = _LEFT.match(said)
    if left is None or (left["provider"] or left["provider_after"]).lower() not in PROVIDER_NAMES:
        return None
    return [left["provider"] or left["provider_after"], *(left["amount"] or left["amount_first"]).split()]
