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


@pytest.mark.e2e  # starts a process
def test_no_plugin_searcher_is_imported_where_none_is_searched(tmp_path: Path) -> None:
    """pydantic's plugin loader imported `importlib.metadata` (email, zipfile, csv: 18 ms of a quote's start) to find
    plugins it would then not load: with plugins disabled a command imports none of it, and its models still build."""
    code = (
        f"import os\nos.environ['GPU_ADVISOR_DB'] = {str(tmp_path / 'q.db')!r}\n"
        "from bot.cli.main import main\nmain(['quote', '--gpu', 'A100-80GB', '--hours-per-day', '4', '--days', '14'])"
    )
    # nor the gpuhunt catalog's reader (zipfile) where none is a source, nor importlib.resources for a package file
    others = ("zipfile", "importlib.resources", "pricing.gpuhunt_source")
    loaded, said = imported_by(code, "importlib.metadata", "email", "pydantic.plugin", *others)
    assert "Cost for A100-80GB" in said
    assert [name for name in loaded if not name.startswith("pydantic.plugin")] == [], loaded
    assert "pydantic.plugin._schema_validator" in loaded  # pydantic asked its loader, and was answered


@pytest.mark.parametrize("disabled", ["__all__", "1", "true"])
def test_the_stand_in_answers_as_pydantics_own_loader(disabled: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in has the name pydantic imports (`from ._loader import get_plugins`, its one user) and answers as
    pydantic's own `get_plugins` does with plugins disabled: a new pydantic that loads plugins otherwise fails here."""
    import importlib.util
    import inspect

    import pydantic.plugin
    import pydantic.plugin._schema_validator as validator

    from bot.web import lean_imports

    assert "from ._loader import get_plugins" in inspect.getsource(validator)
    path = Path(pydantic.plugin.__file__).parent / "_loader.py"
    spec = importlib.util.spec_from_file_location("pydantic_own_loader", path)
    assert spec is not None and spec.loader is not None
    own = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(own)
    monkeypatch.setenv("PYDANTIC_DISABLE_PLUGINS", disabled)
    assert disabled in lean_imports._DISABLED
    assert tuple(own.get_plugins()) == lean_imports._no_plugins() == ()
    assert own.PYDANTIC_ENTRY_POINT_GROUP == "pydantic"
