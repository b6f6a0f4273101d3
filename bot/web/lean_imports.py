"""What our processes never run is not imported: httpx's command-line client, and Mako's syntax highlighting.

httpx's package imports its command-line client (`httpx._main`) when click, rich and pygments are installed, as they
are beside this package (typer's help uses rich): about 5 MB and 40 ms of every process that makes an HTTP client
(serve's work process before its first answer, the agent on a user's box: issue 50), for a client nothing here runs.
A finder at the front of the import system answers that one module with ImportError, so httpx takes the path it takes
when those libraries are missing (its `main` then only says how to install them). Likewise Mako (Alembic's
templates, imported to check the state's revision) imports Pygments to highlight its own error pages, 20 ms; it
falls back to plain text without it. Installed by our entry points
(`gpu-advise`, serve's work process); the `httpx` command itself, its own entry point, is untouched.

pydantic looks for plugins (an entry-point group) when it builds its first model: a scan of every installed
distribution's metadata, 7 ms of each command that reads the settings, for plugins nothing here uses. `gpu-advise`
sets pydantic's documented switch, PYDANTIC_DISABLE_PLUGINS=__all__, unless the variable is set already (set it
empty to have pydantic load its plugins). With plugins disabled, pydantic's loader module (pydantic.plugin._loader,
one function, `get_plugins`, which then returns nothing) is stood in for by one that returns nothing without importing
`importlib.metadata`, whose import (email, zipfile, csv) was 18 ms of every command that builds a model. The stand-in
is made only where the real one would find no plugin, and only before pydantic imports its own; pydantic 2.14's
`plugin._schema_validator` is that module's one user (tests/cli/test_lean_imports.py checks the real one's name and
answer are what the stand-in has)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

SKIPPED = frozenset({"httpx._main", "mako.ext.pygmentplugin"})


class _Skip:
    """A finder of the import system (PEP 451's find_spec: sys.meta_path takes any object with it). Not a subclass of
    importlib.abc.MetaPathFinder, whose import (importlib.abc, importlib.resources) cost 2.5 ms of every command."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname in SKIPPED:
            raise ImportError(f"{fullname} is not used by gpu-advisor", name=fullname)  # the library's own fallback
        return None


def skip_unused_clis() -> None:
    """Install the finder, once per process."""
    if not any(isinstance(finder, _Skip) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Skip())


def skip_pydantic_plugins() -> None:
    """No pydantic plugin search in this process and its children, unless PYDANTIC_DISABLE_PLUGINS is set; and with
    none searched, no import of the searcher (whose `importlib.metadata` is 18 ms of a quote's start)."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if os.environ["PYDANTIC_DISABLE_PLUGINS"] in _DISABLED and _LOADER not in sys.modules:
        from types import ModuleType

        loader = ModuleType(_LOADER, "pydantic's plugin loader with every plugin disabled (bot/web/lean_imports.py)")
        loader.PYDANTIC_ENTRY_POINT_GROUP = "pydantic"  # type: ignore[attr-defined]
        loader._plugins = None  # type: ignore[attr-defined]  # never searched
        loader.get_plugins = _no_plugins  # type: ignore[attr-defined]
        sys.modules[_LOADER] = loader


_LOADER = "pydantic.plugin._loader"
_DISABLED = ("__all__", "1", "true")  # the values for which pydantic's own get_plugins returns no plugin


def _no_plugins() -> tuple[()]:
    """What pydantic's get_plugins returns with PYDANTIC_DISABLE_PLUGINS set to one of _DISABLED."""
    return ()
