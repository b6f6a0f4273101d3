"""Issue 53.21: click's usage errors were English under LANG=zh_CN.UTF-8, and `prices status --lang en` was "No
such option". A usage error is said in the terminal's language, naming the option, with where the help is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import run_process

ZH = {"LANG": "zh_CN.UTF-8", "LC_ALL": "zh_CN.UTF-8"}


@pytest.mark.e2e  # a real process: the usage errors are said by the entry point, as a person runs it
def test_usage_errors_are_said_in_the_terminals_language(tmp_path: Path) -> None:
    unknown = run_process("prices", "status", "--bogus", env=ZH, tmp=tmp_path)
    assert unknown.returncode == 2 and unknown.stderr.strip() == (
        "没有这个选项：--bogus。请运行 `gpu-advise prices status --help` 查看用法。"
    )
    empty = run_process("advise", "--duration", env=ZH, tmp=tmp_path)
    assert empty.returncode == 2 and "--duration 需要一个值" in empty.stderr and "Traceback" not in empty.stderr
    english = run_process("prices", "status", "--lang", "en", "--json", env=ZH, tmp=tmp_path)
    assert english.returncode == 0 and '"source": "ratecard"' in english.stdout
    said_en = run_process("prices", "status", "--bogus", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert said_en.returncode == 2 and "no such option: --bogus" in said_en.stderr
    # a value the option's type refuses: said from the type, not in click's English ("is not a valid float")
    uses = ("enroll-token", "--channel", "C1", "--owner", "U1", "--uses")
    zero = run_process(*uses, "0", "--team", "T1", env=ZH, tmp=tmp_path)
    assert zero.returncode == 2 and "'--uses' 的值无效：0 超出范围：应在 1 到 10,000 之间" in zero.stderr
    word = run_process("quote", "--gpu", "A100", "--hours-per-day", "abc", "--days", "3", env=ZH, tmp=tmp_path)
    assert word.returncode == 2 and "abc 不是数字" in word.stderr and "valid" not in word.stderr
    half = run_process(*uses, "2.5", "--team", "T1", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert half.returncode == 2 and "bad value for '--uses': 2.5 is not a whole number" in half.stderr
    # --cards reads what chat's cards= reads (8卡), its range and a slice said in the user's language
    cards = ("track", "instance", "x", "--gpu", "A100", "--price", "1/h", "--channel", "C1", "--owner", "U1", "--cards")
    none = run_process(*cards, "0", "--team", "T1", env=ZH, tmp=tmp_path)
    assert none.returncode == 2 and "--cards: 无法识别“0”：必须大于零" in none.stderr
    sliced = run_process(*cards, "2.5", "--team", "T1", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert sliced.returncode == 2 and "--cards: '2.5' is not a whole number of cards; use --share 1/2" in sliced.stderr
    negative = run_process("budget", "llm", "-5", "--team", "T1", env={"GPU_ADVISOR_LANG": "en"}, tmp=tmp_path)
    assert negative.returncode == 2 and "'-5' is not a budget" in negative.stderr  # an amount, not an option
    extra = run_process("list", "--team", "T1", "one", "two", env=ZH, tmp=tmp_path)
    assert extra.returncode == 2 and "多余的参数：one two" in extra.stderr and "Got" not in extra.stderr


@pytest.mark.e2e  # a real process, its stdout a pipe closed after the first line
@pytest.mark.parametrize("args", [("--help",), ("quote", "--help"), ("prices", "list")])
def test_output_cut_short_by_a_closed_pipe_ends_without_a_traceback(tmp_path: Path, args: tuple[str, ...]) -> None:
    """`gpu-advise quote --help | head -2` ended in an AttributeError traceback: typer's own click copy (0.28) has
    no Abort, and the except clause naming it raised while typer exited on the closed pipe."""
    import os
    import subprocess
    import sys

    from tests.support.cli import _clean, _env

    env = {k: v for k, v in os.environ.items() if not _clean(k)} | _env(None, tmp_path)
    command = [sys.executable, "-m", "bot", *args]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()
        process.stdout.close()  # as `head -1` does once it has its line
        said = process.stderr.read().decode()
        process.wait(timeout=60)
    assert "Traceback" not in said and "Error" not in said, said
