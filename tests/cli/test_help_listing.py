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
