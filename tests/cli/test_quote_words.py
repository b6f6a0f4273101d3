"""`gpu-advise quote H100 4x14`: the words after quote read as chat's quote reads them (it was "more than the
command takes: H100"), each standing for its flag; what is read as nothing, or given twice, is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import run_cli

EN = {"GPU_ADVISOR_LANG": "en"}


@pytest.mark.parametrize(
    ("words", "flags"),
    [(["H100", "4x14"], ["--gpu", "H100", "--hours-per-day", "4", "--days", "14"]),
     (["A100", "8卡", "包月"], ["--gpu", "A100", "--cards", "8", "--schedule", "包月"]),
     (["A100*8", "4x14"], ["--gpu", "A100", "--cards", "8", "--schedule", "4x14"]),
     (["A100", "40G", "半卡", "每天4小时", "14天"], ["--gpu", "A100-40GB", "--share", "1/2", "--schedule", "4x14"]),
     (["H100", "100", "gpu", "hours"], ["--gpu", "H100", "--gpu-hours", "100"]),
     (["910B", "4x14", "美元"], ["--gpu", "910B", "--schedule", "4x14", "--currency", "USD"]),
     # chat's keys, as its help shows them (they were "not read")
     (["gpu=H100", "hours=4x14", "cards=8"], ["--gpu", "H100", "--schedule", "4x14", "--cards", "8"]),
     (["H100", "4x14", "share=1/2"], ["--gpu", "H100", "--schedule", "4x14", "--share", "1/2"]),
     (["卡型=4090", "计划=4x14", "currency=USD", "存储=500"],
      ["--gpu", "4090", "--schedule", "4x14", "--currency", "USD", "--storage-gb", "500"]),
     (["gpu=A100", "gpu_hours=100", "region=inland"], ["--gpu", "A100", "--gpu-hours", "100", "--region", "inland"]),
     # asked as in chat, the question's words around the run (they were "not read")
     (["8张H100跑一周多少钱"], ["--gpu", "H100", "--cards", "8", "--hours-per-day", "24", "--days", "7"]),
     (["how", "much", "is", "an", "H100", "for", "a", "week"],
      ["--gpu", "H100", "--hours-per-day", "24", "--days", "7"])],
)  # fmt: skip
def test_the_words_are_the_flags_they_stand_for(words: list[str], flags: list[str], tmp_path: Path) -> None:
    said = run_cli("quote", *words, "--json", env=EN, tmp=tmp_path)
    flagged = run_cli("quote", *flags, "--json", env=EN, tmp=tmp_path)
    assert said.returncode == 0 == flagged.returncode, said.stderr + flagged.stderr
    assert json.loads(said.stdout) == json.loads(flagged.stdout)


def test_words_read_as_nothing_or_given_twice_are_refused(tmp_path: Path) -> None:
    stray = run_cli("quote", "H100", "4x14", "哈哈", env=EN, tmp=tmp_path)
    assert stray.returncode == 2 and "`哈哈` is not read" in stray.stderr and "--flag" in stray.stderr
    unknown = run_cli("quote", "H100", "4x14", "foo=1", env=EN, tmp=tmp_path)
    assert unknown.returncode == 2 and "unknown key 'foo'; keys: cards, compare" in unknown.stderr
    bad = run_cli("quote", "gpu=H100", "hours=4x14", "storage=lots", env=EN, tmp=tmp_path)
    assert bad.returncode == 2 and "storage=lots is not read: give a number of 0 or more" in bad.stderr
    for keyed, flag in ((["gpu=A100", "--gpu", "H100"], "--gpu"), (["cards=2", "--cards", "4"], "--cards")):
        twice = run_cli("quote", *keyed, env=EN, tmp=tmp_path)
        assert twice.returncode == 2 and f"{flag} is given twice" in twice.stderr, (keyed, twice.stderr)
    compared = run_cli("quote", "gpu=H100", "hours=4x14", "compare=yes", "--json", env=EN, tmp=tmp_path)
    assert compared.returncode == 0 and "offers" in json.loads(compared.stdout), compared.stderr
    for extra in (["--gpu", "A100"], ["--schedule", "2x3"], ["--gpu-hours", "5"]):
        twice = run_cli("quote", "H100", "4x14", *extra, env=EN, tmp=tmp_path)
        assert twice.returncode == 2 and "given twice" in twice.stderr, (extra, twice.stderr)
    zh = run_cli("quote", "H100", "哈哈", env={"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path)
    assert zh.returncode == 2 and "无法识别 `哈哈`" in zh.stderr


def test_prices_list_takes_the_gpu_as_said(tmp_path: Path) -> None:
    """`gpu-advise prices list H100` answered "more than the command takes: H100"."""
    said = run_cli("prices", "list", "A100", "40G", "--json", env=EN, tmp=tmp_path)
    flagged = run_cli("prices", "list", "--gpu", "A100-40GB", "--json", env=EN, tmp=tmp_path)
    assert said.returncode == 0 and json.loads(said.stdout) == json.loads(flagged.stdout) != []
    twice = run_cli("prices", "list", "H100", "--gpu", "A100", env=EN, tmp=tmp_path)
    assert twice.returncode == 2 and "prices list: --gpu is given twice" in twice.stderr
    unknown = run_cli("prices", "list", "哈哈", env=EN, tmp=tmp_path)
    assert unknown.returncode == 2 and "unknown GPU model '哈哈'" in unknown.stderr


def test_prices_list_takes_several_gpus(tmp_path: Path) -> None:
    """`prices list A100 H100`: each one's rows (it was refused as one unknown GPU 'A100 H100')."""
    both = json.loads(run_cli("prices", "list", "A100", "H100", "--json", env=EN, tmp=tmp_path).stdout)
    assert {row["gpu"] for row in both} == {"A100-80GB", "H100-80GB"}
    assert [row["gpu"] for row in both] == sorted((row["gpu"] for row in both), key=["A100-80GB", "H100-80GB"].index)


def test_a_question_of_prices_alone_says_the_commands_that_answer_it(tmp_path: Path) -> None:
    """`quote A100多少钱` asks a GPU's prices, with no run to quote: it was "`多少钱` is not read"; it says the two
    commands to send, each of which works as said."""
    asked = run_cli("quote", "AutoDL上4090多少钱", env=EN, tmp=tmp_path)
    assert asked.returncode == 2 and "asks for prices, and a quote needs a run" in asked.stderr, asked.stderr
    assert "`gpu-advise prices RTX4090-24GB`" in asked.stderr and "`gpu-advise quote RTX4090-24GB 4x14`" in asked.stderr
    assert run_cli("prices", "RTX4090-24GB", env=EN, tmp=tmp_path).returncode == 0
    assert run_cli("quote", "RTX4090-24GB", "4x14", env=EN, tmp=tmp_path).returncode == 0
    unknown = run_cli("quote", "MI300X多少钱", env=EN, tmp=tmp_path)
    assert unknown.returncode == 2 and "is not read" in unknown.stderr  # no known GPU: nothing to suggest
