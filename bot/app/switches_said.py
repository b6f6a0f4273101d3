"""The bot's own settings changed, or its record asked for, in words where a sub-command was meant: a budget taken off
(`删除llm的预算`, `remove the llm budget`: the budgets were listed, nothing removed), the digest brought back or moved
(`resume the digest`, `change the digest to 10am`: not understood), and the stop history (`停机记录`, `show the
actions`: not understood). Each is the sub-command as typed would run it, with its own checks (who may)."""

from __future__ import annotations

import re

from rules.patterns import lazy

_TEAM = frozenset(
    {"team", "the team", "our", "whole team", "团队", "整个团队", "全团队", "我们", "我们的", "总", "整体"}
)
_BUDGET_OFF = lazy(
    r"^(?:请|帮我|麻烦)?(?:删除|删掉|取消|去掉|撤销|关闭|不要)(?:了)?\s*(?P<zh>[^\s的]+?)?\s*(?:项目)?(?:的)?(?:月)?预算"
    r"(?:吧|了|一下)?[。.!！]?$"
    r"|^(?P<zh_then>[^\s的]+?)?\s*(?:项目)?(?:的)?预算\s*(?:删除|删掉|取消|去掉|不要了|关掉)(?:吧|了|一下)?[。.!！]?$"
    r"|^(?:please\s+)?(?:remove|delete|drop|cancel|clear|turn off)\s+(?:the\s+)?(?:(?P<en>[\w-]+(?: team)?)\s+)?"
    r"(?:project\s+)?budget(?:\s+(?:for|of)\s+(?:project\s+)?(?P<en_for>[\w-]+))?[.!]?$",
    re.IGNORECASE,
)
_REMIND_ON = lazy(
    r"^(?:please\s+)?(?:resume|restart|unpause|turn on|re-?enable|bring back|start)\s+(?:the\s+)?(?:daily\s+)?"
    r"(?:digests?|reminders?)(?:\s+again)?[.!]?$"
    r"|^(?:please\s+)?turn\s+(?:the\s+)?(?:daily\s+)?(?:digest|reminders?)\s+(?:back\s+)?on(?:\s+again)?[.!]?$"
    r"|^(?:请|帮我)?(?:恢复|重新开启|开启|打开|继续)(?:每日|每天的?)?(?:提醒|日报)(?:吧)?[。.!！]?$",
    re.IGNORECASE,
)
_REMIND_MOVE = lazy(
    r"^(?:please\s+)?(?:change|move|set|switch|reschedule)\s+(?:the\s+)?(?:daily\s+)?(?:digest|reminders?)"
    r"(?:'s)?\s+(?:time\s+)?to\s+(?P<when>.+?)[.!]?$",
    re.IGNORECASE,
)
_ACTIONS = lazy(
    r"^(?:please\s+)?(?:show|list)(?:\s+me)?\s+(?:the\s+)?(?:stop\s+)?(?:actions|stops)(?:\s+history)?\??$"
    r"|^(?:stop|action)\s+history\??$|^what (?:was|has been|got|did you) (?:stopped|stop)\??$"
    r"|^(?:查看|看看|看一下)?(?:停机|自动停机)(?:记录|历史)[?？]?$|^(?:哪些|哪台)(?:机器)?被(?:自动)?停(?:了|掉了)?[?？]?$",
    re.IGNORECASE,
)


# what the bot does about idle boxes here, asked (闲置的机器会怎么处理, what happens to idle boxes here): this chat's
# policy and how `act stop` works, as a stop asked for in words is answered (it listed what is idle now)
_POLICY = lazy(
    r"^(?:请问)?(?:这里|本群|这个群)?(?:的)?(?:闲置|空闲|闲着)(?:的)?(?:机器|卡|实例|gpu|资源)?(?:会|要)?(?:被)?"
    r"(?:怎么处理|如何处理|怎么办|会怎样|怎么样|会被关掉吗|会被停掉吗|会被关吗)[?？]?$"
    r"|^what (?:happens|do you do|does the bot do) (?:to|with|about) idle (?:boxes|machines|gpus|instances|cards)"
    r"(?: here| in this (?:channel|chat|group))?\??$",
    re.IGNORECASE,
)


def switch_said(said: str) -> tuple[str, list[str]] | None:
    """The sub-command and its words that `said` means, where it takes a budget off, brings the digest back or moves
    it, or asks for the stop history; None otherwise."""
    if (off := _BUDGET_OFF.match(said)) is not None:  # 删除llm的预算, remove the llm budget: `budget llm off`
        named = next((off[k] for k in ("zh", "zh_then", "en", "en_for") if off[k]), None)
        whole = named is None or named.lower() in _TEAM
        return "budget", ["off"] if whole else [str(named), "off"]
    if _REMIND_ON.match(said):  # resume the digest, 恢复提醒: `remind on`
        return "remind", ["on"]
    if (moved := _REMIND_MOVE.match(said)) is not None:  # change the digest to 10am: `remind at 10am`
        return "remind", ["at", *moved["when"].split()]
    if _ACTIONS.match(said):  # 停机记录, show the actions: `actions`
        return "actions", []
    return None


def policy_asked(said: str) -> bool:
    """Whether `said` asks what the bot does about idle boxes here (闲置的机器会怎么处理)."""
    return _POLICY.match(said.strip()) is not None
