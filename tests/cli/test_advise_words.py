"""`gpu-advise advise 10h mem=70/80 mp=no freq=daily resume=no`: answers typed after advise as chat takes them (it
was "more than the command takes"), each as its flag; what is no answer, or answered twice, is refused."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_cli

EN = {"GPU_ADVISOR_LANG": "en"}
FLAGS = ("--duration", "10h", "--memory-peak", "70/80", "--model-parallel", "no", "--frequency", "daily")


def test_answers_typed_as_in_chat_are_the_flags(tmp_path: Path) -> None:
    flagged = run_cli("advise", *FLAGS, "--can-resume", "no", "--workload", "lora", "--json", env=EN, tmp=tmp_path)
    typed = run_cli(
        "advise", "lora", "10h", "mem=70/80", "mp=no", "freq=daily", "resume=不能", "--json", env=EN, tmp=tmp_path
    )
    assert flagged.returncode == 0 == typed.returncode, typed.stderr
    assert json.loads(typed.stdout)["choice"] == json.loads(flagged.stdout)["choice"] == "dedicated"
    assert json.loads(typed.stdout)["profile"] == json.loads(flagged.stdout)["profile"]
    mixed = run_cli("advise", "10h", "mem=70/80", "--model-parallel", "no", "freq=daily", "resume=no", "--json",
                    env=EN, tmp=tmp_path)  # fmt: skip
    assert mixed.returncode == 0 and json.loads(mixed.stdout)["hits"] == json.loads(flagged.stdout)["hits"]


def test_words_that_are_no_answers_or_answer_twice_are_refused(tmp_path: Path) -> None:
    words = run_cli("advise", "hello", "world", "--no-interactive", env=EN, tmp=tmp_path)
    assert words.returncode == 2 and "`hello world` are no answers" in words.stderr
    twice = run_cli("advise", "10h", "mem=70/80", "--duration", "3h", "--no-interactive", env=EN, tmp=tmp_path)
    assert twice.returncode == 2 and "--duration is answered twice" in twice.stderr
    key = run_cli("advise", "10h", "foo=bar", "--no-interactive", env=EN, tmp=tmp_path)
    assert key.returncode == 2 and "unknown key 'foo'" in key.stderr
    zh = run_cli("advise", "你好", "--no-interactive", env={"GPU_ADVISOR_LANG": "zh"}, tmp=tmp_path)
    assert zh.returncode == 2 and "不是答案" in zh.stderr


def test_a_job_described_a_clause_each_is_its_answers(tmp_path: Path) -> None:
    """`gpu-advise advise "7B LoRA, 3小时, 能中断, 不需要多卡, 每天跑"`: the description chat reads (rules/clauses.py),
    each clause said back as its flag; a clause no question reads (a bare yes or no) is refused, naming it."""
    said = "7B LoRA, 3小时, 能中断, 不需要多卡, 每天跑"
    typed = run_cli("advise", said, "--json", env=EN, tmp=tmp_path)
    flagged = run_cli(
        "advise", "--workload", "lora", "--duration", "3h", "--memory-peak", "7B LoRA", "--model-parallel", "no",
        "--frequency", "daily", "--can-resume", "yes", "--json", env=EN, tmp=tmp_path,
    )  # fmt: skip
    assert typed.returncode == 0 == flagged.returncode, typed.stderr
    assert json.loads(typed.stdout)["choice"] == json.loads(flagged.stdout)["choice"] == "shared"
    assert "--duration read as 3 h (from “3小时”)" in typed.stderr, typed.stderr
    unread = run_cli("advise", "7B LoRA, 3小时, 需要", "--no-interactive", env=EN, tmp=tmp_path)
    assert unread.returncode == 2 and "`需要` are no answers" in unread.stderr, unread.stderr
