"""`gpu-advise … --help` in Chinese where the terminal speaks it (bot/cli/help_words.py): only `advise` was; every
other command, option and the listing were English for zh users. The translations are keyed by the English the code
writes, so a help text changed in the code without its Chinese fails here, as does a Chinese text left behind."""

from __future__ import annotations

import inspect
import re
from pathlib import Path
from typing import Any

import pytest
import typer.main

from bot.cli.help_words import asks_help, breakable, chinese
from bot.cli.main import COMMANDS, HELP, SUMMARIES, build_app
from bot.fields.answers import FIELDS
from bot.text import Lang
from tests.support.cli import run_cli

ZH = {"GPU_ADVISOR_LANG": "zh", "COLUMNS": "200"}
ANSWERS = {field.option_name for field in FIELDS}  # advise's questions: the catalogue's, in both languages already


def _texts(command: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], list[str]]:
    """Each command's path with the English help texts its --help shows: its own, then each option's."""
    own = [inspect.cleandoc(command.help)] if command.help and path != ("advise",) else []
    own += [
        p.help for p in command.params if getattr(p, "help", None) and not (path == ("advise",) and p.name in ANSWERS)
    ]
    found = {path: own}
    for name, sub in getattr(command, "commands", {}).items():
        found |= _texts(sub, (*path, name))
    return found


ROOT = typer.main.get_command(build_app(None, Lang.EN))
ENGLISH = _texts(ROOT)
HELP_OPTION: str = getattr(ROOT.get_help_option(typer.Context(ROOT)), "help", "")  # click's "Show this message…"


def test_every_help_text_has_its_chinese_and_every_chinese_its_english() -> None:
    wanted = {text for texts in ENGLISH.values() for text in texts} | set(SUMMARIES.values()) | {HELP, HELP_OPTION}
    missing = sorted(wanted - set(chinese()))
    assert not missing, f"help texts without Chinese in bot/cli/help_zh.yaml: {missing}"
    left = sorted(set(chinese()) - wanted)
    assert not left, f"Chinese whose English no command says any more: {left}"


@pytest.mark.parametrize("path", sorted(p for p in ENGLISH if p), ids=" ".join)
def test_each_commands_help_is_said_in_chinese(tmp_path: Path, path: tuple[str, ...]) -> None:
    said = run_cli(*path, "--help", env=ZH, tmp=tmp_path)
    assert said.returncode == 0, said.stderr
    for english in ENGLISH[path]:
        assert english[:40] not in said.stdout, english  # no sentence of it left in English
        assert breakable(chinese()[english]).splitlines()[0][:20] in said.stdout, english
    assert "显示本帮助并退出" in said.stdout  # click's own --help line too


def _unboxed(text: str) -> str:
    """Help as read: no box, no spaces, no line breaks (a wrapped or folded line joins its next one)."""
    return re.sub(r"[\s│╭╮╰╯─]", "", text)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_help_text_loses_a_word_in_an_80_column_terminal(tmp_path: Path, lang: str) -> None:
    """typer cut a run wider than its column with "…": Chinese clauses (a sentence is one word to rich) and long
    English paths lost their ends. Each command's help, and each option's, is now read whole at 80 columns."""
    for path, texts in ENGLISH.items():
        said = _unboxed(run_cli(*path, "--help", env={"GPU_ADVISOR_LANG": lang, "COLUMNS": "80"}, tmp=tmp_path).stdout)
        for english in texts:
            text = english if lang == "en" else chinese()[english]
            for paragraph in text.split("\n\n"):  # typer says a command's paragraphs apart
                assert _unboxed(paragraph.replace("`", "")) in said.replace("`", ""), (path, paragraph)


def test_the_listing_says_every_command_in_chinese(tmp_path: Path) -> None:
    for args in ([], ["--help"]):
        said = run_cli(*args, env=ZH, tmp=tmp_path).stdout
        assert breakable(chinese()[HELP]) in said
        for name, summary in SUMMARIES.items():
            assert summary[:40] not in said and breakable(chinese()[summary])[:16] in said, name
    groups = run_cli("track", env=ZH, tmp=tmp_path).stdout  # a group named alone prints its help
    assert "登记租用的实例" in groups and "Track a rented instance" not in groups


def test_english_help_stays_as_the_code_writes_it(tmp_path: Path) -> None:
    said = run_cli("power", "--help", env={"GPU_ADVISOR_LANG": "en", "COLUMNS": "200"}, tmp=tmp_path).stdout
    assert "Say an instance went on or off" in said and "Show this message and exit." in said and "实例" not in said


def test_a_command_that_runs_reads_no_help() -> None:
    """The Chinese help is read only where help is printed: `list`, `quote` and the rest start as they did."""
    chinese.cache_clear()
    said = run_cli("policy", "show", env={"GPU_ADVISOR_LANG": "zh"})
    assert said.returncode == 0 and chinese.cache_info().currsize == 0
    groups = {name for name, (_, _, group) in COMMANDS.items() if group}
    assert not asks_help(["list", "--team", "T1"], groups) and not asks_help(["track", "instance", "x"], groups)
    assert asks_help(["list", "--help"], groups) and asks_help([], groups) and asks_help(["track"], groups)


def test_chinese_wraps_after_its_punctuation() -> None:
    """rich wraps only at spaces, and typer's tables cut a longer run with "…" (the advise help lost words at 80
    columns): a space after full-width punctuation and before a full-width bracket gives it places to wrap."""
    assert breakable("时间：23:30、昨天，默认现在（团队时区）。") == "时间： 23:30、 昨天， 默认现在 （团队时区）。"
    assert breakable(breakable("例如：a，b")) == "例如： a， b"  # said twice, the same
    assert breakable("en, as is: (x)") == "en, as is: (x)"
