"""An item's settings said in words after its name, as `billing NAME …` takes them: whose money it is
(`训练机 项目改成 cv`, `训练机 交给 @李雷`, `box2 belongs to @li`), how it bills (`训练机 包月了`, `box1 is now
monthly`), its card or count (`训练机 8卡改成4卡`, `box1 has 4 cards`) and the provider it bills to (`训练机
平台是autodl`, `box1 is on runpod`). Each reader returns `billing`'s words, or None where the words say no such
thing (bot/app/item_words.py reads the rest)."""

from __future__ import annotations

import re

from rules.patterns import lazy


def after(text: str, name: str) -> str:
    """The words after `name`, as typed (an id keeps its capitals), without the punctuation around them."""
    return re.sub(r"^[\s,，:：]+|[\s。.!！~～]+$", "", text.strip()[len(name) :])


# whose money it is, said (训练机 项目改成 cv, 训练机 负责人改成 @李雷, 训练机 交给 @李雷, box1 project=cv,
# box1 owner to @li): `billing NAME project=…|owner=…`, as typed (an id keeps its capitals)
_WHOSE_SET = (
    (
        lazy(
            r"^(?:的)?(?P<key>项目|负责人|所有者|project|owner)\s*"
            r"(?:改成|改为|换成|设为|设成|改到|转到|是|=|is now|is|to|:|：)\s*(?P<value>\S+)$",
            re.I,
        ),
        None,
    ),
    # its project said (box1 belongs to project llm, box1 is for the llm project, 训练机 属于 llm 项目, 算在llm项目上)
    (
        lazy(
            r"^(?:belongs to|is for|is in|is part of|goes to|counts (?:for|towards?)|is billed to)\s+(?:the\s+)?"
            r"project\s+(?P<value>\S+?)[.!]?$",
            re.I,
        ),
        "project",
    ),
    (
        lazy(
            r"^(?:belongs to|is for|is in|is part of|goes to|counts (?:for|towards?)|is billed to)\s+(?:the\s+)?"
            r"(?P<value>\S+?)\s+project[.!]?$"
            r"|^(?:属于|算在|算到|记在|记到|计入|归到|归入|归|放到|放在)\s*(?P<value_zh>[^\s项]+?)\s*项目(?:的|上|里|下|中)?(?:了)?[。！]?$",
            re.I,
        ),
        "project",
    ),
    (
        lazy(
            r"^(?:交给|转给|移交给|hand(?:ed)? (?:it )?to|give (?:it )?to|belongs to|is owned by|is now owned by)"
            r"\s*(?P<value>\S+?)(?:负责|的)?$"
            r"|^归\s*(?P<mention>@\S+?)(?:负责|的|管)?$"  # 训练机 归 @李雷: a person named with @ only
            r"|^(?:是|属于)\s*(?P<mention_of>@\S+?)\s*(?:的|负责的|在用)?$",  # 训练机 是 @李雷 的
            re.I,
        ),
        "owner",
    ),
)


# how it bills, said (训练机 包月了, 训练机改成包月 每月2万, 训练机 按量计费, box1 is now monthly): `billing NAME 包月`
_BILLED_AS = lazy(
    r"^(?:已经?)?(?:改成|改为|换成|转成|变成|现在是|现在|是)?(?P<basis>包月|包天|按量|按小时|按天|按月)(?:计费|付费)?(?:了|啦)?"
    r"(?:[,，]?\s*(?P<rest>\S.*))?$"
    r"|^(?:is now|is|switched to|now|went|goes)\s+(?P<en>monthly|hourly|daily)(?:\s+(?P<en_rest>\S.*))?$",
    re.I,
)


# its card or count said wrong when tracked (训练机 8卡改成4卡, 训练机 卡数改成4, 训练机 换成H800, 训练机 其实是4卡,
# 训练机 应该是8张A800): `billing NAME cards=… gpu=…`
_MACHINE_SET = (
    lazy(
        r"^(?:的)?(?:(?P<count>卡数|cards)|卡型|显卡型号|显卡|gpu型号|gpu)\s*(?:改成|改为|换成|应该是|其实是|=)\s*"
        r"(?P<value>\S+?)(?:了)?$",
        re.I,
    ),
    lazy(r"^(?:\d+|[一二两三四五六七八九十]+)\s*(?:卡|张)\s*(?:改成|改为|换成)\s*(?P<value>\S+?)(?:了)?$"),
    lazy(r"^(?:改成|改为|换成|其实是|应该是|实际是|实际上是|是)\s*(?P<value>\S+?)(?:了|的)?$"),
    lazy(
        r"^(?:actually\s+)?(?:has|is actually|is really|is|should be|has only)\s+(?:an?\s+)?(?P<value>.+?)[.!]?$", re.I
    ),
)


def machine_set(text: str, name: str) -> list[str] | None:
    """`cards=…` and `gpu=…` where the words after `name` correct its card or count; None otherwise (a price, a
    basis: their own readings)."""
    from bot.fields.rentals import FieldError, machine
    from bot.fields.track_words import instance_words
    from bot.text import Lang

    rest = after(text, name)
    said = next((m for pattern in _MACHINE_SET if (m := pattern.match(rest)) is not None), None)
    if said is None:
        return None
    if said.groupdict().get("count"):  # 卡数改成2: a count, whatever it is said as
        return [f"cards={said['value']}"]
    try:
        read = instance_words(said["value"].split(), Lang.ZH)
        gpu, counted = machine(read["gpu"], None, Lang.ZH) if "gpu" in read else (None, None)
    except FieldError:
        return None
    if not read or set(read) - {"gpu", "cards"}:
        return None
    cards = read.get("cards") or (str(counted) if counted else None)
    return [f"{key}={value}" for key, value in (("gpu", gpu), ("cards", cards)) if value]


# the provider it bills to, said (训练机 平台是autodl, 训练机 改到autodl上, 训练机 在阿里云上, box1 provider=autodl):
# `billing NAME provider=…`, where the word is a provider the bot knows
_PROVIDER_SET = lazy(
    r"^(?:的)?(?:平台|云平台|provider|platform)\s*(?:是|改成|改为|换成|=|:|：|is)\s*(?P<value>\S+?)$"
    r"|^(?:改到|换到|迁到|搬到|放在|在|是|is on|on)\s*(?P<at>\S+?)\s*(?:上|平台上?)?(?:的|租的)?$",
    re.IGNORECASE,
)


def provider_set(text: str, name: str) -> str | None:
    """`provider=…` where the words after `name` say a provider the bot knows it bills to; None otherwise."""
    from bot.fields.metering import PROVIDER_NAMES

    said = _PROVIDER_SET.match(after(text, name))
    value = (said["value"] or said["at"]) if said is not None else None
    return f"provider={value}" if value is not None and value.lower() in PROVIDER_NAMES else None


def billed_as(text: str, name: str) -> list[str] | None:
    """`billing`'s words where the words after `name` say how it bills (包月, 按量) and perhaps its new price."""
    said = _BILLED_AS.match(after(text, name))
    if said is None:
        return None
    return [said["basis"] or said["en"], *(said["rest"] or said["en_rest"] or "").split()]


def whose_set(text: str, name: str) -> str | None:
    """`project=…` or `owner=…` where the words after `name` set whose money it is; None otherwise."""
    rest = after(text, name)
    for pattern, key in _WHOSE_SET:
        said = pattern.match(rest)
        if said is not None:
            field = key or ("project" if said["key"].lower() in ("项目", "project") else "owner")
            found = said.groupdict()
            value = found.get("value") or found.get("value_zh") or found.get("mention") or found.get("mention_of")
            return f"{field}={value}"
    return None
