"""A stop asked for in words, as teams say it (`stop` is its sub-command: bot/app/stop_asked.py).

After a box's name: `训练机 明天早上9点关`, `训练机 跑到晚上10点就关`, `训练机 2小时后停掉`,
`训练机 明天9点提醒我关` (its owner told then, nothing stopped), `训练机 不用关了` (called off),
`训练机 跑完就关` (once it is idle, by the idle rule).
With the time first: `明天早上9点关训练机`, `今晚12点帮我把训练机停掉`, `明天早上9点提醒我关训练机`.
In English: `shut down box1 at 9pm`, `turn off box1 in 2 hours`, `remind me to stop box1 at 6pm`, `don't stop box1`,
`shut down box1 when it's done`.

A stop now said in words (`关掉训练机`) is not one: bot/app/item_words.py asks it back with `stop NAME`
to send, as a release is, since a word misread must not stop a box at once. What was said of the past is
not read here: `训练机 昨晚11点关的`, `训练机 3点关机了` (it went off: `power`); `训练机 9点关机`, with no
word of a time to come, stays the power report it was."""

from __future__ import annotations

import re

from bot.fields.coming import says_a_time
from rules.patterns import lazy

# words that make a time one to come: 关机/停机 after a bare time of day is said of the past, as before
_COMING = r"(?:明|后天|今晚|今天|tomorrow|tonight|later|from now|(?<![a-z])in\s|后)"
_TIMEISH = r"(?=[^,，。]*(?:\d|[一二三四五六七八九十两半]|明|今|后天|tomorrow|tonight|(?<![a-z])in\s))"
_VERB = r"(?P<verb>关掉|关机|关|停掉|停机|停)"
_AFTER_NAME = lazy(
    rf"^(?:跑到|用到|等到|到)?\s*(?P<when>{_TIMEISH}.+?)\s*(?:的时候)?\s*(?:就|再|帮我|给我|请|自动|记得)*\s*"
    rf"(?P<remind>提醒(?:我|一下)?(?:去)?)?\s*(?:把它)?\s*{_VERB}(?:吧|它|掉|一下)*[。.!！]?$"
)
# a stop once the box is idle: its job's end said (训练机 跑完就关, 训练机 闲下来就关掉, 训练机 跑完自动关机)
_ONCE_IDLE = lazy(
    r"^(?:今晚|今天|晚上|等会儿?|待会儿?)?\s*(?:等它?|等)?(?:跑完|训练完|用完|闲下来|空闲|闲置)(?:了|以后|之后|后)?\s*[,，]?\s*"
    r"(?:就|再|帮我|自动|请)*"
    r"(?:关掉|关机|关|停掉|停机|停)(?:吧|它|掉|一下)*[。.!！]?$"
)
_ONCE_IDLE_EN = lazy(
    r"^(?:please\s+)?(?:stop|shut down|shut|turn off|switch off|power off)\s+(?P<name>\S+?)(?:\s+down|\s+off)?\s+"
    r"(?:once|when|after)\s+(?:it'?s\s+|it\s+is\s+|it\s+)?(?:idle|done|finished|finishes)(?:,?\s*please)?[.!]?$",
    re.IGNORECASE,
)
_WHEN_STOP = lazy(
    r"^(?:还有多久|多久|什么时候|啥时候|几点|哪天)(?:会|才|就)?(?:停|关|停机|关机|被停|被关)(?:掉|呢|啊|吗)*[?？]?$"
    r"|^when (?:will|does) it (?:stop|shut down|be stopped)\??$",
    re.IGNORECASE,
)
_CALL_OFF = lazy(
    r"^(?:先|暂时)?(?:不用|别|不要)(?:再)?(?:关|停)(?:了|啦|吧|机)*[。.!！]?$|^取消(?:定时)?(?:关机|停机)(?:吧|了)?$"
    r"|^(?:don'?t|do not) (?:stop|shut down|turn off) it$",
    re.IGNORECASE,
)
_TIME_FIRST = lazy(
    rf"^(?P<when>{_TIMEISH}.+?)\s*(?:的时候)?\s*(?:就|再|帮我|给我|请|自动|记得)*\s*(?P<remind>提醒(?:我|一下)?(?:去)?)?\s*"
    r"(?:把\s*(?P<name>\S+?)\s*(?:关掉|关了|关机|停掉|停了|停机|关|停)(?:吧|掉|一下)*"
    r"|(?:关掉|关机|关|停掉|停机|停)\s*(?P<name2>\S+?)(?:吧|一下)?)[。.!！]?$"
)
_ENGLISH = lazy(
    r"^(?:please\s+)?(?P<remind>remind (?:me|us) to\s+)?(?:stop|shut down|shut|turn off|switch off|power off)\s+"
    r"(?P<name>\S+?)(?:\s+down|\s+off)?\s+(?:at\s+)?(?P<when>(?:in\s+|tomorrow|tonight|\d).*?)(?:,?\s*please)?[.!]?$",
    re.IGNORECASE,
)
_DONT = lazy(
    r"^(?:please\s+)?(?:don'?t|do not) (?:stop|shut down|turn off) (?P<name>\S+?)(?: please)?[.!]?$"
    # cancel the stop of box1, 取消训练机的定时关机
    r"|^(?:please\s+)?(?:cancel|call off)(?: the)?(?: scheduled)? (?:stop|shutdown) (?:of|for) (?P<of>\S+?)[.!]?$"
    r"|^(?:帮我|请)?取消\s*(?P<zh>\S+?)\s*的?(?:定时)?(?:关机|停机)(?:吧)?$"
    r"|^(?:帮我|请)?把\s*(?P<ba>\S+?)\s*的?(?:定时)?(?:关机|停机)取消(?:掉|了|吧)*$",  # 把训练机的停机取消
    re.IGNORECASE,
)


def after_name(rest: str) -> str | None:
    """What the words after a box's name ask of a stop: `stop-at WHEN`, `remind-at WHEN`, `call-off`; None where
    they ask none (or say what happened: `9点关机`, with no word of a time to come)."""
    if _CALL_OFF.fullmatch(rest.strip()):
        return "call-off"
    if _ONCE_IDLE.match(rest.strip()):  # 训练机 跑完就关: once it is idle
        return "stop-idle"
    if _WHEN_STOP.match(rest.strip()):  # 训练机 什么时候停: the stop asked for it, if one waits
        return "stop-when"
    found = _AFTER_NAME.match(rest.strip())
    if found is None:
        return None
    when = found["when"].strip()
    if found["verb"] in ("关机", "停机") and not re.search(_COMING, when, re.IGNORECASE):
        return None  # `训练机 9点关机`: the power report it was
    if not says_a_time(when):
        return None
    return f"{'remind' if found['remind'] else 'stop'}-at {when}"


def time_first(said: str) -> tuple[str, list[str]] | None:
    """A stop asked with its time first, or in English: `stop`'s words (`[NAME, at=WHEN]`, with `remind` where only
    a reminder is asked; `[NAME, cancel]` for one called off); None otherwise."""
    text = said.strip()
    if (dont := _DONT.match(text)) is not None:
        return "stop", [dont["name"] or dont["of"] or dont["zh"] or dont["ba"], "cancel"]
    if (done := _ONCE_IDLE_EN.match(text)) is not None:  # shut down box1 when it's done: once it is idle
        return "stop", [done["name"], "once-idle"]
    found = _TIME_FIRST.match(text) or _ENGLISH.match(text)
    if found is None:
        return None
    name = found["name"] if "name2" not in found.groupdict() else found["name"] or found["name2"]
    when = found["when"].strip()
    if not says_a_time(when.removeprefix("at ")):  # `训练机2关机了`: a box's report, not a stop at 训练机2
        return None
    return "stop", [name, f"at={when}", *(["remind"] if found["remind"] else [])]
