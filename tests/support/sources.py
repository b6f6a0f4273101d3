"""The project's own source files and their syntax trees, parsed once per test process for every test that reads
them (the architecture tests, the TLS check): each worker parsing them again cost it half a second."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from tests.support.cli import ROOT


def sources(*packages: str) -> list[Path]:
    return sorted(p for pkg in packages for p in (ROOT / pkg).rglob("*.py"))


@functools.cache
def parsed(path: Path) -> ast.Module:
    """A source file's syntax tree, parsed once a process."""
    return ast.parse(path.read_text("utf-8"))
