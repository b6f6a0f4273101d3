"""`gpu-advise --help` lists every command by its summary without importing any command's module (issue 50: the
listing imported all of them, the advisor's parsers and the policy among them, for one line each)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bot.cli.main import COMMANDS, SUMMARIES, build_app
from bot.text import Lang
from tests.support.imported import imported_by


@pytest.mark.parametrize("lang", list(Lang))
def test_the_listing_is_what_every_command_built_lists(lang: Lang) -> None:
    runner = CliRunner()
    said = {
        lean: runner.invoke(
            build_app(None, lang, listing=lean, explain=True),
            ["--help"],
            prog_name="gpu-advise",
            env={"COLUMNS": "120"},
        )
        for lean in (True, False)
    }
    assert said[True].exit_code == said[False].exit_code == 0
    assert said[True].stdout == said[False].stdout
    assert "analyze" in said[True].stdout and "policy" in said[True].stdout


def test_every_command_has_a_summary() -> None:
    assert set(SUMMARIES) | {"advise"} == set(COMMANDS)


@pytest.mark.e2e  # starts a process
def test_the_listing_imports_no_command_module() -> None:
    loaded, said = imported_by("from bot.cli.main import main\nmain(['--help'])", "bot.cli.", "rules.")
    assert "analyze" in said  # the listing was printed
    commands = {module for module, _, _ in COMMANDS.values()} - {"bot.cli.main"}
    assert "bot.cli.main" in loaded and not commands & set(loaded), loaded
    assert not {"rules.policy", "rules.questions", "rules.parsing"} & set(loaded), loaded  # the advisor's


def test_the_groups_nested_commands_are_the_groups_own() -> None:
    """NESTED (a command typed without its group: `gpu-advise status`) names each group's commands."""
    import typer.main

    from bot.cli.main import NESTED

    for group, subs in NESTED.items():
        module, attribute, _ = COMMANDS[group]
        made = typer.main.get_command(getattr(__import__(module, fromlist=[attribute]), attribute))
        assert set(subs) == set(made.commands), group  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        (["status", "--lang", "en"], "no such command: status (did you mean prices status?)"),
        (["lsit", "--lang", "en"], "no such command: lsit (did you mean list?)"),
        (["prices", "stats", "--lang", "en"], "no such command: stats (did you mean prices status?)"),
        (["status", "--lang", "zh"], "没有这个命令：status （是否想用 prices status？）"),
    ],
)
def test_a_command_not_there_is_said_in_the_terminals_words_with_the_one_meant(typed: list[str], said: str) -> None:
    """click said `No such command 'status'.` in English in a Chinese terminal, naming nothing. As main() says a
    usage error (main itself sets the process's environment up: tests/cli/test_usage_language.py runs it)."""
    from bot.cli.main import _click, help_lang, invoked, usage_said

    lang = help_lang(typed)
    with pytest.raises(_click().UsageError) as refused:
        build_app(invoked(typed), lang, listing=True)(args=typed, prog_name="gpu-advise", standalone_mode=False)
    assert refused.value.exit_code == 2 and said in usage_said(refused.value, lang)
