"""`gpu-advise track instance 训练机 A800 8卡 每小时60元 --channel C1 --owner U1`: the words after the name read as
chat's track reads them (it was "missing '--gpu'", then "more than the command takes"), each standing for its flag."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_cli

EN = {"GPU_ADVISOR_LANG": "en"}
WHERE = ("--channel", "C1", "--owner", "U1", "--team", "T1")


def listed(tmp_path: Path) -> dict[str, dict[str, object]]:
    shown = json.loads(run_cli("list", "--team", "T1", "--json", env=EN, tmp=tmp_path).stdout)["instances"]
    return {row["name"]: row for row in shown}


def test_the_words_are_the_flags_they_stand_for(tmp_path: Path) -> None:
    said = run_cli("track", "instance", "a", "A800", "8卡", "每小时60元", *WHERE, env=EN, tmp=tmp_path)
    flagged = run_cli(
        "track", "instance", "b", "--gpu", "A800", "--cards", "8", "--price", "60元/小时", *WHERE, env=EN, tmp=tmp_path
    )
    assert said.returncode == 0 == flagged.returncode, said.stderr + flagged.stderr
    dollars = run_cli("track", "instance", "c", "H100", "$2.5/h", "autodl", "包月", *WHERE, env=EN, tmp=tmp_path)
    assert dollars.returncode == 0, dollars.stderr
    rows = listed(tmp_path)
    keys = ("gpu", "cards", "price", "currency", "unit", "billing")
    assert {k: rows["a"][k] for k in keys} == {k: rows["b"][k] for k in keys}
    assert (rows["a"]["gpu"], rows["a"]["cards"], rows["a"]["price"]) == ("A800-80GB", 8, 60.0)
    assert (rows["c"]["currency"], rows["c"]["provider"], rows["c"]["billing"]) == ("USD", "autodl", "month")
    monthly = run_cli("track", "instance", "d", "A800", "8卡", "包月", "12000", *WHERE, env=EN, tmp=tmp_path)
    assert monthly.returncode == 0, monthly.stderr  # an amount alone after 包月: the month's, as chat reads it
    assert (listed(tmp_path)["d"]["price"], listed(tmp_path)["d"]["unit"]) == (12000.0, "month")


def test_words_read_as_nothing_twice_or_no_gpu_are_refused(tmp_path: Path) -> None:
    stray = run_cli("track", "instance", "x", "H100", "哈哈", *WHERE, env=EN, tmp=tmp_path)
    assert stray.returncode == 2 and "`哈哈` is not a GPU" in stray.stderr and "read: gpu=H100" in stray.stderr
    twice = run_cli("track", "instance", "x", "H100", "--gpu", "A100", *WHERE, env=EN, tmp=tmp_path)
    assert twice.returncode == 2 and "--gpu is given twice" in twice.stderr
    none = run_cli("track", "instance", "x", *WHERE, env=EN, tmp=tmp_path)
    assert none.returncode == 2 and "missing '--gpu'" in none.stderr
    assert listed(tmp_path) == {}


def test_track_with_the_name_first_is_an_instance_as_in_chat(tmp_path: Path) -> None:
    """`gpu-advise track 训练机 A800 8卡 每小时60元`, as chat's `track NAME …`, answered "No such command '训练机'"."""
    said = run_cli("track", "训练机", "A800", "8卡", "每小时60元", *WHERE, env=EN, tmp=tmp_path)
    assert said.returncode == 0, said.stderr
    flagged = run_cli("track", "instance", "b", "A800", "8卡", "每小时60元", *WHERE, env=EN, tmp=tmp_path)
    rows = listed(tmp_path)
    keys = ("gpu", "cards", "price", "currency", "unit")
    assert flagged.returncode == 0 and {k: rows["训练机"][k] for k in keys} == {k: rows["b"][k] for k in keys}
    kept = run_cli("track", "storage", "d1", "500G", "每月0.7元/G", *WHERE, env=EN, tmp=tmp_path)
    assert kept.returncode == 0, kept.stderr  # the sub-commands are still theirs
    assert run_cli("track", "--bogus", env=EN, tmp=tmp_path).returncode == 2  # an option is no name


def test_chats_keys_are_the_flags_they_stand_for(tmp_path: Path) -> None:
    """`track box H100 60/h provider=autodl` (the balance's own hint) and `track storage d1 size=500 price=0.7` (chat's
    help) were "not read": chat's keys are their flags; an unknown key is refused listing the keys, one given as its
    flag too as given twice."""
    keyed = run_cli("track", "a", "A800", "8卡", "60/h", "provider=autodl", "项目=llm", *WHERE, env=EN, tmp=tmp_path)
    flagged = run_cli(
        "track", "b", "A800", "8卡", "60/h", "--provider", "autodl", "--project", "llm", *WHERE, env=EN, tmp=tmp_path
    )
    assert keyed.returncode == 0 == flagged.returncode, keyed.stderr + flagged.stderr
    rows = listed(tmp_path)
    keys = ("gpu", "cards", "price", "provider", "project")
    assert {k: rows["a"][k] for k in keys} == {k: rows["b"][k] for k in keys} and rows["a"]["provider"] == "autodl"
    disk = run_cli("track", "storage", "d1", "size=500", "price=0.7", *WHERE, env=EN, tmp=tmp_path)
    assert disk.returncode == 0 and "Tracking storage d1: ¥350 a month" in disk.stdout, disk.stderr
    unknown = run_cli("track", "c", "H100", "foo=1", *WHERE, env=EN, tmp=tmp_path)
    assert unknown.returncode == 2 and "unknown key 'foo'; keys: billing, cards" in unknown.stderr
    twice = run_cli("track", "storage", "d2", "size=1T", "--size-gb", "500", "0.7", *WHERE, env=EN, tmp=tmp_path)
    assert twice.returncode == 2 and "--size-gb is given twice" in twice.stderr
    assert set(listed(tmp_path)) == {"a", "b"}  # nothing written by what was refused
