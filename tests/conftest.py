from __future__ import annotations

import pytest

from rules.policy import Policy, load_policy


@pytest.fixture(scope="session")
def policy() -> Policy:
    return load_policy()
