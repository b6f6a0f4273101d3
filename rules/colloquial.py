"""Answers as people say them, for the parsers in rules/parsing.py: the words around a figure ("每天跑",
"peak around", "要在…以内"), what an answer means without a figure ("快满了", "挂了要从头跑", "只是数据并行"),
and answers that carry two facts ("每天10小时，持续两周"; a memory figure and its card are read in
rules/memory_amounts.py).

Each reader takes normalised text with numbers already written as digits (rules/spoken.py) and returns
what it understood, or None for "not this form" (the parser then tries its own forms).
"""

from __future__ import annotations

import re

from rules.patterns import lazy

NUM = r"\d+(?:\.\d+)?"

# --- any question -------------------------------------------------------------------------------

_UNSURE = lazy(  # with what people say around it: "no idea honestly" was read as a "no"
    r"^(?:honestly,?\s*|说实话,?\s*|老实说,?\s*)?"
    r"(?:not sure|unsure|no idea|no clue|not a clue|i don'?t know|don'?t know|i have no idea|dunno|idk|depends"
    r"|it depends|hard to say|不确定|不知道|不清楚|说不好|说不准|看情况|不好说|没概念|也不知道|还不知道"
    # maybe, partly: neither answer ("yes and no" was a yes, "有可能" a yes); "有时候" is a frequency's (irregular)
    r"|maybe|perhaps|possibly|partly|kind of|sort of|yes and no|也许|或许|有可能|可能吧|可能|不一定|说不定)"
    r"(?:,?\s*(?:honestly|really|tbh|yet|at all|right now|atm|at the moment|to be honest|for now|说实话|呢|啊))?$"
)


def unsure(norm: str) -> bool:
    """ "not sure", "不知道": not an answer the rules can use; the reply asks for the nearest one."""
    return _UNSURE.match(norm) is not None


# --- duration -----------------------------------------------------------------------------------

_OVERNIGHT = lazy(
    r"^(?:跑个?|要|需要|大概)?\s*(?:[一1]晚上?|[一1]夜|[一1]个?通宵|通宵|overnight|all night|over ?night)(?:[- ]?ish)?$"
)
# a morning's or an afternoon's work: about 4 hours, wholly below the long-run line whatever the morning is
_HALF_DAY = lazy(r"^(?:[一1]个?)?(?:上午|下午|早上)$|^小半天$")  # 小半天: less than half a day, a few hours
_DURATION_LEAD = lazy(  # 跑个两三天, 得跑上十来个小时: the verb and its measure word
    r"^(?:很快[,，]?\s*)?(?:(?:要|得|会|需要)?跑(?:个|上)?|需要|要|takes?|it takes|(?:it )?runs? for|(?:it )?lasts?"
    r"|each run takes)?\s*"
)
_QUARTERS = lazy(r"(\d)\s*刻钟")
_DAYS_AND_NIGHTS = lazy(r"(\d+)\s*天\s*(?:\d+|[一两二三四五六七八九])\s*夜")
_FEW_MINUTES = lazy(r"^几分钟(?:就好|就够|而已)?$")
_WHOLE = lazy(r"(?:一?整|whole |full |entire )(?=\s*(?:\d*\s*)?(?:天|day|周|week|个?小时|hour))|整(?=天|周)")
_TRAILING_HALF = lazy(rf"({NUM})\s*(个)?\s*(小时|钟头|天|周|星期)半")
_UNIT_AND_A_HALF = lazy(rf"(?:({NUM})|\ban?)\s+(hour|day|week)s?\s+and a half\b")
_HOURS_MINUTES = lazy(rf"^({NUM})\s*h\s*(\d{{1,2}})$")


_MOST_OF_A_DAY = lazy(
    r"^(?:跑|要|需要|大概)?\s*(?:大半天|一整个白天|白天|all day|most of (?:the|a) day|the whole day long)$"
)
_IRREGULAR = lazy(
    r"^(?:不定期|不固定|随时|看情况|按需|有需要就跑|有时候?|时不时|不时|on demand|irregularly|whenever|it varies|varies"
    r"|sometimes|from time to time)$"
)


def most_of_a_day(norm: str) -> bool:
    """ "大半天", "all day": a working day or a whole one, either side of the long-run line; asked, not guessed."""
    return _MOST_OF_A_DAY.match(norm) is not None


def irregular(norm: str) -> bool:
    """ "不定期", "on demand": how often has no figure; the reply asks for one (about how many a week?)."""
    return _IRREGULAR.match(norm) is not None


def overnight(norm: str) -> bool:
    """ "跑一晚上", "overnight": anywhere from 6 to 14 hours; the reply suggests 10 h."""
    return _OVERNIGHT.match(norm) is not None


_WEEKEND = lazy(r"^(?:[一1]个|整个)?周末$")  # 跑一个周末: Saturday and Sunday
_EITHER = lazy(r"(?<=\S)\s*(?:也可能|或者|或是|还是|要么|也许)\s*(?=\d)")  # 1天也可能3天: a range, its upper end


def duration_words(norm: str) -> str:
    """The duration with its words made plain: "一整天" -> 1天, "1天半" -> 1.5天, "a day and a half" -> 1.5 day,
    "1h30" -> 1h30m, a leading "跑"/"takes" dropped, "一个周末" two days, "1天也可能3天" 1天到3天."""
    norm = _DURATION_LEAD.sub("", norm)
    if _WEEKEND.match(norm):
        return "2天"
    norm = _EITHER.sub("到", norm).replace("也 ", "到").replace("也到", "到")
    norm = _QUARTERS.sub(lambda m: f"{int(m[1]) * 15}min", norm)  # 一刻钟: 15 min, 三刻钟 45
    norm = _DAYS_AND_NIGHTS.sub(r"\1天", norm)  # 一天一夜: a day; 三天两夜: three days
    norm = _FEW_MINUTES.sub("3min", norm)  # 几分钟: a few minutes, as "a few" reads
    if _HALF_DAY.match(norm):  # "一上午": about 4 h (the reply says what it read)
        return "4h"
    norm = _WHOLE.sub("", norm)
    norm = _TRAILING_HALF.sub(lambda m: f"{float(m.group(1)) + 0.5:g}{m.group(2) or ''}{m.group(3)}", norm)
    norm = _UNIT_AND_A_HALF.sub(lambda m: f"{float(m.group(1) or 1) + 0.5:g} {m.group(2)}", norm)
    return _HOURS_MINUTES.sub(r"\1h\2m", norm).strip()


# --- memory -------------------------------------------------------------------------------------

_FULL = lazy(
    r"^(?:(?:快|几乎|差不多|基本)?(?:满了?|占满了?|用满了?|吃满了?"
    r"|爆了?|要爆了?|(?:可能|也许)?会爆|容易爆)|爆显存|会爆显存|(?:会|经常|老是|总是)?oom|out of memory"
    r"|不够用?|不太够|(?:挺|有点|有些|比较|很|非常|特别|太|蛮|相当)?(?:紧张?|吃紧)(?:的|了)?"  # 挺紧的, 有点紧
    r"|(?:almost|nearly|basically|practically)? ?(?:full|maxed out|at the limit|tight|very tight)"
    r"|the whole card|all of it|(?:it |we )?(?:ooms?|runs? out of memory)"
    r"|barely fits|just fits|close to (?:full|the limit)|刚好够用?|刚刚够用?|勉强够用?|勉强放得下|刚好放得下"
    r"|超过显存|超出显存|放不下|装不下|单卡放不下"
    r"|差(?:一)?点(?:就)?(?:满|爆|oom)了?|(?:2|多)张(?:卡)?才(?:放得下|装得下|够用?)"  # 差一点就满了, 两张卡才放得下
    r"|\S{0,16}?(?:跑|用|吃|占)满了?)$"  # "4090跑满了": whichever card it names, full
)
_ROOMY = lazy(
    r"^(?:很少|不多|一点点|(?:挺|很|完全|肯定|绝对)?够用?|足够|充足|很宽裕|宽裕|绰绰有余|远没满|没满|不紧张|不会满|不会爆|用不满|不会oom"
    r"|还有(?:很多|不少|挺多|大量|好多)?(?:余量|空间|富余)|余量(?:很|挺)?(?:大|足|充足|多)"  # 还有很多余量: roomy
    r"|plenty of (?:room|headroom|space)|lots of room|not much|a little|well under|nowhere near full"
    r"|不是问题|没问题|不成问题|不要紧|not a problem|no problem"  # "显存不是问题": the memory is no issue
    r"|fits easily|easily fits|way under|well within)$"
)


_GUESSED = lazy(r"^(?:显存)?\s*(?:应该|估计|感觉|好像|预计)\s*")
_MEMORY_WORD = lazy(r"^(?:显存|memory|vram)\s*(?:是|有点|比较|很|is)?\s*|\s*(?:了|啊|呢|的)$")
# who is said to fit, before what its memory does ("it fits easily", "it's almost full", "our model barely fits")
_SUBJECT = lazy(
    r"^(?:(?:i think|i guess|i believe|probably|honestly|pretty sure)[,\s]+)?"  # "I think it fits easily"
    r"(?:it is|it's|it|we are|we're|we|(?:the|our|my) (?:job|model|run|training))\s+"
)


# the card named before what its memory does ("80G的卡快满了", "A100快满了", "24G的卡不够用")
_CARD_NAMED = lazy(
    r"^(?:(?:\d+(?:\.\d+)?\s*gb?|[a-z]{1,6}\d{2,4}[a-z0-9-]*|\d{4}(?!\d))\s*)+(?:的)?\s*(?:卡|显卡)?\s*(?:的)?\s*"
)


_ON_THE_CARD = lazy(
    r"\s+(?:on|in|of|with(?:in)?)\s+(?:a|an|the|one|our|my)?\s*(?:\d+\s*gb?\s*)?(?:[a-z]{0,6}\d{2,4}[a-z0-9-]*\s*)?"
    r"(?:\d+\s*gb?\s*)?(?:card|gpu)?$"  # "we OOM on the A100 40G": the card's memory after its name too
)


def memory_full(norm: str) -> bool | None:
    """True for "快满了"/"almost full"/"显存不够"/"OOM了", False for "够用"/"显存够用"/"plenty of room"; None when
    neither."""
    norm = _SUBJECT.sub("", norm).strip() or norm  # "it fits easily on a 24GB card": what it does
    norm = _GUESSED.sub("", norm).strip() or norm  # "显存应该挺紧的", "应该够": what it does, guessed
    norm = _MEMORY_WORD.sub("", norm).strip()  # "显存不够", "显存够用了": the memory named, then what it does
    norm = _MEMORY_WORD.sub("", _CARD_NAMED.sub("", norm)).strip() or norm  # "80G的卡快满了", "A100快满了"
    norm = _ON_THE_CARD.sub("", norm).strip() or norm  # "fits easily on a 24GB card", "plenty of room on the A100"
    if _FULL.match(norm):
        return True
    if _ROOMY.match(norm):
        return False
    return None


# --- model parallelism --------------------------------------------------------------------------

_DATA_PARALLEL = lazy(
    r"(?:只是|只|就是|只用|只做|仅|纯)?\s*(?:数据并行|ddp|(?<![a-z])dp(?![a-z])|zero[- ]?[12](?!\d))"  # ZeRO-1/2
    r"|data[- ]parallel(?:ism)?(?: only)?|just ddp|only ddp"
)
_SINGLE_CARD = lazy(
    r"^(?:不用|不需要|不要)?\s*[,]?\s*(?:单卡|一张卡|1张卡|1卡|1 card|one card|a single card|single card|single gpu"
    r"|1 gpu|one gpu)\s*(?:就够了?|就行|足够|够了?|is enough|enough|will do|suffices|fits|is fine)?$"
    r"|^(?:不用|不需要|不要)多卡$"
)
# whether the model fits on one card says it outright: "模型放不下一张卡" read as "one card" (a no) before
_DOES_NOT_FIT = lazy(
    r"放不下|装不下|塞不下|doesn'?t fit|does not fit|won'?t fit|can'?t fit|too (?:big|large) for (?:one|a)"
    r"|(?:[2-9]|多)\s*张(?:卡)?才(?:放得下|装得下|能放下|够)"  # 两张卡才放得下: one card cannot hold it
    r"|(?:needs?|takes?) (?:[2-9]|two|several) (?:cards|gpus) to fit"
)
_FITS = lazy(r"放得下|装得下|能放下|fits (?:on|in(?:to)?) (?:one|a single)")
_SPLIT = lazy(r"(?:切分|拆分|切|拆)(?:模型|到多(?:张)?卡)|模型(?:要|得|需要)?(?:切分|拆分|切开|拆开|拆到多(?:张)?卡)")
_MODEL_PARALLEL = lazy(
    r"张量并行|流水线并行|模型并行|tensor[- ]parallel|pipeline(?:[- ]parallel)?"
    r"|model[- ]parallel|\btp\s*=?\s*\d|\bpp\s*=?\s*\d"
    r"|megatron|deepspeed zero-?3|zero-?3|fsdp"
)
_TP = lazy(r"\b(?:tp|pp)\s*=?\s*(\d{1,4})\b")


_NOT_MODEL_PARALLEL = lazy(
    r"(?:不需要|不用|不要|没有|没用|无需|不是|no|not|without|don'?t need|doesn'?t need|no need for)\s*"
    r"(?:做|用|any)?\s*(?:模型并行|model[- ]parallel)"
)


def model_parallel_words(norm: str) -> bool | None:
    """ "只是数据并行", "no, it's data parallel only", "单卡就够", "不需要模型并行，只是数据并行" -> False (data
    parallelism is not model parallelism: each card holds the whole model); "张量并行", "tensor parallel", "tp=4" ->
    True."""
    if _DOES_NOT_FIT.search(norm):
        return True  # 模型放不下一张卡
    if _SPLIT.search(norm):  # 需要切分模型; 不用切分模型
        return not re.match(r"^(?:不|没|无)", norm)
    if _FITS.search(norm) or _SINGLE_CARD.match(norm) or _NOT_MODEL_PARALLEL.search(norm):
        return False
    if _DATA_PARALLEL.search(norm) and not re.search(r"模型并行|model[- ]parallel|张量|tensor|pipeline|流水线", norm):
        return False
    if _MODEL_PARALLEL.search(norm) and not re.match(r"^(?:no|not|不|没|无)", norm):
        return True
    return None


def tensor_parallel_cards(norm: str) -> int | None:
    match = _TP.search(norm)
    return int(match.group(1)) if match else None


# --- interruption, by how the job saves --------------------------------------------------------

_CKPT = r"(?:checkpoints?|checkpointing|checkpointed|ckpts?|检查点|断点|存档|快照|snapshots?)"
_STARTS_OVER = lazy(
    r"从头(?:开始|跑|再跑|来)?|重头|重新跑|重跑|白跑|前功尽弃|start(?:s"
    r"|ing)? over|from scratch|from the (?:start|beginning)"
    r"|restart(?:s)? from (?:zero|0|the beginning)|lose everything|all lost|重来"
)
_NO_CKPT = lazy(
    rf"(?:no|without|never|don'?t|do not|doesn'?t|does not|不|没|没有|无|不会"
    rf"|不存|没存)\s*(?:any\s+|save\s+|saves\s+|存|保存|做|有|use\s+)?{_CKPT}"
)
_SAVES = lazy(
    rf"{_CKPT}|断点续训|断点续跑|续训|续跑|接着跑|^(?:可以|能)续$|resum(?:e|es|able)"
    r"|(?<![不没])(?:能|可以|可)(?:自动)?(?:从断点)?恢复"  # 能恢复 (没法恢复, 不能恢复: a no, read before)
    rf"|pick(?:s)? up where|save(?:s)? (?:every|each|state)"
    r"|每.{0,6}(?:存|保存)(?:[一1]次)?$|存[一1]次|保存[一1]次|^(?:会|有|都会|定期)(?:存|保存)$"
)


_NO_STOP = lazy(
    r"不能(?:被)?(?:中断|断|停)|不可以(?:中断|停)|不(?:可|允许)(?:被)?中断|停不得|can'?t be (?:interrupted"
    r"|stopped)|cannot be (?:interrupted|stopped)"
    r"|must not (?:stop|be interrupted)|no interruptions?|(?:最好)?(?:别|不要)(?:被)?(?:中断|断|停)"
    r"|(?:rather|better) not (?:stop|be interrupted)"
)
_MAY_STOP = lazy(
    r"丢(?:一点|一些|点)(?:进度)?(?:也)?(?:没关系|没事|无所谓)|^支持$"
    r"|losing (?:a bit|a little|some)(?: (?:of )?(?:progress|work))? is (?:fine|ok|okay)"
    r"|可以(?:被)?(?:中断|停)|(?<![不])(?:能|可|允许)(?:被)?中断|断了也没事|停了也没关系|中断也没事"
    r"|can be (?:interrupted"
    r"|stopped)|interruptions? (?:are|is) fine"
    r"|fine if (?:it|they) stops?|^无所谓$|^没关系$|^都行$|^随便$|^doesn'?t matter$|^don'?t care$"
    r"|^(?:that'?s|it'?s|that is|it is|that would be|it'?d be)\s+(?:fine|ok|okay|no problem|not a problem)$"
)


# negation-aware: "没法恢复", "can't resume" is a no; "不用重来", "no need to start over" a yes
_CANNOT_RESUME = lazy(
    r"^(?:没|没有|不)(?:存|保存)(?:过)?$|^不支持|(?:会|就)?丢(?:掉)?(?:全部|所有)?进度|进度(?:会|就)?(?:丢|没)"
    r"|(?:we |it )?lose (?:a|the|one|\d+|half a) (?:day|days|hour|hours|week|run)(?!.*(?:fine|ok|okay))"
    r"|(?:会|就)?(?:白跑|丢|损失|浪费)(?:掉)?(?:了)?(?:[一1]|半|几|好几|\d+)\s*(?:天|周|个?小时|h|晚上)"  # 断了损失一天
    r"(?!.*(?:也?没事|没关系|无所谓|也行|可以接受|能接受|不要紧|不碍事))"
    r"|(?:没法|无法|不能|不可以|没办法|不可|can'?t|cannot|no way to|unable to|not able to)\s*"
    r"(?:恢复|续|接着|继续|resume|recover|continue|pick up)"
    r"|^(?:we|it) (?:can'?t|cannot)$|can'?t afford to (?:lose|stop|restart)|(?:would|'d) be (?:bad|a disaster|painful)"
    r"|(?:损失|代价)(?:很|太|会很|非常|特别)?大|(?:会)?很麻烦|白干|前功尽弃"  # 中断了损失很大: it cannot be stopped
    r"|(?:we'?d|we would) lose (?:everything|it all|all)"
)
_NEED_NOT_RESTART = lazy(
    r"(?:不用|不需要|不必|无需|no need to|don'?t (?:have|need) to|needn'?t)\s*"
    r"(?:从头|重来|重新|重跑|start over|restart)"
)


# a loss said to be fine (白跑几个小时没关系, 丢了几个小时也没事, 重跑也行): it may be stopped, whatever is lost
_LOSS_FINE = lazy(
    r"(?:丢|白跑|损失|浪费|重跑|重来|从头跑)(?:了|掉)?[^,，;；]{0,8}?(?:也|都)?"
    r"(?:没关系|没事|无所谓|不要紧|不碍事|能接受|可以接受|也行|没问题)[了吧啊]?$"
)


def resume_words(norm: str) -> bool | None:
    """ "每小时存一次checkpoint", "we checkpoint every 30 min", "不用重来" -> True (it resumes from the last one);
    "挂了要从头跑", "断了就得重来", "没法恢复", "no checkpoints" -> False; None when the answer says neither."""
    if _NEED_NOT_RESTART.search(norm) or _LOSS_FINE.search(norm):
        return True
    if _CANNOT_RESUME.search(norm):
        return False
    if _STARTS_OVER.search(norm) or _NO_CKPT.search(norm) or _NO_STOP.search(norm):
        return False
    if _SAVES.search(norm) or _MAY_STOP.search(norm):
        return True
    return None


# --- frequency ----------------------------------------------------------------------------------

_FREQUENCY_LEAD = lazy(
    r"(?<=[周天月日时上])\s*(?:都|都要|都会|基本都)?(?:跑|训练|做|用|运行)(?:一次|一下)?\s*"  # 每天晚上跑一次
    r"|(?<=偶尔|很少)\s*(?:跑|用|训练)(?:一下|跑|一次)?$"  # 偶尔跑一下: 偶尔
    r"|^(?:跑|运行|runs?|we run it|it runs)\s+"
)
_WEEK_WORDS = (
    dict.fromkeys(("weekdays", "every weekday", "on weekdays", "工作日", "每个工作日", "工作日每天",
        "周一至周五", "周一到周五", "mon-fri"), 5.0)
    | dict.fromkeys(("weekends", "on weekends", "周末"), 2.0)
    | dict.fromkeys(("every weekend", "每个周末"), 1.0)
    | dict.fromkeys(("隔天", "隔一天"), 3.5)
    | dict.fromkeys(("隔3差5", "3天2头"), 2.0)  # 隔三差五, 三天两头 (numerals read by then): every few days
    | dict.fromkeys(("every few days", "隔几天", "每隔几天", "every 3 days or so"), 7 / 3)  # a few: 3, as 几 reads
    | dict.fromkeys(("nightly", "every night", "each night", "每晚", "每天晚上", "每晚1次", "每天晚上1次"), 7.0)
    | dict.fromkeys(("几乎每天", "基本每天", "基本天天", "几乎天天", "almost every day", "nearly every day",
        "almost daily", "nearly daily", "most days"), 6.0)  # below every day, above the 5 a week of "high"
    | dict.fromkeys(("hourly", "every hour", "每小时", "每个小时", "每小时1次", "1小时1次"), 7 * 24.0)
    | dict.fromkeys(("隔周", "every 2 weeks", "every two weeks", "biweekly", "fortnightly", "每两周", "每2周",
        "每半个月"), 0.5)
)  # fmt: skip
_SKIPPING = lazy(rf"^(?:每)?隔\s*(?P<n>{NUM})\s*天(?:一次|1次)?$")  # 隔2天: two days between runs, every third day
_CONTINUOUS = lazy(
    r"^(?:一直|不停|持续|长期|常驻|全天候|每时每刻|24/7|7\s*[x*×]\s*24|24\s*[x*×]\s*7)(?:地|的)?(?:在)?(?:跑|运行|训练|开着)?(?:着)?$"
    r"|^(?:constantly|continuously|non-?stop|all the time|always(?: running| on)?|around the clock|24/7"
    r"|it never stops)$"
)  # it runs without a break: as often as can be, high


def continuous(norm: str) -> bool:
    """ "一直在跑", "24/7", "constantly": the job never stops, so it runs as often as anything runs (high)."""
    return _CONTINUOUS.match(norm) is not None


_DAYS_A_WEEK = lazy(rf"^(?P<n>{NUM})\s*days?\s*(?:a|per|/)\s*week$|^每周\s*(?P<cn>{NUM})\s*天$")


# when, said before how often ("项目期间每天都跑", "最近每天跑"), and how much before the level ("很频繁")
_FREQUENCY_WHEN = lazy(
    r"^(?:项目期间|训练期间|这段时间|最近|平时|目前|现在|一般来说|during the project|these days|lately)\s*"
)
_FREQUENCY_DEGREE = lazy(r"^(?:很|挺|非常|特别|比较|相当|very|quite|pretty|fairly)\s*(?=频繁|经常|often|frequent)")


def frequency_words(norm: str) -> str:
    """The frequency with the words around it dropped; "几次" (several times) as 3, as 几 reads elsewhere."""
    norm = _FREQUENCY_DEGREE.sub("", _FREQUENCY_WHEN.sub("", norm))
    return _FREQUENCY_LEAD.sub("", norm).strip().replace("几次", "3次")


def runs_a_week(norm: str) -> float | None:
    """ "weekdays" (5), "隔天" (3.5), "每隔2天" (7/3), "几乎每天" (6), "hourly" (168), "5 days a week", "每周5天": runs
    a week said without a count of runs."""
    if norm in _WEEK_WORDS:
        return _WEEK_WORDS[norm]
    skipping = _SKIPPING.match(norm)
    if skipping and float(skipping["n"]) >= 0:  # "每隔2天": a run, two days without, a run
        return 7 / (float(skipping["n"]) + 1)
    match = _DAYS_A_WEEK.match(norm)
    if match:
        return float(match.group("n") or match.group("cn"))
    named = _NAMED_DAYS.match(norm)
    if named:  # "每周五", "每周一三五", "every friday", "mondays and thursdays": those days, once each
        english = {day[:3] for day in re.findall(_EN_DAY, named["en"] or "")}
        days = set(re.findall(r"[一二三四五六日天]", named["cn"] or "")) | english
        return float(len(days)) if days else None
    return None


_EN_DAY = r"\b(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?\b"
_NAMED_DAYS = lazy(
    r"^(?:每|每个)?(?:周|星期|礼拜)(?P<cn>[一二三四五六日天](?:[、,，和及]?(?:周|星期)?[一二三四五六日天])*)$"
    rf"|^(?:every |on )?(?P<en>(?:{_EN_DAY}(?:,? and |, | )?)+)$"
)


# --- schedules ----------------------------------------------------------------------------------

_HOURS_EACH_DAY = lazy(
    rf"(?:(?:每天|每日|一天|1天|daily|a day|per day)\s*(?:跑|用|训练)?\s*(?P<a>{NUM})\s*(?:hours?|hrs?|h|个?小时))"
    rf"|(?:(?P<b>{NUM})\s*(?:hours?|hrs?|h|个?小时)\s*(?:a day|per day|/\s*day|/d|daily|每天|一天|each day|every day))"
)
_PERIOD = lazy(
    rf"(?P<n>{NUM}|\ban?\b|\bone\b)\s*(?P<unit>days?|d|天|weeks?|wks?|周|个?星期|个?礼拜|months?|个?月)(?![a-z])"
)
_PERIOD_DAYS = {"d": 1, "day": 1, "天": 1, "week": 7, "wk": 7, "周": 7, "星期": 7, "礼拜": 7, "month": 30, "月": 30}
_WEEKDAYS = lazy(r"weekdays|工作日|周一至周五|周一到周五|mon-fri")
# so many days of each week (每周3天, 一周三天, 3 days a week): the period's days scaled to them, as weekdays are to 5
_WEEK_DAYS_USED = lazy(
    rf"(?:每周|一周|1\s*周|每星期|每个星期)\s*(?P<a>{NUM}|[一二两三四五六七])\s*天|(?P<b>{NUM})\s*days?\s*(?:a|per|each)\s*week"
)  # 每周三天 keeps its 三: 周三 is a Wednesday to the numbers' reader, so the figure may be a numeral here
_NUMERALS = {"一": 1.0, "二": 2.0, "两": 2.0, "三": 3.0, "四": 4.0, "五": 5.0, "六": 6.0, "七": 7.0}


def _days_used(found: re.Match[str]) -> float:
    said = found["a"] or found["b"]
    return _NUMERALS.get(said) or float(said)


_ALL_DAY = lazy(  # "跑3天", "连续跑两周", "3 days straight": a run of days, every hour of them
    r"全天候|全天|不间断|不停|一直跑|连续跑|连续|跑(?=\s*\d)|24\s*/\s*7|7\s*[x×*]\s*24\s*(?:小时|h)"  # 7×24小时: 24/7
    r"|(?:a?round )?the clock|nonstop|non-stop"
    r"|all day|straight|continuously"
)


def _count(said: str) -> float:
    """A period's count: a figure, or "a"/"an"/"one" ("for a month")."""
    return 1.0 if said in ("a", "an", "one") else float(said)


def _period_days(unit: str) -> float:
    return _PERIOD_DAYS[unit.removeprefix("个").removesuffix("s")]


def schedule_parts(norm: str) -> tuple[float, float] | None:
    """Hours a day and days, said in pieces: "3周每天6小时", "6h a day for 3 weeks", "每天10小时，持续2周",
    "weekdays, 8 hours" (a month of weekdays: 22)."""
    parts = _in_pieces(norm)
    if parts is None or _FILLERS.sub("", parts[1]):  # "共享卡 每天4小时 14天": a word that is no schedule's
        return None
    return parts[0]


# what may stand between a schedule's pieces ("每天跑4小时，连续两周", "4 hours a day for the next 2 weeks, roughly")
_FILLERS = lazy(
    r"\s|[,，、;；.。:：~～]|\b(?:for|over|during|lasting|the|next|of|and|each|every|run|running|training)\b"
    r"|持续|连续|跑|用|训练|总共|一共|共|的|了|吧|啊|呢|左右"
)


def _in_pieces(norm: str) -> tuple[tuple[float, float], str] | None:
    """The schedule `norm` says in pieces, and what is left of it once they are taken out."""
    hours = _HOURS_EACH_DAY.search(norm)
    rest = norm[: hours.start()] + " " + norm[hours.end() :] if hours else norm
    nonstop = _ALL_DAY.search(norm) if hours is None else None
    if nonstop is not None:  # "全天候一周", "24/7 for two weeks": every hour of each day
        rest = norm[: nonstop.start()] + " " + norm[nonstop.end() :]
        period = _PERIOD.search(rest)
        if period is None:
            return None
        return (24.0, _count(period.group("n")) * _period_days(period.group("unit"))), _cut(rest, period)
    weekdays = _WEEKDAYS.search(norm)
    a_week = 5.0 if weekdays is not None else None
    if weekdays is not None:
        rest = _cut(rest, weekdays)
    elif (per_week := _WEEK_DAYS_USED.search(rest)) is not None and 0 < _days_used(per_week) <= 7:
        rest, a_week = _cut(rest, per_week), _days_used(per_week)
    if hours is None and weekdays:
        hours = re.search(rf"(?P<a>{NUM})\s*(?:hours?|hrs?|h|个?小时)", rest)
        rest = _cut(rest, hours) if hours else rest
    if hours is None:
        return None
    per_day = float(hours.group("a") or hours.group("b"))
    period = _PERIOD.search(rest)
    if period is None:  # weekdays: a month of them (22); so many days a week: a month's worth
        return ((per_day, 22.0 if weekdays else round(30 * a_week / 7)), rest) if a_week else None
    days = _count(period.group("n")) * _period_days(period.group("unit"))
    if a_week:
        days = round(days * a_week / 7)
    return (per_day, days), _cut(rest, period)


def _cut(text: str, found: re.Match[str]) -> str:
    return text[: found.start()] + " " + text[found.end() :]


# --- served models ------------------------------------------------------------------------------

_SUFFIX_QUANT = [
    (lazy(r"-gptq-int4\b|-gptq-4bit\b"), "int4"),
    (lazy(r"-gptq-int8\b|-gptq-8bit\b"), "int8"),
    (lazy(r"-awq\b|-gptq\b|-int4\b|-4bit\b"), "int4"),
    (lazy(r"-int8\b|-8bit\b"), "int8"),
    (lazy(r"-fp8\b"), "fp8"),
    (lazy(r"-bf16\b"), "bf16"),
    (lazy(r"-fp16\b"), "fp16"),
]
_NAME_SUFFIX = lazy(r"-(?:instruct|chat|it|base|hf|v\d+(?:\.\d+)?)\b")
_CONTEXT = lazy(
    rf"[,;]?\s*(?:context\s*|上下文\s*)?(?P<ctx>{NUM}\s*k?)\s*(?:tokens?\s*)?(?:context"
    rf"|上下文|的上下文|ctx)?\s*[,;]?\s*"
    rf"(?:concurrency\s*|并发\s*)?(?P<conc>\d+)\s*(?:路并发|个并发"
    rf"|并发|at once|at a time|concurrent(?: requests| users)?"
    rf"|requests? at once|parallel requests|users at once)$"
)


def serving_words(norm: str) -> str:
    """A served model as its publisher names it, with the context and concurrency in words, written the way
    the memory parser reads it: "qwen2.5-7b-instruct-awq, 32k上下文, 8路并发" -> "qwen2.5-7b int4 32k x 8"."""
    quant = None
    for pattern, name in _SUFFIX_QUANT:
        if pattern.search(norm):
            norm, quant = pattern.sub("", norm), name
            break
    norm = _NAME_SUFFIX.sub("", norm)
    match = _CONTEXT.search(norm)
    tail = ""
    if match and match.start() > 0:
        tail = f" {match.group('ctx').replace(' ', '')} x {match.group('conc')}"
        norm = norm[: match.start()]
    name, _, rest = norm.strip(" ,;").partition(" ")
    return " ".join(part for part in (name, quant, rest.strip(" ,;"), tail.strip()) if part)
