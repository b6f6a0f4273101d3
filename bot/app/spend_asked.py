"""A question of money spent or set aside, said in words: what was spent in a period or on a project
(`本月花了多少钱`, `这个月llm花了多少`, `what did llm cost last month`), a report by another word (`报表`, `周报`,
`导出账单`), a budget set in a sentence (`给llm项目设置预算5万`, `set a budget of $5000 for llm`). Part of free_words
(bot/app/free_words.py)."""

from __future__ import annotations

import re

from rules.patterns import lazy

_AMOUNT = r"(?P<amount>[$¥￥]?\s*\d[\d,.]*\s*(?:万|千|k)?\s*(?:元|块|美元|usd|cny)?)"


# a project's (or the team's) monthly budget said as a sentence: llm的预算是2万, 把llm预算设为5万,
# set llm budget to 20000, budget for llm is 20000
_BUDGET_SET = lazy(
    r"^(?:请|帮我|麻烦)?\s*(?:set\s+|把\s*|给\s*|为\s*|设置\s*|设定\s*)?(?:the\s+)?"
    r"(?P<project>(?:(?!项目|预算|设置|设定|请|帮我|麻烦)[^\s的])+?)\s*(?:项目)?\s*的?\s*"
    r"(?:设置|设定|设|定|加)?(?:一个|个)?(?:月度|每月的?)?\s*(?:monthly\s+)?(?:budget|预算)\s*"
    r"(?:is|to|=|at|:|：|是|为|设为|设成|改成|改为|定为|定成|每月|一个月)*\s*"
    rf"{_AMOUNT}\s*(?:a month|per month|/month)?$",
    re.IGNORECASE,
)
# a budget's verb, said after 预算 (预算设为每月5万, 把预算改成5万)
SET_TO = r"(?:设为|设成|改成|改为|定为|定成|调到|调成|调整为|设置为|设置成|设定为|提高到|降到|降低到|加到)"
# the team's, said with the verb after 预算 and no project (预算设为每月5万, 把预算改成5万, set our budget to 50000)
_BUDGET_TEAM = lazy(
    r"^(?P<project>)(?:请|帮我|麻烦)?\s*(?:把|将)?\s*(?:团队|全队|我们|本群)?的?\s*(?:每月|月度|每个月)?的?\s*预算\s*"
    rf"(?:{SET_TO}|是|为)?\s*"
    rf"(?:每月|每个月|一个月)?\s*{_AMOUNT}\s*(?:一个月|每月)?$",
    re.IGNORECASE,
)
_BUDGET_TEAM_EN = lazy(
    r"^(?P<project>)(?:set|change|make|raise|lower)\s+(?:the|our)\s+(?:monthly\s+|team\s+)*budget\s+(?:to|at)\s+"
    rf"{_AMOUNT}\s*(?:a month|per month|/month)?$",
    re.IGNORECASE,
)
_BUDGET_OF_TEAM = lazy(  # a budget of an amount and no project (set a budget of 5000 usd): the team's
    rf"^(?P<project>)(?:set|give us|make)\s+(?:a|an|the|our)\s+(?:monthly\s+|team\s+)*budget\s+of\s+{_AMOUNT}"
    r"\s*(?:a month|per month|/month)?$",
    re.IGNORECASE,
)
_BUDGET_FOR = lazy(
    rf"^(?:set\s+)?(?:the\s+)?(?:monthly\s+)?budget\s+(?:for|of)\s+(?P<project>\S+)\s+(?:is|to|=|at)?\s*{_AMOUNT}"
    r"\s*(?:a month|per month|/month)?$",
    re.IGNORECASE,
)
_BUDGET_VERB = lazy(  # the verb and the word first: 设置预算 llm 50000, 设定预算 给 llm 5万; none named: the team's
    r"^(?:请|帮我)?(?:设置|设定|设|定)(?:一个|一下)?(?:月度|每月的?)?预算\s*(?:给|为)?\s*"
    rf"(?:(?P<project>[^\s\d$¥￥]\S*?)\s*(?:项目)?\s+)?(?:为|是|=)?\s*{_AMOUNT}$",
    re.IGNORECASE,
)
_BUDGET_OF = lazy(  # the amount first: set a budget of $5000 for llm, a $5000 budget for llm
    rf"^(?=.*\bbudget\b)(?:set\s+|give\s+)?(?:a|the)?\s*(?:monthly\s+)?(?:budget\s+(?:of\s+)?)?{_AMOUNT}"
    r"(?:\s+budget)?"
    r"\s+(?:for|to)\s+(?:project\s+)?(?P<project>\S+?)\s*(?:a month|per month|/month)?$",
    re.IGNORECASE,
)
_SPENT = lazy(
    r"(?:一共|总共)?花了?多少(?:钱)?|花费|开销|花销|花钱最多|花得最多|最花钱|花的钱最多"
    r"|how much (?:did|have) we spen[dt]|what (?:did|have) we spen[dt]|spending|spent|spends?(?: the)? most"
    r"|(?:what(?:'s| is) )?(?:our|the|total|the team'?s) spend(?![a-z])"
    r"|(?<![a-z])spend(?= by\b)"
    r"|(?<=project )costs? (?:us )?the most|(?:most expensive|costliest|dearest) projects?",  # which project costs most
    re.IGNORECASE,
)
_OF_PROJECTS = lazy(r"项目|(?<![a-z])projects?(?![a-z])", re.IGNORECASE)  # asked of projects, none named
_EACH_PROJECT = lazy(  # spend asked of every project (各项目花了多少, spend by project): the report says each's
    r"(?:哪个|哪些|每个|各个?|所有)项目(?:的|都|分别|各)*|(?<![a-z])(?:which|each|every|per|by)\s+projects?(?![a-z])",
    re.IGNORECASE,
)
# spend asked by project or by person (按项目统计费用, 按人汇总开销, 各成员的花费, spend by owner): the report,
# which ranks each project's and each owner's
_BY_WHOM = lazy(
    r"(?:按|分)(?:项目|人|负责人|成员|用户|人头)(?:统计|汇总|看|算|列出|分摊|拆分)?(?:一下)?(?:的)?"
    r"(?:费用|花费|开销|花销|支出|成本|账单|钱)?(?:情况)?"
    r"|(?:每个人|各成员|每个成员|每人|各人)(?:的|都|分别)*(?:费用|花费|开销|花了多少钱?)"
    r"|(?<![a-z])(?:spend|spending|costs?) (?:by|per) (?:owner|person|people|member|user)s?(?![a-z])"
    # who spends most (谁花钱最多, who is spending the most): the report's ranking by owner
    r"|谁(?:的机器)?(?:花钱|花的钱|花得|花费|开销|用钱)(?:最多|最大)"
    r"|who(?:'s| is)? spending (?:the )?most|who spends (?:the )?most",
    re.IGNORECASE,
)
_PROJECT = lazy(  # a project named in a spend question: llm项目, 项目llm, on llm, on project llm; a name glued to the
    # Chinese words around it (这个月llm花了多少, llm上周花了多少): a Latin name is no Chinese period's word
    r"(?P<a>[A-Za-z0-9][A-Za-z0-9_\-]*)\s*项目|项目\s*(?P<b>[A-Za-z0-9][A-Za-z0-9_\-]*)"
    r"|(?<=[\u4e00-\u9fff])(?P<d>[A-Za-z][A-Za-z0-9_\-]*)(?![A-Za-z0-9_\-])|^(?P<e>[A-Za-z][A-Za-z0-9_\-]*)(?=[\u4e00-\u9fff])"
    r"|(?<![a-z])(?:on|for)\s+(?:the\s+)?(?:project\s+)?"
    r"(?P<c>(?!this\b|last\b|the\b|gpus?\b|storage\b|boxes\b|machines\b|instances\b|disks?\b)[A-Za-z0-9][A-Za-z0-9_\-]*)",
    re.IGNORECASE,
)
# what the money went on, said first (存储花了多少, 机器这个月花了多少, GPU上个月花了多少钱): the report, which says
# both the boxes and the storage; it was a period named 存储, or a project named GPU
_WHAT_OF = lazy(  # said anywhere in Chinese (这个月GPU花了多少钱: the period, then GPU glued to it)
    r"(?<![A-Za-z0-9_\-])(?:gpus?|显卡|机器|卡|存储|硬盘|磁盘|云盘|实例|服务器|算力)(?:们)?(?:的)?(?:费用)?"
    r"(?![A-Za-z0-9_\-])"
    r"|(?<![a-z])(?:on\s+)?(?:the\s+)?(?:gpus|storage|boxes|machines|instances|disks)(?![a-z])",
    re.IGNORECASE,
)
# the same in English (how much did storage cost this month): that period's report
_WHAT_OF_COST = lazy(
    r"^(?:how much|what) (?:did|does|has) (?:the )?(?:gpus?|storage|boxes|machines|instances|disks?) (?:cost|spen[dt])"
    r"(?: us)?(?P<rest>.*?)\??$",
    re.IGNORECASE,
)
_WHAT_COST = lazy(
    r"^(?:what|how much) (?:did|has) (?:the )?(?:project )?(?P<project>(?!we\b|it\b|that\b|this\b|you\b|i\b|they\b)"
    r"[A-Za-z0-9][\w-]*)(?: project)? (?:cost|spen[dt])(?:\s+us)?"
    r"(?P<rest>.*?)\??$",
    re.IGNORECASE,
)


# a bill asked for (导出账单, 上个月的账单, export the bill): the report, whose CSV is its rows, this month's when no
# period is said
_REPORT = lazy(
    r"报表|报告|账单|费用明细|周报(?![表告])|月报(?![表告])|(?<![a-z])(?:reports?|bills?|invoices?)(?![a-z])",
    re.IGNORECASE,
)
_THIS_MONTHS = dict.fromkeys(("月报", "账单", "费用明细", "bill", "invoice"), "this-month")
_PERIODIC = {"weekly": "last-week", "monthly": "this-month"}
_REPORT_ASKED = lazy(  # the words around a report's period (看一下上个月的报表, show me last month's report)
    r"看一下|看看|查一下|发一下|发个|给我|导出|下载|打印|一下|的|呢|吗|吧|？|\?|'s(?![a-z])"
    r"|帮我|帮忙|麻烦|请"  # 帮我导出上个月的账单: a period named 帮我, before
    r"|(?<![a-z])(?:the|show|me|please|send|get|our|give|a|can|you|i|want|export|download|what|does|do|say|says"
    r"|as|in|csv|excel|file)(?![a-z])|导出为|csv|excel|表格|文件",
    re.IGNORECASE,
)
_ASKED = lazy(  # the question's words around the period of a spend question
    r"我们|咱们|大家|团队|一共|总共|了|的|呢|啊|吗|？|\?|'s(?![a-z])"  # last week's spend: last week
    # asked politely (帮我看看这个月花了多少, 请问上周花了多少, 我想知道本月花了多少钱)
    r"|帮我|帮忙|请问|请|看看|看一下|查一下|查查|查看|算一下|算算|统计一下|我想知道|想知道|告诉我|一下"
    r"|(?<![a-z])(?:we|in|this(?! week| month)|the|so far)(?![a-z])",  # `this month` is the period
    re.IGNORECASE,
)


def period(rest: str) -> str:
    """The period a spend or waste question names once its own words are taken out; this month's where none."""
    return " ".join(_ASKED.compiled.sub(" ", rest).split()) or "this-month"


def spent_asked(said: str) -> tuple[str, list[str]] | None:
    """A question of what was spent, by a project or in a period, or a report asked by another word: that report."""
    if (of := _WHAT_OF_COST.match(said)) is not None:  # how much did storage cost this month: that period's report
        return "report", [period(of["rest"])]
    if (cost := _WHAT_COST.match(said)) is not None:  # what did llm cost last month: that project's report
        return "report", [period(cost["rest"]), f"project={cost['project']}"]
    if (by := _BY_WHOM.search(said)) is not None:  # 按项目统计费用: the report, each project's and owner's spend
        projects = ["by=project"] if "项目" in by.group(0) else []  # said where no item has one: how to give one
        return "report", [period(said[: by.start()] + " " + said[by.end() :]), *projects]
    if _SPENT.search(said):  # 本月花了多少钱, 上周花了多少: that period's report (this month's, none said)
        # 各项目花了多少, which project spends the most: the report, which says each project's spend
        rest = _EACH_PROJECT.compiled.sub(" ", _SPENT.compiled.sub(" ", said))
        rest = _WHAT_OF.compiled.sub(" ", rest.strip())  # 存储花了多少, GPU这个月花了多少: the report has each
        project = _PROJECT.search(rest)  # llm项目这个月花了多少, what did we spend on llm: that project's
        if project is not None:
            rest = rest[: project.start()] + " " + rest[project.end() :]
        named = [f"project={next(g for g in project.groups() if g)}"] if project is not None else []
        each = ["by=project"] if not named and _OF_PROJECTS.search(said) else []  # 哪个项目花钱最多, dearest project
        return "report", [period(rest), *named, *each]
    if (report := _REPORT.search(said)) is not None:  # 上个月的报表, 周报, last month's report: that period's report
        when = " ".join(_REPORT_ASKED.compiled.sub(" ", _REPORT.compiled.sub(" ", said)).split())
        when = when or ({"周报": "last-week"} | _THIS_MONTHS).get(report.group(0).lower().rstrip("s"), "")
        when = _PERIODIC.get(when.lower(), when)  # give me a weekly report: last week's, as 周报
        return "report", [when] if when else []
    return None


def budget_set(said: str) -> re.Match[str] | None:
    """A budget set in a sentence: its project and amount (llm的预算是2万, 给llm项目设置预算5万, 设置预算 llm 50000,
    set a budget of $5000 for llm); the project empty for the team's (预算设为每月5万, set our budget to 50000)."""
    for pattern in (_BUDGET_TEAM, _BUDGET_TEAM_EN, _BUDGET_OF_TEAM, _BUDGET_SET, _BUDGET_VERB, _BUDGET_FOR, _BUDGET_OF):
        if (found := pattern.match(said)) is not None:
            return found
    return None
