"""`gpu-advise act` and `gpu-advise actions` in the terminal: the policy said back, bad input named."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_cli

ENV = {"GPU_ADVISOR_LANG": "en"}


def test_act_sets_and_says_the_policy(tmp_path: Path) -> None:
    done = run_cli("act", "C0123", "stop", "--grace", "90m", "--team", "T1", env=ENV, tmp=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Idle instances of C0123 are warned" in done.stdout and "90m later" in done.stdout
    project = run_cli("act", "C0123", "off", "--project", "llm", "--team", "T1", env=ENV, tmp=tmp_path)
    assert "project llm in C0123" in project.stdout
    assert json.loads(run_cli("actions", "--team", "T1", "--json", env=ENV, tmp=tmp_path).stdout) == []


def test_act_takes_chats_keys_as_its_flags(tmp_path: Path) -> None:
    """`act C0123 stop grace=90m`, as chat's `act stop grace=4h` (which its own refusal cites), was "more than the
    command takes"."""
    keyed = run_cli("act", "C0123", "stop", "grace=90m", "--team", "T1", env=ENV, tmp=tmp_path)
    assert keyed.returncode == 0 and "90m later" in keyed.stdout, keyed.stderr
    project = run_cli("act", "C0123", "notify", "项目=llm", "--team", "T1", env=ENV, tmp=tmp_path)
    assert project.returncode == 0 and "project llm in C0123" in project.stdout, project.stderr
    twice = run_cli("act", "C0123", "stop", "grace=2h", "--grace", "3h", "--team", "T1", env=ENV, tmp=tmp_path)
    assert twice.returncode == 2 and "--grace is given twice" in twice.stderr
    extra = run_cli("act", "C0123", "stop", "now", "--team", "T1", env=ENV, tmp=tmp_path)
    assert extra.returncode == 2 and "more than the command takes: now" in extra.stderr


def test_bad_act_input_names_what_is_accepted(tmp_path: Path) -> None:
    mode = run_cli("act", "C0123", "halt", "--team", "T1", env=ENV, tmp=tmp_path)
    assert mode.returncode == 2 and "say off, notify or stop" in mode.stderr
    grace = run_cli("act", "C0123", "stop", "--grace", "9d", "--team", "T1", env=ENV, tmp=tmp_path)
    assert grace.returncode == 2 and "--grace: 9d is outside" in grace.stderr and "7d" in grace.stderr
    zh = run_cli("act", "C0123", "halt", "--team", "T1", env={"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path)
    assert zh.returncode == 2 and "不是可用的策略" in zh.stderr


def test_report_budget_and_discover_name_what_was_wrong(tmp_path: Path) -> None:
    """The new commands' bad input: each says what was wrong and what is accepted, and exits 2."""
    cases = [
        (("report", "--from", "2026-11-01", "--team", "T1"), "give both --from and --to"),
        (("report", "--month", "2026-13", "--team", "T1"), "--month: '2026-13' is not a date"),
        (("budget", "llm", "--team", "T1"), "give the amount"),
        (("budget", "no spaces", "100", "--team", "T1"), "is not a usable name"),
        (("discover", "--source", "gcp"), "--source gcp: not a source discovery knows; known: aws"),
    ]
    for args, said in cases:
        done = run_cli(*args, env=ENV, tmp=tmp_path)
        assert done.returncode == 2 and said in done.stderr, (args, done.stderr)


def test_no_action_yet_is_said(tmp_path: Path) -> None:
    """`actions` with none printed nothing at all."""
    shown = run_cli("actions", "--team", "T1", env=ENV, tmp=tmp_path)
    assert shown.returncode == 0 and "No action of T1 yet" in shown.stdout
    zh = run_cli("actions", "--team", "T1", env={"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path)
    assert "T1 还没有任何动作" in zh.stdout


def test_one_instances_actions(tmp_path: Path) -> None:
    """`gpu-advise actions NAME`: one instance's, as chat's `actions NAME`; a name the team has no instance of is
    refused."""
    box = ("--gpu", "A100-80GB", "--price", "400/day", "--channel", "C1", "--owner", "U1", "--team", "T1")
    assert run_cli("track", "instance", "box1", *box, env=ENV, tmp=tmp_path).returncode == 0
    none = run_cli("actions", "box1", "--team", "T1", env=ENV, tmp=tmp_path)
    assert none.returncode == 0 and "No action about box1 yet" in none.stdout, none.stderr
    assert json.loads(run_cli("actions", "box1", "--team", "T1", "--json", env=ENV, tmp=tmp_path).stdout) == []
    unknown = run_cli("actions", "box2", "--team", "T1", env=ENV, tmp=tmp_path)
    assert unknown.returncode == 2 and "no instance named 'box2'" in unknown.stderr
