"""What a test's run logged, as people reading serve's log would see it."""

from __future__ import annotations

import logging

import pytest


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Every line logged at WARNING or above, from any thread of the process, as it reads."""
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
