"""A stop is read again until it has stopped (issue 49): Alibaba Cloud and Tencent Cloud say whether a stopped
instance keeps billing only once it has stopped. `settled` reads after 0.5 s, then twice as long each time up to
10 s, for at most the deadline, with the clock and the sleep injected."""

from __future__ import annotations

from bot.discover.cloud import STOP_SETTLE_S, settled


class Time:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_a_stop_is_read_until_it_has_stopped_waiting_longer_each_time() -> None:
    clock = Time()
    states = iter(["Stopping", "Stopping", "Stopping", "Stopped"])
    found = settled(lambda: next(states), lambda s: s == "Stopping", sleep=clock.sleep, clock=lambda: clock.now)
    assert found == "Stopped" and clock.slept == [0.5, 1.0, 2.0]


def test_a_stop_still_under_way_at_the_deadline_is_given_as_it_was_read_last() -> None:
    clock = Time()
    reads = []

    def read() -> str:
        reads.append(clock.now)
        return "Stopping"

    found = settled(read, lambda s: s == "Stopping", sleep=clock.sleep, clock=lambda: clock.now)
    assert found == "Stopping" and clock.now == STOP_SETTLE_S  # not a second more than the deadline
    assert max(clock.slept) == 10.0 and len(reads) == len(clock.slept) + 1


def test_a_stop_already_over_is_read_once() -> None:
    clock = Time()
    found = settled(lambda: "Stopped", lambda s: s == "Stopping", sleep=clock.sleep, clock=lambda: clock.now)
    assert found == "Stopped"
    assert clock.slept == []
