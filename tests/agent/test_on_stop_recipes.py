"""The `--on-stop` recipes the tracking page gives per platform (docs/tracking.md, between its on-stop markers)
run as the agent runs them: each through the agent's stop runner, with a stand-in for its command first on PATH
that records the words it was given; the result the agent reports is the command's exit."""

from __future__ import annotations

import os
import re
import shlex
import stat
from pathlib import Path

import pytest

from bot.agent.run import Stops

ROOT = Path(__file__).parents[2]


def recipes() -> dict[str, str]:
    page = (ROOT / "docs" / "tracking.md").read_text(encoding="utf-8")
    block = page.split("<!-- on-stop:start -->")[1].split("<!-- on-stop:end -->")[0]
    found = {}
    for item in block.split("\n- ")[1:]:
        platform = item.split(":", 1)[0].split("(")[0].strip()
        command = re.search(r"`([^`]+)`", item)
        if command and "--on-stop" not in item.split(":", 1)[0]:
            found[platform] = command.group(1)
    return found


def test_the_page_gives_a_recipe_for_autodl_and_for_a_vm() -> None:
    assert recipes() == {"AutoDL": "shutdown -h now", "A VM of your own": "sudo shutdown -h now"}


@pytest.mark.e2e  # runs the recipe's command (a stand-in of it) as a process
@pytest.mark.parametrize(("platform", "command"), sorted(recipes().items()))
def test_each_recipe_runs_its_command_once_and_reports_its_exit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, platform: str, command: str
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    said = tmp_path / "said"
    for name in {shlex.split(command)[0], "shutdown"}:
        stand_in = bin_dir / name
        # sudo passes the rest on; shutdown records what it was asked
        body = 'exec "$@"' if name == "sudo" else f'echo "$0 $*" >> {said}'
        stand_in.write_text(f"#!/bin/sh\n{body}\n")
        stand_in.chmod(stand_in.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    stops = Stops(command)
    stops.asked({"action": {"id": 7, "kind": "stop"}})
    stops.asked({"action": {"id": 7, "kind": "stop"}})  # asked again: run once
    report = stops.report()
    assert report is not None and report["action_result"]["ok"] is True, report
    assert report["action_result"]["detail"].startswith(f"{command}: exit 0")
    lines = said.read_text().splitlines()
    assert len(lines) == 1 and lines[0].endswith("shutdown -h now"), (platform, lines)


@pytest.mark.e2e  # runs the stand-in command as a process
def test_a_failed_stop_is_tried_once_more_and_both_results_are_said(tmp_path: Path) -> None:
    """Issue 34.18: a stop command that fails (a package manager holding shutdown) is tried again, once."""
    tries = tmp_path / "tries"
    script = tmp_path / "power-off"
    # fails the first time, works the second
    script.write_text(f'#!/bin/sh\necho x >> {tries}\n[ "$(wc -l < {tries})" -ge 2 ] || {{ echo busy >&2; exit 1; }}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    stops = Stops(str(script), retry_after_s=0)
    stops.asked({"action": {"id": 9, "kind": "stop"}})
    report = stops.report()
    assert report is not None and report["action_result"]["ok"] is True
    assert "tried twice" in report["action_result"]["detail"] and "exit 1: busy" in report["action_result"]["detail"]
    assert len(tries.read_text().splitlines()) == 2
    stops.asked({"action": {"id": 9, "kind": "stop"}})  # the same stop asked again: not run a third time
    assert len(tries.read_text().splitlines()) == 2


def test_the_enrollment_command_can_act_on_a_stop() -> None:
    from bot.state.enrollment import agent_command

    command = agent_command("https://bot.example.com", "tok")
    assert shlex.split(command)[-2:] == ["--on-stop", "shutdown -h now"]  # a box enrolled with it can be stopped
