"""A message that starts with a tracked instance's name, as people say what happened to it (`训练机 关机了`,
`训练机已开机`, `box1 is off`, `训练机 用完了`): each was an unknown sub-command naming the instance. Off and on are
`power NAME off|on` (the owner's or an admin's, as that is); done with it is asked back with the release to send,
since a release stops its bill and is said in the channel: a word misread must not do it. A kept storage item said
deleted or done with (`数据盘 删了`, `ckpt is deleted`) is asked back the same way, with `delete-storage` to send;
whose an item is or what it costs (`训练机是谁的`, `who owns box1`, `训练机 多少钱`, `数据盘 一个月多少钱`) is its line
of `list`; how it is (`训练机 停了吗`, `is box1 on?`) is `power NAME`; asked to be released or deleted with the name
inside (`把训练机释放掉`) is asked back as said after it. This reads what is said (`reading`); bot/app/item_said.py does
it, and bot/app/item_names.py finds the names."""

from __future__ import annotations

import re

from bot.app import stop_words
from bot.app.item_names import first_named, named_first, rest_of, tracked_names
from bot.app.item_settings import billed_as, machine_set, provider_set, whose_set
from bot.app.item_spent import PERIOD_WORDS
from bot.state.rentals import Rentals
from bot.state.store import Store
from rules.days import DAY_WORDS
from rules.patterns import lazy

_OFF = lazy(
    r"(?:已经?|刚刚?)?(?:关机|关了|关掉了|停机|停了|停掉了)(?:了|啦)?"
    r"|(?:is |was |has been |got |went )?(?:off|stopped|shut down|turned off|switched off|powered off|shut off)"
)
_ON = lazy(
    r"(?:已经?|刚刚?)?(?:开机|开了|启动了?|重启了?)(?:了|啦)?"
    r"|(?:is |was |has been |got |went )?(?:on|started|back on|turned on|switched on|powered on|back up|restarted)"
)
_DONE = lazy(
    r"(?:已经?|可以|能)?(?:用完|不用|跑完|结束|释放|退租|退掉)(?:了|啦|吧|吗|么)?(?:[,，]?可以释放了?吗?)?[?？]?"
    # done, and asked to be switched off or let go (训练机 跑完了，关掉吧): the release to send, as done says it
    r"|(?:已经?)?(?:用完|跑完|结束)(?:了|啦)?\s*[,，]?\s*(?:帮我|请)?(?:关掉|关了|关机|停掉|释放|退掉)(?:吧|它|掉)*[。.!！]?"
    r"|(?:is |was )?(?:done|finished|not needed|released|terminated)"
)


_WHOSE = lazy(
    r"(?:现在|目前)?(?:是)?谁的(?:呢|啊)?[?？]?|谁在用|谁租的|谁负责(?:的)?[?？]?|(?:的)?负责人(?:是谁)?[?？]?"
    r"|(?:'s )?owner|who owns it"
)
# how it is, asked (训练机 停了吗, 还在跑吗, is box1 on?): `power NAME`'s answer
_STATE = lazy(
    r"(?:现在|最近|这几天)?(?:停了|关了|关机了|开着|开机了|还开着|在跑|还在跑|在运行|还在运行|开着没|关了没)(?:吗|么|没有?)[?？]?"
    r"|(?:这个月|本月)?(?:用了|开了|跑了|开机)(?:多久|多长时间|多少小时|几个小时|几天|多少天)(?:了)?[?？]?"
    r"|(?:现在)?(?:什么|啥)状态[?？]?|(?:的)?状态|(?:is it |still )?(?:on|off|running)\?|status\??"
    # 训练机什么时候开始的, 训练机是哪天开始租的, 训练机几号起租的
    r"|(?:是)?(?:什么时候|啥时候|几点|哪天|几号)(?:开始(?:租|跑|用|计费)?|开机|开|启动|起租|租)的?(?:呢|啊)?[?？]?"
)
# kept storage attached to a box, or taken off it (数据盘挂到训练机上, 数据盘 挂载到 训练机, ckpt attached to box1;
# 数据盘 卸载了, 数据盘不挂了, ckpt detached): the box it is on, as `track storage … instance=` gives it
_ATTACH = lazy(
    r"^(?:已经?|现在)?(?:挂到|挂载到|挂在|挂上|挂载在|接到|移到|换到|attach(?:ed)?\s+to|mounted\s+on|is\s+on)\s*"
    r"(?P<box>[^\s上了]+?)\s*(?:上面|上|上了|了)?[。.!！]?$",
    re.IGNORECASE,
)
_DETACH = lazy(r"^(?:已经?)?(?:卸载了?|取消挂载了?|不挂了|没挂了|拔下来了|detached|unmounted)[。.!！]?$", re.IGNORECASE)
# when its billing period ends (训练机什么时候到期, 训练机 几号续费, 训练机的到期时间): bot/app/item_due.py
_DUE = lazy(
    r"(?:是)?(?:什么时候|啥时候|哪天|几号|何时)(?:到期|续费|结束计费|扣费|扣下个月的钱)(?:呢|啊|了)?[?？]?"
    r"|(?:的)?(?:到期时间|到期日|续费时间|下次扣费)(?:是)?(?:什么时候|哪天|几号)?[?？]?"
    r"|(?:还有)?(?:几天|多久)(?:到期|续费)[?？]?",
)
# how big a kept disk is (数据盘多大, 数据盘容量是多少): its line of the list, which says its size
_SIZE = lazy(
    r"(?:有)?多大(?:了|呢|啊)?[?？]?|(?:的)?(?:容量|大小)(?:是|有)?多少(?:g|gb|t)?[?？]?|size\??", re.IGNORECASE
)
# where kept storage is, asked (数据盘 挂在哪台机器上, 数据盘 在哪): its line of the list, which names its instance
_KEPT_WHERE = lazy(
    r"(?:挂|挂载)?(?:在)?(?:哪台|哪个|哪)(?:机器|实例|服务器)?(?:上)?(?:呢|啊)?[?？]?|还在吗[?？]?"
    r"|(?:is )?still (?:there|kept|here)\??",
    re.IGNORECASE,
)
# whether kept storage is still wanted, asked (数据盘还要吗, 数据盘 还要用吗, is disk1 still needed?): its line of the
# list (what it costs, what it is on), for whoever decides; it was not read
_STILL_WANTED = lazy(
    r"(?:是否|是不是)?还(?:要|需要|有用|在用|用)(?:用)?(?:吗|么|不|没)?[?？]?"
    r"|(?:is it |is this )?still (?:needed|wanted|used)\??",
    re.IGNORECASE,
)
# whether it was released, asked (训练机 释放了吗, is box1 released?): its line of the list, which says so
_RELEASED_ASKED = lazy(
    r"(?:已经?|是不是|是否)?(?:被)?(?:释放|退租|退掉|删掉|删除)(?:了)?(?:吗|么|没|没有|了没|了没有)[?？]?"
    r"|(?:is it |was it |has it been )(?:released|gone)\??|(?:released|gone)\?",  # `released` alone: the button's
    re.IGNORECASE,
)
# what it costs, asked (训练机 多少钱, 花了多少, 数据盘 一个月多少钱, how much is box1): its line of `list`
_COST = lazy(
    r"(?:现在|目前|到现在|到目前为止|至今)?(?:一共|总共)?(?:的)?(?:多少钱|价格|费用|花费|花了多少钱?|用了多少钱|"
    r"(?:一|每)(?:个月|月|天|小时|周)(?:要)?多少钱|多少钱一(?:个月|天|小时|周)|这个月花了多少钱?|本月花了多少钱?)"
    r"(?:了|啦|呢|啊|呀)?[?？]?"  # 训练机 花了多少钱了 (it was read as a period named 训练机)
    r"|(?:how much(?: is it| does it cost| did it cost)?|costs?(?: how much)?|price|spent)"  # box1 costs how much
    r"(?:\s+(?:per|a|an|each)\s+(?:hour|day|week|month))?\??"
)
# what it cost over a period, asked (训练机 昨天花了多少, 训练机 上个月花了多少钱, 训练机 这周的费用): that period's
_COST_THEN = lazy(
    rf"^(?P<when>{PERIOD_WORDS})\s*(?:一共|总共)?(?:花了|用了|花费了?|消耗了?|烧了)?(?:多少钱?|多少|几块钱)(?:呢|啊)?[?？]?$"
    rf"|^(?P<when_of>{PERIOD_WORDS})\s*的?(?:花费|费用|账单|开销|成本)(?:是多少|多少)?[?？]?$",
    re.IGNORECASE,
)
# how long it sat idle, asked (训练机 闲置了多久, 训练机 这周闲了多久, 训练机 闲置了多少小时): the report's idle hours
_IDLE_HOW_LONG = lazy(
    rf"^(?P<when>{PERIOD_WORDS})?\s*(?:一共|总共)?(?:闲置|闲|空闲|空转|空跑)(?:了|着)?"
    r"(?:多久|多长时间|多少小时|几个小时|多少个小时|几天|多少天)(?:了)?(?:呢|啊)?[?？]?$",
    re.IGNORECASE,
)
# how much it is used, asked (训练机的显卡利用率怎么样, 训练机 利用率多少, 训练机 最近忙不忙): it was not read
_USE_ASKED = lazy(
    r"(?:的)?(?:显卡|gpu|卡)?(?:的)?(?:利用率|使用率|占用率|负载)(?:怎么样|如何|多少|高吗|高不高|咋样)?(?:呢|啊)?[?？]?"
    r"|(?:最近|这几天|这周)?(?:忙不忙|闲不闲|用得多吗|用的多吗|用得怎么样)(?:呢|啊)?[?？]?"
    r"|(?:gpu\s+)?(?:utili[sz]ation|usage|load)\??|how busy is it\??",  # box1 utilization
    re.IGNORECASE,
)
_COST_THEN_EN = lazy(
    r"^(?:how much|what) (?:has|did|does|is) (?P<name>\S+?) (?:cost|spen[dt]|billed)(?: us)? "
    rf"(?P<when>{PERIOD_WORDS})\??$",
    re.IGNORECASE,
)
# asked to be released or deleted, the name inside (把训练机释放掉, 帮我把数据盘删了): asked back as said after it
_ASKED_TO = lazy(
    r"^(?:帮我|请|麻烦)?\s*把\s*(?P<name>.+?)\s*(?P<verb>释放|退租|退掉|删掉|删除|删)(?:掉|了|吧|一下)*[。.!！]?$"
)
# a price changed in words (把训练机的价格改成每小时50元, change box1 price to $2/h): `billing NAME price=…`
_PRICE_SET = (
    lazy(
        r"^(?:帮我|请)?\s*把?\s*(?P<name>.+?)\s*的?(?:价格|单价|租金|价钱)\s*(?:改成|改为|调成|调到|设为|设成|变成)\s*(?P<price>.+)$"
    ),
    lazy(r"^(?:please\s+)?(?:change|set|update)\s+(?P<name>\S+?)(?:'s)?\s+price\s+to\s+(?P<price>.+)$", re.I),
)
# still needed, said (训练机 先别提醒了, 训练机明天还要用, box1 is still needed): the digest's Still needed, a day;
# said of the week (训练机 这周都还要用, box1 still needed this week): its week
_SNOOZE = lazy(
    r"(?:先|暂时)?(?:别|不要|不用)(?:再)?提醒(?:我|了|它)*|(?:明天|这两天|最近)?(?:还要用|还在用|还需要|还得用)(?:的|呢)?"
    r"|先留着|保留|留着|(?:is )?still (?:needed|in use)(?: \(1 day\))?|keep|don't remind(?: me| us)?(?: about it)?"
)
_SNOOZE_WEEK = lazy(
    r"(?:这周|本周|这个星期|一周)(?:都|内)?(?:还要用|还在用|还需要|别提醒了?|不要提醒了?)|(?:1|一)\s*周后再提醒"
    r"|snooze (?:1|one|a) week"
    r"|(?:is )?still (?:needed|in use) (?:this|for a) week"
)
# still needed until a day (训练机 周五之前还要用, 训练机 用到下周一, box1 is still needed until friday): Still
# needed until that day's end
_SNOOZE_UNTIL = (
    lazy(
        rf"^(?P<day>{DAY_WORDS})\s*(?:之前|以前|前|为止)?(?:都|也)?(?:还要用|还在用|还需要|还得用|要用|在用|用|别提醒了?|不要提醒了?)"
        r"(?:的|呢|哈)?$"
    ),
    lazy(rf"^(?:还要|还得|要|会)?用到\s*(?P<day>{DAY_WORDS})(?:为止|结束)?(?:的|呢|哈)?$"),
    lazy(rf"^(?:is )?(?:still )?(?:needed|in use|used)\s+(?:until|till|through|thru)\s+(?P<day>{DAY_WORDS})$", re.I),
)
# asked to be switched off after its name (训练机 关掉吧, 训练机 关一下): what the bot can do about it said
_STOP_SAID = lazy(
    # after what it does, if said (训练机闲着呢，帮我关掉, 训练机空着，能停掉吗)
    r"(?:(?:闲着|空着|闲置|没在用|没人用|不用了|跑完了|空闲)(?:呢|了|啊)?\s*[,，]?\s*)?"
    r"(?:(?:帮我|请|麻烦)?(?:关掉|关一下|关机|停掉|停机|停一下)(?:吧|它|一下)*[。.!！]?|(?:关了|停了)吧[。.!！]?"
    r"|(?:能|可以)(?:帮我)?(?:关掉|停掉|关机|停机|关了|停了)(?:它)?(?:吗|么|不)[?？]?)"
    # box1 is idle, can you stop it: the same, asked in English after what it does
    r"|(?:(?:is|'s) (?:idle|done|finished)[,.]?\s*)?(?:can|could|would|will) you (?:please )?"
    r"(?:stop|shut down|turn off|switch off)(?: it| it down| it off)?(?: please)?\??"
    # box1 is idle, stop it (please): told, not asked
    r"|(?:(?:is|'s) (?:idle|done|finished|not (?:used|in use)|unused)[,.]?\s*(?:so |and )?)?(?:please )?"
    r"(?:stop|shut down|shut|turn off|switch off|kill)(?: it| it down| it off)?(?: please)?[.!]?",
    re.IGNORECASE,
)
# asked to be switched off (关掉训练机, 把训练机关了, stop box1, shut down box1): what the bot can do about it said
_STOP_ASKED = (
    lazy(r"^(?:帮我|请|麻烦)?\s*(?:关掉|停掉|关闭|停止|关一下|停一下)\s*(?P<name>\S+?)[。.!！]?$"),
    lazy(r"^(?:帮我|请|麻烦)?\s*把\s*(?P<name>.+?)\s*(?:关掉|停掉|关了|停了|关机|停机|关闭)(?:吧|一下)?[。.!！]?$"),
    lazy(  # stop box1 at 11pm: a stop at a time asked, as one now is (the bot switches nothing off)
        r"^(?:please\s+)?(?:stop|shut down|shutdown|turn off|switch off)\s+(?P<name>\S+?)"
        r"(?:\s+(?:at|by|tonight|tomorrow|later|in|after)\b.*)?[.!]?$",
        re.I,
    ),
)
_HANDED = lazy(
    r"^(?:帮我|请|麻烦)?\s*把\s*(?P<name>.+?)\s*(?:转给|交给|移交给|转交给)\s*(?P<value>\S+?)(?:负责|吧)?[。.!！]?$"
    r"|^(?:please\s+)?(?:give|hand|transfer|assign|reassign)\s+(?P<name_en>\S+?)\s+(?:over\s+)?to\s+(?P<value_en>\S+?)[.!]?$",
    re.IGNORECASE,
)
# a digest button's label typed before the item's name, as the card shows it (已释放 · 训练机, 还在用（1 天） 训练机,
# Stopped box1): read as said after the name
_LABEL_FIRST = lazy(
    r"^(?P<label>已释放|已经释放了?|还在用|还要用|(?:1|一)\s*周后再提醒|已关机|已开机|已删除|保留"
    r"|released|still needed|snooze 1 week|stopped|started|deleted|keep)"
    r"\s*(?:[（(]\s*(?:1|一)\s*(?:天|day)\s*[)）])?\s*[·:：]?\s*(?P<name>\S+)$",
    re.IGNORECASE,
)
# a setting of an item asked with 把 (把训练机的项目改成 cv, 把训练机的负责人改为 @李雷, 把训练机的卡数改成4)
_SET_OF = lazy(
    r"^(?:帮我|请|麻烦)?\s*把\s*(?P<name>[^\s的]+?)\s*(?P<rest>的\s*\S+?\s*(?:改成|改为|换成|设为|设成)\s*\S.*)$"
)
_WHO_OWNS = lazy(
    r"^(?:who(?:'s| is)? (?:owns|using|renting|the owner of|paying for)|who pays for|谁(?:在用|租的|负责))\s*"
    r"(?P<name>.+?)\??$",
    re.I,
)
_DELETED = lazy(
    r"(?:已经?)?(?:删了|删掉|删除|清掉|清理|不用|不要)(?:了|啦|吧)?|(?:is |was )?(?:deleted|gone|not needed|done)"
)


# the name inside an English question: `is box1 still running?`, `how much has box1 cost`, `what's box1 costing us`
_ASKED_OF = (
    (lazy(r"^is\s+(?P<name>\S+?)\s+(?:still\s+)?(?:running|on|off|up|stopped|idle)\??$", re.I), "state"),
    (lazy(r"^how long (?:has|have)\s+(?P<name>\S+?)\s+been\s+(?:running|on|up|off)\??$", re.I), "state"),
    (lazy(r"^how long (?:has|have|was)\s+(?P<name>\S+?)\s+(?:been\s+)?idle\??$", re.I), "idle"),
    # how much it is used (how busy is box1?): its last seven days' busy and idle hours, as 训练机 利用率怎么样
    (
        lazy(r"^how (?:busy|much used|utili[sz]ed) is\s+(?P<name>\S+?)(?: lately| these days)?\??$", re.I),
        "idle 最近7天",
    ),
    # when its stop comes (when will box1 stop?): the stop asked for it, as 训练机 什么时候停
    (
        lazy(r"^when (?:will|does|is)\s+(?P<name>\S+?)\s+(?:stop|shut down|be stopped|going to stop)\??$", re.I),
        "stop-when",
    ),
    # a kept disk asked after (is disk1 still there?): its line of the list, as 数据盘 还在吗
    (lazy(r"^(?:how big is|what size is|what(?:'s| is) the size of)\s+(?P<name>\S+?)\??$", re.I), "whose"),
    (lazy(r"^is\s+(?P<name>\S+?)\s+still\s+(?:there|kept|here|around|alive)\??$", re.I), "whose"),
    # when its period ends (when does box1 renew?, when is box1 due): bot/app/item_due.py
    (lazy(r"^when (?:does|is|will)\s+(?P<name>\S+?)\s+(?:renew|be renewed|due|expire|billed next)\??$", re.I), "due"),
    (lazy(r"^(?:please\s+)?(?:delete|remove|terminate|drop)\s+(?P<name>\S+?)[.!]?$", re.I), "gone"),
    (
        lazy(r"^(?:帮我|请|麻烦)?\s*(?:删除|删掉|删了|干掉|去掉|退租|退掉)\s*(?P<name>\S+?)(?:吧|一下)?[。.!！]?$"),
        "gone",
    ),
    (
        lazy(
            r"^(?:how much (?:has|did|does|is)|what(?:'s| is| does| did| has))\s+(?P<name>\S+?)"
            r"(?:\s+(?:cost(?:ing)?|spent|spend|billed)(?:\s+us)?)?"  # how much is box1 per day: no verb
            r"(?:\s+(?:so far|this month|last month|yesterday|today|this week|last week"
            r"|(?:per|a|an|each) (?:hour|day|week|month)))?\??$",
            re.I,
        ),
        "whose",
    ),
)


# on or off at a time said with it (训练机 昨晚11点关的, 训练机 关机 昨天23:00, box1 went off 2h ago): power then
_STATE_THEN = (
    (lazy(r"^(?P<at>.+?)\s*(?:就)?(?:关机了?|关的|关了|关掉的|关掉了|停机了?|停的|停了)$"), "off"),
    (lazy(r"^(?P<at>.+?)\s*(?:就)?(?:开机了?|开的|开了|启动的|启动了)$"), "on"),
    # started running then (训练机 昨天9点开始跑的, 训练机 从昨晚开始跑): on from then, as its `power` takes it
    # began then (训练机 昨天9点开始跑的, 训练机 其实是从昨晚开始的): on from then, or its start moved where that is
    # before it (it was tracked later: bot/app/item_started.py)
    (  # said as a correction (训练机 其实是从昨晚8点开始的): its start, later or earlier
        lazy(
            r"^(?:其实|实际上|实际)(?:是)?(?:从|自)?\s*(?P<at>.+?)\s*(?:就)?(?:开始跑|开始训练|开始用|开跑|开始)(?:的|了)?$"
        ),
        "started",
    ),
    (lazy(r"^(?:从|自)?\s*(?P<at>.+?)\s*(?:就)?(?:开始跑|开始训练|开始用|开跑|开始)(?:的|了)?$"), "began"),
    (
        lazy(
            r"^(?:关机|关了|停机|(?:went |was |is |got |has been )?(?:off|stopped|shut down|turned off|switched off"
            r"|powered off|shut off))\s+(?:at=|at |since )?(?P<at>.+)$",
            re.I,
        ),
        "off",
    ),
    (
        lazy(
            r"^(?:开机|开了|启动|(?:went |was |is |got |has been )?(?:on|started|turned on|switched on|powered on"
            r"|restarted))\s+(?:at=|at |since )?(?P<at>.+)$",
            re.I,
        ),
        "on",
    ),
    # running since then (box1 has been running since 9am, box1 is up since yesterday 9:00): on from then
    (lazy(r"^(?:has been |is |was |'s been )?(?:running|up|on)\s+since\s+(?P<at>.+)$", re.I), "on"),
)


_RENAMED = lazy(
    r"^(?:帮我|请|麻烦)?\s*(?:把)?\s*(?P<name>\S+?)\s*"  # 改成 alone is its price or basis (训练机改成包月)
    r"(?:(?:的)?(?:名字|名称)\s*(?:改成|改为|改叫|换成)|改名为|改名成|改名叫|改名|重命名为|重命名成|重命名)"
    r"\s*(?P<new>\S+?)(?:吧|了)?[。.!！]?$"
    r"|^(?:please\s+)?(?:call|name)\s+(?P<name_en>\S+?)\s+(?P<new_en>\S+?)(?:\s+from now on)?[.!]?$",
    re.IGNORECASE,
)


def _asked_then(rest: str) -> str | None:
    """What it cost over a period (`昨天花了多少`: "spent 昨天"), or how long it sat idle (`这周闲置了多久`:
    "idle 这周", this month's where none is said), asked; a stop asked then or called off (`明天早上9点关`: "stop-at
    明天早上9点", `不用关了`: "call-off"; bot/app/stop_words.py); None otherwise."""
    if (stop := stop_words.after_name(rest)) is not None:
        return stop
    if _USE_ASKED.fullmatch(rest):  # 训练机的显卡利用率怎么样, 训练机 忙不忙: its last seven days' busy and idle hours
        return "idle 最近7天"
    if (asked := _COST_THEN.match(rest)) is not None:
        return f"spent {asked['when'] or asked['when_of']}"
    if (idle := _IDLE_HOW_LONG.match(rest)) is not None:
        return f"idle {idle['when'] or '本月'}"
    return None


def _state_then(rest: str) -> tuple[str, str] | None:
    """On or off and the time said with it, as `power` takes them; None where the rest says no such thing."""
    for pattern, state in _STATE_THEN:
        said = pattern.match(rest)
        if said is not None and said["at"].strip():
            return state, said["at"].strip()
    return None


def reading(store: Store, team: str, text: str) -> tuple[str, str] | None:
    """The running instance `text` names first and what it says of it ("off", "on", "done", or asks "whose"), or the
    kept storage it names and that it is deleted ("deleted"); None otherwise."""
    said = text.strip()
    if (label := _LABEL_FIRST.match(said)) is not None:  # 已释放 训练机: a digest button's label typed before the name
        said = text = f"{label['name']} {label['label']}"
    asked = _WHO_OWNS.match(said)
    if asked is not None and first_named(asked["name"], tracked_names(store, team)) == asked["name"]:
        return asked["name"], "whose"  # who owns box1, who owns disk1
    cost_then = _COST_THEN_EN.match(said)  # how much did box1 cost yesterday: that day's, not this month's line
    if cost_then is not None and first_named(cost_then["name"], tracked_names(store, team)) == cost_then["name"]:
        return cost_then["name"], f"spent {cost_then['when']}"
    for pattern, what in _ASKED_OF:
        of = pattern.match(said)
        if of is not None and first_named(of["name"], tracked_names(store, team)) == of["name"]:
            running = named_first(store, team, of["name"]) == of["name"]
            if what == "gone":  # delete box1: its release asked back, or a kept storage item's delete
                return of["name"], "done" if running else "deleted"
            return of["name"], "whose" if what == "state" and not running else what  # is disk1 idle?: its line
    for pattern in _PRICE_SET:  # 把训练机的价格改成每小时50元: its price from now on, as `billing NAME price=` sets it
        priced = pattern.match(said)
        if priced is not None and named_first(store, team, priced["name"]) == priced["name"]:
            return priced["name"], f"set price={priced['price'].strip()}"
    handed = _HANDED.match(said)  # 把训练机转给 @李雷, give box1 to @li: its owner, as `billing NAME owner=…` sets it
    named, to = (handed["name"] or handed["name_en"], handed["value"] or handed["value_en"]) if handed else ("", "")
    if handed is not None and named_first(store, team, named) == named:
        return named, f"set owner={to}"
    for pattern in _STOP_ASKED:  # 关掉训练机: switching it off asked of the bot, which says what it can do
        if (stop := pattern.match(said)) is not None and first_named(stop["name"], tracked_names(store, team)):
            return stop["name"], "stop"
    renamed = _RENAMED.match(said)  # 训练机 改名为 训练机A, 把训练机改名为训练机A, call box1 trainer: `rename`
    named, new = (renamed["name"] or renamed["name_en"], renamed["new"] or renamed["new_en"]) if renamed else ("", "")
    if renamed is not None and first_named(named, tracked_names(store, team)) == named:
        return named, f"rename {new}"
    text = _with_ba(said) or text
    name = named_first(store, team, text)
    if name is not None:
        rest = rest_of(text, name)
        readings = (
            *((_OFF, "off"), (_ON, "on"), (_RELEASED_ASKED, "whose"), (_DONE, "done"), (_WHOSE, "whose")),
            (_DUE, "due"),
            *((_STATE, "state"), (_COST, "whose")),
            (_STOP_SAID, "stop"),
            *((_SNOOZE_WEEK, "snooze-week"), (_SNOOZE, "snooze")),
        )
        found = next(((name, what) for pattern, what in readings if pattern.fullmatch(rest)), None)
        if found is None and (over := _asked_then(rest)) is not None:  # 训练机 昨天花了多少, 这周闲置了多久
            return name, over
        until = next((m for pattern in _SNOOZE_UNTIL if (m := pattern.match(rest)) is not None), None)
        if found is None and until is not None:
            return name, f"snooze-until {until['day']}"
        if found is None and (whose := whose_set(text, name)) is not None:
            return name, f"set {_as_project(store, team, whose)}"
        if found is None and (basis := billed_as(text, name)) is not None:
            return name, "bill " + " ".join(basis)
        if found is None and (fixed := machine_set(text, name)) is not None:
            return name, "bill " + " ".join(fixed)
        if found is None and (account := provider_set(text, name)) is not None:
            return name, "bill " + account
        then = _state_then(rest.replace("at=", "")) if found is None else None
        return (name, f"{then[0]} {then[1]}") if then is not None else found
    if (gone := _released_asked(store, team, text)) is not None:
        return gone, "whose"
    kept = first_named(text, [s.name for s in Rentals(store).storage(team, kept_only=True)])
    if kept is None:
        return None
    rest = rest_of(text, kept)
    if _DELETED.fullmatch(rest):
        return kept, "deleted"
    if any(p.fullmatch(rest) for p in (_COST, _WHOSE, _STATE, _RELEASED_ASKED, _KEPT_WHERE, _SIZE, _STILL_WANTED)):
        return kept, "whose"  # 数据盘 还在吗, 数据盘 挂在哪台机器上, 数据盘多大, 数据盘还要吗: its line of the list
    if (attached := _ATTACH.match(rest)) is not None:  # 数据盘挂到训练机上: the box it is on
        return kept, f"attach {attached['box']}"
    if _DETACH.match(rest):
        return kept, "attach -"
    if _SNOOZE.fullmatch(rest) or _SNOOZE_WEEK.fullmatch(rest):  # 数据盘 先别提醒了: kept, as its Keep button keeps it
        return kept, "keep"
    whose = whose_set(text, kept)  # 数据盘 项目改成 cv: whose storage it is
    return (kept, f"set-kept {_as_project(store, team, whose)}") if whose is not None else None


def _with_ba(said: str) -> str | None:
    """What is asked with 把 said as it is after the name: 把训练机释放掉 as 训练机 释放了, 把训练机的项目改成 cv as
    训练机的项目改成 cv; None where nothing is."""
    if (told := _ASKED_TO.match(said)) is not None:
        return f"{told['name']} {'删了' if told['verb'].startswith('删') else '释放'}"
    if (set_of := _SET_OF.match(said)) is not None:
        return f"{set_of['name']} {set_of['rest']}"
    return None


def _as_project(store: Store, team: str, whose: str) -> str:
    """`owner=llm` read from `box1 belongs to llm` as `project=llm` where llm is no one named with @ but one of the
    team's projects (its items' or its budgets'); `whose` otherwise. The owner was set to a user called llm."""
    key, _, value = whose.partition("=")
    if key != "owner" or value.startswith(("@", "<")):
        return whose
    from bot.state.budgets import Budgets

    projects = set(Rentals(store).projects(team)) | {project for project, _ in Budgets(store).of(team) if project}
    spelt = next((p for p in sorted(projects) if p.lower() == value.lower()), None)
    return f"project={spelt}" if spelt is not None else whose


_ASKED_OF_RELEASED = (_COST, _WHOSE, _STATE, _RELEASED_ASKED)
# what is said of an item after its name, asked or told (bot/app/item_unknown.py reads a name none has by them)
ASKED_OR_SAID = (_OFF, _ON, _DONE, _DELETED, _WHOSE, _STATE, _COST, _KEPT_WHERE, _RELEASED_ASKED, _STOP_SAID, _DUE)
# and the questions that hold the name inside (who owns box1, is box1 still running?, delete ckpt)


def named_inside(text: str) -> str | None:
    """The name an English question (or a delete asked) holds inside, whether or not anything goes by it."""
    for pattern in (_WHO_OWNS, _COST_THEN_EN, *(p for p, _ in _ASKED_OF)):
        if (asked := pattern.match(text.strip())) is not None:
            return str(asked["name"])
    return None


def _released_asked(store: Store, team: str, text: str) -> str | None:
    """The released instance a question names first (训练机花了多少钱, 训练机 释放了吗, 训练机 还在跑吗), whose
    answer is its line of the list, which says it is released; None otherwise. Only a question reads them: every
    instance ever tracked."""
    if not any(pattern.search(text) for pattern in _ASKED_OF_RELEASED):
        return None
    gone = first_named(text, [i.name for i in Rentals(store).instances(team) if i.released_at is not None])
    if gone is not None and any(pattern.fullmatch(rest_of(text, gone)) for pattern in _ASKED_OF_RELEASED):
        return gone
    return None
