"""Issue 53.20: a newcomer's first serve logged about forty lines of Alembic's migration docstrings at INFO; and in
ws mode, with Feishu's long connection refused, /healthz said ok while Feishu was only "connecting"."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.deps import build_deps
from bot.server.health import health
from bot.settings import Settings
from bot.state import Store
from tests.support.state_template import with_migrated_state


def test_a_fresh_database_is_migrated_in_one_line(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        Store(f"sqlite:///{tmp_path / 'fresh.db'}")
    alembic = [r for r in caplog.records if r.name.startswith("alembic") and r.levelno <= logging.INFO]
    ours = [r.getMessage() for r in caplog.records if r.name == "bot.state.migrate"]
    assert alembic == [] and len(ours) == 1 and ours[0].startswith("state database migrated from empty to ")


@pytest.mark.parametrize(("state", "status"), [("connecting", "degraded"), ("failed: 1000040345", "degraded"),
                                               ("connected", "ok")])  # fmt: skip
def test_a_chat_not_connected_yet_makes_serve_degraded(tmp_path: Path, state: str, status: str) -> None:
    # what it checks is the chats, not the migrations
    deps = build_deps(with_migrated_state(Settings(db=tmp_path / "bot.db", azure_enabled=False, ecb_enabled=False)))
    code, report = health(deps, None, lambda: {"feishu": {"mode": "ws", "state": state}})
    assert code == 200 and report["checks"]["chats"]["feishu"]["state"] == state
    without = health(deps, None, None)[1]["status"]  # what the rest says (the price sources' freshness)
    assert report["status"] == (status if status == "degraded" else without)
