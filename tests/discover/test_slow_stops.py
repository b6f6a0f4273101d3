"""Issue 49: every stop is what the cloud says after it. A PAI-DSW notebook, a Tencent HAI server and an AutoDL Pro
instance each take a while to stop (Stopping, STOPPING, shutting_down), as the real ones do: the stop is read again
until it has stopped (bot/discover/cloud.py `settled`), never described while it is still stopping; one still
stopping at the deadline is said as stopping, which the actions take as no stop (tests/actions/test_stop_aliyun.py
holds the ECS and CVM cases). Each against its local fake with the official SDK (or AutoDL's API over httpx)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from bot.actions.due import _not_a_stop
from bot.discover import cloud as cloud_base
from bot.discover.aliyun_dsw import AliyunDsw
from bot.discover.autodl import AutoDL
from bot.discover.cloud import Stopped
from bot.discover.tencent_hai import TencentHai
from bot.tls import shared_context
from tests.support import fake_aliyun, fake_tencent
from tests.support.fake_autodl import TOKEN, fake_autodl

# (the cloud's stop of one running item, made with the fake's stop taking `takes_s`; how many status reads it made)
Stop = Callable[[float], tuple[Stopped, int]]


@contextmanager
def dsw(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stop]:
    for key, value in fake_aliyun.ENV.items():
        monkeypatch.setenv(key, value)
    with fake_aliyun.fake_aliyun() as fake:
        fake.types["ecs.gn7i-c8g1.2xlarge"] = ("NVIDIA A10", 1)
        notebook = fake.notebook(name="nb")

        def stop(takes_s: float) -> tuple[Stopped, int]:
            fake.stop_takes_s = takes_s
            done = AliyunDsw(("cn-hangzhou",), fake.url).stop("cn-hangzhou", notebook.id)
            return done, fake.actions().count("GetInstance")

        yield stop


@contextmanager
def hai(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stop]:
    for key, value in fake_tencent.ENV.items():
        monkeypatch.setenv(key, value)
    with fake_tencent.fake_tencent() as fake:
        server = fake.server(name="sd-webui")

        def stop(takes_s: float) -> tuple[Stopped, int]:
            fake.stop_takes_s = takes_s
            done = TencentHai(("ap-guangzhou",), fake.url).stop("ap-guangzhou", server.id)
            return done, fake.actions().count("DescribeInstances")

        yield stop


@contextmanager
def autodl(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stop]:
    with fake_autodl() as fake, httpx.Client(verify=shared_context()) as client:
        fake.add("pro-1a2b3c", name="train-4090")

        def stop(takes_s: float) -> tuple[Stopped, int]:
            fake.stop_takes_s = takes_s
            done = AutoDL(fake.url, TOKEN, client).stop("", "pro-1a2b3c")
            return done, sum(r.path.endswith("/pro/status") for r in fake.seen)

        yield stop


CLOUDS: dict[str, Callable[[pytest.MonkeyPatch], Any]] = {"dsw": dsw, "hai": hai, "autodl": autodl}


@pytest.mark.parametrize("name", list(CLOUDS))
def test_a_stop_that_takes_a_while_is_read_until_it_has_stopped(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with CLOUDS[name](monkeypatch) as stop:
        done, reads = stop(0.3)  # still stopping at the first read, stopped at the read 0.5 s later
    assert (done.state, done.charging) == ("stopped", False)
    assert reads >= 2  # read while it was stopping, then again


@pytest.mark.parametrize("name", list(CLOUDS))
def test_a_stop_still_under_way_at_the_deadline_is_said_as_stopping(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cloud_base, "STOP_SETTLE_S", 0.6)  # the deadline (3 minutes) shortened; the stop takes an hour
    with CLOUDS[name](monkeypatch) as stop:
        done, reads = stop(3600.0)
    assert (done.state, done.charging) == ("stopping", None) and reads >= 2  # whether it bills on: not said yet
    assert _not_a_stop(done, "i-1") is not None  # the actions take it as no stop: tried again, never said saved
