"""Issue 53.15: a listing that never ends (Alibaba answering the same NextToken; Tencent a TotalCount of 10^9 with
the same rows; AutoDL a result_total of 10^9) was followed for ever (12,971 calls in 300 s, nothing printed, the
scan's claim held). It stops with one problem line, and what its pages gave is kept."""

from __future__ import annotations

import httpx
import pytest

from bot.discover.aliyun import Aliyun
from bot.discover.autodl import AutoDL
from bot.discover.tencent import Tencent
from bot.tls import shared_context
from tests.support.fake_aliyun import ENV as ALIYUN_ENV
from tests.support.fake_aliyun import fake_aliyun
from tests.support.fake_autodl import TOKEN, fake_autodl
from tests.support.fake_tencent import ENV as TENCENT_ENV
from tests.support.fake_tencent import fake_tencent


def test_alibaba_answering_the_same_next_token_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ALIYUN_ENV.items():
        monkeypatch.setenv(name, value)
    with fake_aliyun() as fake:
        box = fake.add()
        fake.endless = True
        scan = Aliyun(("cn-hangzhou",), fake.url, sleep=lambda _s: None).scan()
        calls = len([c for c in fake.calls if c[0] == "DescribeInstances"])
    assert calls <= 3 and "the same NextToken came back" in scan.problems["cn-hangzhou"]
    assert [f.key for f in scan.found if f.kind == "instance"] == [f"aliyun:{box.id}"]  # kept, once
    assert scan.regions_ok == []  # not complete: nothing in it is released for not being seen


def test_tencent_and_autodl_answering_the_same_rows_for_ever_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in TENCENT_ENV.items():
        monkeypatch.setenv(name, value)
    with fake_tencent() as fake:
        fake.add()
        fake.endless = True
        scan = Tencent(("ap-guangzhou",), fake.url, sleep=lambda _s: None, clock=lambda: 100.0).scan()
    assert "the same rows came back" in scan.problems["ap-guangzhou"] and len(scan.found) == 1
    with fake_autodl() as auto, httpx.Client(verify=shared_context()) as client:
        auto.add("pro-1a2b3c")
        auto.endless = True
        found = AutoDL(auto.url, TOKEN, client).scan()
    assert "the same rows came back" in found.problems["autodl"] and [f.key for f in found.found] == [
        "autodl:pro-1a2b3c"
    ]
