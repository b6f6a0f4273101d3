"""The waits between Slack retries follow `slack_retry_backoff_s`: b..2b, then 2b..4b, ... (jitter up to the
step itself), not slack_sdk's default of up to a second more whatever the back-off."""

from __future__ import annotations

import random

from bot.slack.retries import ScaledJitter, ServerError, retry_handlers


def test_each_wait_is_between_its_step_and_twice_it() -> None:
    server = next(h for h in retry_handlers(backoff_s=0.01) if isinstance(h, ServerError))
    waits = [server.interval_calculator.calculate_sleep_duration(attempt) for attempt in range(3) for _ in range(200)]
    for attempt in range(3):
        step = 0.01 * 2**attempt
        these = waits[attempt * 200 : (attempt + 1) * 200]
        assert min(these) >= step and max(these) <= 2 * step
        assert max(these) > min(these)  # drawn, not fixed


def test_the_jitter_adds_what_it_draws_times_the_step() -> None:
    assert ScaledJitter(lambda: 0.0).recalculate(0.5) == 0.5
    assert ScaledJitter(lambda: 0.25).recalculate(2.0) == 2.5


def test_a_wait_draws_from_its_own_generator_not_the_processs() -> None:
    """A retry on a listener's thread moved `random`'s shared state under whatever else used it (hypothesis warned
    of a draw changing it mid-test)."""
    before = random.getstate()
    waits = [ScaledJitter().recalculate(1.0) for _ in range(50)]
    assert random.getstate() == before
    assert all(1.0 <= w < 2.0 for w in waits) and len(set(waits)) > 1
