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
