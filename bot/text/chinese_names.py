"""The Chinese words of the chats' commands, as a Chinese team types them: each sub-command's name (`报价 A100 4x14`,
`列表`) to its English word (bot/chat/ids.SubCommand's values), which the one table runs both by (bot/app/table.py)
and every chat's help names (tests/chat/test_help_names_every_subcommand.py); and the words of a switch, of `act`'s
modes, of what `track` keeps, of currencies and of `prices`' cheapest first. Here, below the chats, so a chat's
words can say them."""

from __future__ import annotations

CHINESE_NAMES: dict[str, str] = {
    "帮助": "help",
    "报价": "quote",
    "价格": "prices",
    "登记": "track",
    "列表": "list",
    "释放": "release",
    "删除存储": "delete-storage",
    "改名": "rename",
    "重命名": "rename",
    "预算": "budget",
    "余额": "balance",
    "报告": "report",
    "提醒": "remind",
    "开关机": "power",
    "计费": "billing",
    "分析": "analyze",
    "表单": "form",
    "看板": "board",
    "停机记录": "actions",
    "闲置": "idle",
    "停机": "stop",
}


# a switch and `act`'s modes, by their words in either language (`remind 关闭`, `report 开启`, `act 停机`): each
# was refused naming off, on, notify or stop
SWITCH_WORDS = dict.fromkeys(("off", "关闭", "关掉", "停止", "关了", "关掉吧"), "off") | dict.fromkeys(
    ("on", "开启", "打开", "开了", "恢复", "重新开启"), "on"
)  # 把提醒关了, 提醒恢复: as people say a switch
ACT_MODES = (
    dict.fromkeys(("关闭", "不处理"), "off")
    | dict.fromkeys(("提醒", "通知", "只提醒"), "notify")
    | dict.fromkeys(("停机", "自动停机", "关机"), "stop")
)

# what `track` keeps, by its word in either language (`登记 存储 数据盘 size=2T`: 存储 was read as a name)
TRACK_KINDS = {"instance": "instance", "实例": "instance", "storage": "storage", "存储": "storage"}


def chinese_names() -> str:
    """The Chinese names as help says them: `报价`（quote）、`价格`（prices）…"""
    named = "、".join(f"`{name}`（{word}）" for name, word in CHINESE_NAMES.items())
    return named + "；`开机 名称`、`关机 名称` 即 `power 名称 on|off`"


# currencies by their Chinese names (and rmb, 刀), to ISO codes as the ECB lists them; here, where the terminal's
# quote reads --currency without loading the fields' readers (bot/cli/prices.py quote_currency)
CHEAPEST_WORDS = frozenset({"cheapest", "最便宜", "最便宜的"})  # `价格 A100 最便宜`, `prices list 4090 cheapest`
CURRENCY_WORDS = {"人民币": "CNY", "元": "CNY", "rmb": "CNY", "美元": "USD", "美金": "USD", "刀": "USD",
                  "欧元": "EUR", "日元": "JPY", "港币": "HKD", "港元": "HKD", "英镑": "GBP", "新加坡元": "SGD",
                  "新币": "SGD", "韩元": "KRW", "dollar": "USD", "dollars": "USD", "bucks": "USD", "yuan": "CNY",
                  "rmb元": "CNY"}  # fmt: skip


def currency_code(text: str) -> str:
    """A currency as typed, as its code: "usd" -> USD, "美元" -> USD, "人民币" -> CNY (unknown words upper-cased)."""
    said = text.strip()
    return CURRENCY_WORDS.get(said.lower(), said.upper())
