"""How to connect a cloud, asked in words: it was answered with `track`'s and `enroll`'s help lines, which never say
that a cloud's GPU machines are found by themselves; and `闲置多久算闲置` was refused as words `idle` does not take."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app.cloud_asked import cloud_asked
from tests.chat.test_both_platforms import driving


@pytest.mark.parametrize(
    ("said", "source"),
    [
        ("怎么接入阿里云", "aliyun"),
        ("腾讯云的机器怎么接入", "tencent"),
        ("支持华为云吗", "huawei"),
        ("能接入火山引擎吗", "volcengine"),
        ("怎么把autodl接进来", "autodl"),
        ("how do I connect AWS", "aws"),
        ("how do we connect our alibaba cloud account?", "aliyun"),
        ("does it work with aliyun", "aliyun"),
        ("怎么登记机器", None),  # a how-to of another thing: the help's lines, as before
        ("阿里云A100多少钱", None),  # a price asked
        ("怎么接入agent", None),
        ("阿里云", None),
    ],
)
def test_the_cloud_a_how_to_connect_asks_after(said: str, source: str | None) -> None:
    assert cloud_asked(said) == source


def test_connecting_a_cloud_asked_says_what_the_admin_sets_and_the_idle_rule_asked_after_idle(tmp_path: Path) -> None:
    with driving("dingtalk", tmp_path) as chat:
        said = chat.command("怎么接入阿里云")
        for part in ("ALIBABA_CLOUD_ACCESS_KEY_ID", "GPU_ADVISOR_ALIYUN_REGIONS=cn-hangzhou",
                     "`gpu-advise discover --source aliyun`", "请不要把密钥发在聊天里", "`enroll`"):  # fmt: skip
            assert part in said, (part, said)
        english = chat.command("how do I connect AWS")
        assert "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY" in english and "Never paste a key in a chat" in english
        autodl = chat.command("怎么把autodl接进来")
        assert "GPU_ADVISOR_AUTODL_TOKEN" in autodl and "地域" not in autodl  # AutoDL has no regions to set
        for asked in ("闲置多久算闲置", "闲置的标准是什么", "闲置怎么算"):
            rule = chat.command(asked)
            assert "判定闲置：最近 60 分钟里每块 GPU 的利用率都不超过 5%" in rule, (asked, rule)
        assert "后面不带参数" in chat.command("闲置 哈哈")  # other words after it: refused as before
        for asked in ("闲置的机器会怎么处理", "what happens to idle boxes here"):  # what is done here, not what is idle
            policy = chat.command(asked)
            assert "`act stop [grace=4h]`" in policy and "60" in policy, (asked, policy)
