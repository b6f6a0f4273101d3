"""Issue 31's first promise, end to end: with the local fakes of Alibaba Cloud and Tencent Cloud standing in, an
untagged Alibaba gn7i instance and an untagged Tencent GPU instance appear under "Found, not tracked" in the
digest with the hourly CNY price each cloud's own price API gives, as a day's cost (not judged idle, with Claim
and Not ours)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.state.rentals import Rentals
from tests.actions.test_stop import digest
from tests.support import fake_aliyun as aliyun
from tests.support import fake_tencent as tencent
from tests.support.slack_harness import running_app


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in {**aliyun.ENV, **tencent.ENV}.items():
        monkeypatch.setenv(key, value)


def test_untagged_instances_of_both_clouds_are_found_with_their_clouds_prices(tmp_path: Path) -> None:
    from bot.server.jobs import jobs_of

    with aliyun.fake_aliyun() as ali, tencent.fake_tencent() as tc:
        ali.prices[("cn-hangzhou", "ecs.gn7i-c8g1.2xlarge")] = 11.62
        a10 = ali.add()  # untagged: nobody's
        tc.price("ap-guangzhou-3", "GN7.2XLARGE32", 8.68)
        t4 = tc.add()
        with running_app(
            tmp_path,
            aliyun_regions="cn-hangzhou",
            aliyun_endpoint=ali.url,
            tencent_regions="ap-guangzhou",
            tencent_endpoint=tc.url,
            discover_channel="C1",
        ) as h:
            jobs = {j.id: j for j in jobs_of(h.settings, h.deps, h.doors())}
            jobs["discover:aliyun"].work()
            jobs["discover:tencent"].work()
            found = {i.provider_id: i for i in Rentals(h.deps.store).instances("T1")}
            assert found[f"aliyun:{a10.id}"].price == 11.62 and found[f"tencent:{t4.id}"].price == 8.68
            text = json.dumps(digest(h)["blocks"], ensure_ascii=False)
            assert "Found, not tracked" in text
            assert f"*{a10.id}*: A10-24GB × 1 (running), ¥279 a day" in text  # 11.62 x 24 = 278.88
            assert f"*{t4.id}*: T4-16GB × 1 (running), ¥208 a day" in text  # 8.68 x 24 = 208.32
