"""What `gpu-advise` never runs is not imported or searched for (bot/web/lean_imports.py): httpx's command-line
client, and pydantic's plugins (issue 50: each command's start)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.imported import imported_by

AT_EXIT = (
    "import atexit, os, sys\n"
    "def said():\n"
    "    import pydantic.plugin._loader as plugins\n"
    "    print('plugins searched:', plugins._plugins is not None, '|', os.environ.get('PYDANTIC_DISABLE_PLUGINS'))\n"
    "atexit.register(said)\n"
)


def _run(tmp_path: Path, before: str = "") -> str:
    code = (
        before + AT_EXIT + f"os.environ['GPU_ADVISOR_DB'] = {str(tmp_path / 'p.db')!r}\n"
        "from bot.cli.main import main\nmain(['prices', 'list', '--gpu', 'A100-80GB'])"
    )
    return imported_by(code, "httpx")[1]


@pytest.mark.e2e  # starts a process
def test_a_command_searches_no_pydantic_plugins(tmp_path: Path) -> None:
    assert "plugins searched: False | __all__" in _run(tmp_path)


@pytest.mark.e2e  # starts a process
def test_pydantic_plugins_are_searched_where_asked(tmp_path: Path) -> None:
    """The variable set (even empty) is left as it is: pydantic then loads its plugins as it would."""
    before = "import os\nos.environ['PYDANTIC_DISABLE_PLUGINS'] = ''\n"
    assert "plugins searched: True | " in _run(tmp_path, before)


@pytest.mark.e2e  # starts a process
def test_httpx_comes_without_its_command_line_client() -> None:
    loaded, _ = imported_by("from bot.cli.main import main\nmain(['--help'])\n", "httpx")
    assert loaded == []
    loaded, _ = imported_by(
        "from bot.web.lean_imports import skip_unused_clis\nskip_unused_clis()\nimport httpx\nhttpx.Client().close()",
        "httpx",
    )
    assert "httpx" in loaded and "httpx._main" not in loaded, loaded
