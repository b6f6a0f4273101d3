"""How to connect a cloud asked in words (`怎么接入阿里云`, `腾讯云的机器怎么接入`, `支持华为云吗`, `how do I connect
AWS`): it was answered with `track`'s and `enroll`'s help lines (接入 read as the agent's topic), which never say
that the cloud's GPU machines are found by themselves. The answer says what the admin running `serve` sets for that
cloud (the SDK's credential variables and the regions; docs/discovery.md), the command that tries it once, where the
found items are told, and never to paste a key in the chat; the agent (`enroll`) as the other way."""

from __future__ import annotations

import re

from bot.app.invocation import Invocation
from bot.chat.message import plain
from bot.text import t
from rules.patterns import lazy

# each cloud: its words, discovery's source, the credentials its official SDK reads, its regions' setting
CLOUDS = {
    "aliyun": (
        r"阿里云|阿里|aliyun|alibaba(?: ?cloud)?",
        "ALIBABA_CLOUD_ACCESS_KEY_ID, ALIBABA_CLOUD_ACCESS_KEY_SECRET",
        "GPU_ADVISOR_ALIYUN_REGIONS=cn-hangzhou",
    ),
    "tencent": (
        r"腾讯云|腾讯|tencent(?: ?cloud)?",
        "TENCENTCLOUD_SECRET_ID, TENCENTCLOUD_SECRET_KEY",
        "GPU_ADVISOR_TENCENT_REGIONS=ap-guangzhou",
    ),
    "huawei": (
        r"华为云|华为|huawei(?: ?cloud)?",
        "HUAWEICLOUD_SDK_AK, HUAWEICLOUD_SDK_SK",
        "GPU_ADVISOR_HUAWEI_REGIONS=cn-north-4",
    ),
    "volcengine": (
        r"火山引擎|火山云|火山|volcengine|volc",
        "VOLCENGINE_ACCESS_KEY, VOLCENGINE_SECRET_KEY",
        "GPU_ADVISOR_VOLCENGINE_REGIONS=cn-beijing",
    ),
    "aws": (
        r"aws|amazon|亚马逊云|亚马逊",
        "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY",
        "GPU_ADVISOR_AWS_REGIONS=us-east-1",
    ),
    "autodl": (r"autodl", "GPU_ADVISOR_AUTODL_TOKEN", ""),
}
_ANY = "|".join(words for words, _, _ in CLOUDS.values())
_VERB = r"(?:接入|连接|连上|对接|关联|绑定|接上|接|集成|同步|导入|添加|加进来)"
_THINGS = r"(?:的)?(?:机器|实例|账号|账户|gpu|资源|服务器)?"
_ASKED = lazy(  # each way of asking names the cloud in a group of its own: c1 … c5
    rf"^(?:请问)?(?:怎么|如何|怎样|咋)(?:才能|能)?(?:把)?\s*{_VERB}?\s*(?P<c1>{_ANY}){_THINGS}\s*{_VERB}?(?:进来)?[?？。]?$"
    rf"|^(?:请问)?(?P<c2>{_ANY}){_THINGS}\s*(?:要|该|应该)?(?:怎么|如何|怎样|咋)\s*{_VERB}(?:进来)?(?:呢|啊)?[?？。]?$"
    rf"|^(?:请问)?(?:你们?|这个|机器人)?(?:支持|能(?:不能)?{_VERB}?|可以{_VERB}?)\s*(?P<c3>{_ANY}){_THINGS}\s*"
    rf"(?:吗|么|不|嘛)[?？。]?$"
    rf"|^how (?:do|can|should) (?:i|we) (?:connect|link|add|hook up|integrate|set up)\s+(?:our |my )?(?P<c4>{_ANY})"
    rf"(?: account| cloud)?\??$"
    rf"|^(?:do you|does it|can you|can it) (?:support|work with|read|connect to) (?P<c5>{_ANY})\??$",
    re.IGNORECASE,
)


def cloud_asked(text: str) -> str | None:
    """Discovery's source of the cloud `text` asks how to connect; None where it asks no such thing."""
    found = _ASKED.match(text.strip())
    if found is None:
        return None
    named = next(found[f"c{n}"] for n in range(1, 6) if found[f"c{n}"])
    return next(source for source, (words, _, _) in CLOUDS.items() if re.fullmatch(words, named, re.IGNORECASE))


def said_of_cloud(inv: Invocation, text: str) -> bool:
    """Whether `text` asks how to connect a cloud (and so was answered)."""
    source = cloud_asked(text)
    if source is None:
        return False
    _, keys, regions = CLOUDS[source]
    where = t("cloud.regions", inv.lang, regions=regions) if regions else ""
    name = t(f"cloud.name.{source}", inv.lang)
    inv.answer(plain(t("cloud.connect", inv.lang, cloud=name, keys=keys, regions=where, source=source), inv.lang))
    return True
