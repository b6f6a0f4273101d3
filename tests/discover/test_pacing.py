"""Issue 49: every cloud's calls are paced under its published limits, across the regions a scan reads at once
(bot/discover/cloud.py `Pacer`; Tencent Cloud's PACE and PAI-DSW's in their modules)."""

from __future__ import annotations

import threading

import pytest

from bot.discover.cloud import Pacer


def test_calls_made_at_once_from_many_threads_take_successive_moments() -> None:
    sleeps: list[float] = []
    lock = threading.Lock()

    def sleep(seconds: float) -> None:
        with lock:
            sleeps.append(seconds)

    pacer = Pacer({"cvm:DescribeInstances": 40.0}, clock=lambda: 10.0, sleep=sleep)  # the clock stands still
    threads = [threading.Thread(target=pacer.wait, args=("cvm:DescribeInstances",)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(sleeps) == pytest.approx([k / 40 for k in range(1, 8)])  # the first at once, then 1/40 s apart


def test_a_call_after_its_moment_waits_nothing_and_an_api_without_a_limit_is_not_paced() -> None:
    now = [0.0]
    sleeps: list[float] = []
    pacer = Pacer({"monitor:GetMonitorData": 20.0}, clock=lambda: now[0], sleep=sleeps.append)
    pacer.wait("monitor:GetMonitorData")
    now[0] = 0.2  # four of its moments later
    pacer.wait("monitor:GetMonitorData")
    pacer.wait("monitor:GetMonitorData")  # right after: waits the rest of 1/20 s
    for _ in range(5):
        pacer.wait("cbs:DescribeDisks")  # no published limit here: retried on throttling only
    assert sleeps == [pytest.approx(1 / 20)]
