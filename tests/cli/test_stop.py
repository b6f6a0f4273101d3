"""`gpu-advise stop`: a stop asked for from the terminal, kept for `serve`'s actions job (chat's `stop NAME at=…`);
listed, called off, refused with the flag named and nothing kept for a time not to come."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot.state import Store
from bot.state.actions import Actions
from bot.state.rentals import Rentals
from tests.metering.test_terminal import cli, track


def _asked(tmp: Path) -> list[tuple[str | None, str]]:
    store = Store(f"sqlite:///{tmp / 'advisor.state.db'}")
    ids = [i.id for i in Rentals(store).instances("T1")]
    return [(w.asked_by, w.status) for w, _ in Actions(store).history("T1")] if ids else []


def test_a_stop_asked_from_the_terminal_is_kept_listed_and_called_off(tmp_path: Path) -> None:
    track(tmp_path, "box1", "14/h", datetime.now(UTC) - timedelta(hours=2))
    refused = cli(tmp_path, "stop", "box1")  # tracked by hand: nothing to stop now
    assert refused.returncode == 2 and "cannot stop box1" in refused.stdout + refused.stderr
    asked = cli(tmp_path, "stop", "box1", "--at", "in 2h", "--json")
    assert asked.returncode == 0, asked.stderr
    said = json.loads(asked.stdout)
    at = datetime.fromisoformat(said["at"])
    assert said["item"] == "box1" and said["how"] == "reminder" and timedelta(hours=1) < at - datetime.now(UTC)
    listed = cli(tmp_path, "stop", "--json")
    assert [row["item"] for row in json.loads(listed.stdout)] == ["box1"]
    [row] = json.loads(cli(tmp_path, "list", "--json").stdout)["instances"]
    assert row["stop_asked_for"] == said["at"]  # `list --json` says it too
    assert "box1\t" in cli(tmp_path, "stop").stdout and _asked(tmp_path) == [("terminal", "warned")]
    again = cli(tmp_path, "stop", "box1", "--at", "tomorrow 9am", "--remind", "--json")
    assert json.loads(again.stdout)["replaced"] == said["at"]
    called = cli(tmp_path, "stop", "box1", "--cancel")
    assert called.returncode == 0 and "called off" in called.stdout
    assert cli(tmp_path, "stop", "box1", "--cancel").returncode == 2  # nothing left to call off
    assert "No stop is asked for" in cli(tmp_path, "stop").stdout


def test_a_time_not_to_come_is_refused_naming_the_flag_in_the_terminals_language(tmp_path: Path) -> None:
    track(tmp_path, "box1", "14/h", datetime.now(UTC) - timedelta(hours=2))
    for at, said in (("yesterday 9:00", "--at: 'yesterday 9:00' is not a time to come"), ("in 40d", "31 days")):
        refused = cli(tmp_path, "stop", "box1", "--at", at)
        assert refused.returncode == 2 and said in refused.stderr, refused.stderr
    zh = cli(tmp_path, "stop", "box1", "--at", "soon", lang="zh")
    assert zh.returncode == 2 and "不是将来的时间" in zh.stderr
    assert cli(tmp_path, "stop", "nobox", "--at", "in 1h").returncode == 2
    assert _asked(tmp_path) == []
    both = cli(tmp_path, "stop", "box1", "--once-idle", "--at", "in 1h")
    assert both.returncode == 2 and "--once-idle takes neither --at nor --remind" in both.stderr
    assert "cannot stop box1" in cli(tmp_path, "stop", "box1", "--once-idle").stderr  # by hand: none to stop
