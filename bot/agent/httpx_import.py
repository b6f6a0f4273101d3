"""httpx, imported without its command-line client.

httpx's package imports its command-line client (`httpx._main`) when click, rich and pygments are installed, as
they are beside this package (typer's help uses rich): 5 MB and tens of milliseconds of every process, for a client
the agent never runs (issue 50: the agent's memory on a box that is the user's). click is hidden from that one
import, so httpx takes the path it takes when they are not installed, and is importable again right after."""

from __future__ import annotations

import sys
from types import ModuleType


def httpx_without_cli() -> ModuleType:
    """The httpx module; if this is its first import in the process, made without its command-line client."""
    if "httpx" in sys.modules:
        return sys.modules["httpx"]
    hidden = "click" not in sys.modules
    if hidden:
        sys.modules["click"] = None  # type: ignore[assignment]  # `from ._main import main` fails: httpx's fallback
    try:
        import httpx
    finally:
        if hidden and sys.modules.get("click", 0) is None:
            del sys.modules["click"]
    return httpx
