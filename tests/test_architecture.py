"""The shape of the house: what each package may import, how long a function may grow, what the CLI loads."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import ROOT

PACKAGES = ("bot", "rules", "pricing")
MAX_FUNCTION_LINES = 80


def sources(*packages: str) -> list[Path]:
    return sorted(p for pkg in packages for p in (ROOT / pkg).rglob("*.py"))


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_function_is_longer_than_80_lines() -> None:
    long = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in sources(*PACKAGES) for node in ast.walk(ast.parse(path.read_text("utf-8")))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert long == []


@pytest.mark.parametrize(("package", "forbidden"), [("rules", ("bot", "pricing")), ("pricing", ("bot",))])
def test_data_flows_one_way(package: str, forbidden: tuple[str, ...]) -> None:
    for path in sources(package):
        bad = {name for name in imported(path) if name.split(".")[0] in forbidden}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_bot_reaches_its_state_through_sqlalchemy_only() -> None:
    assert [p.relative_to(ROOT) for p in sources("bot") if "sqlite3" in imported(p)] == []


def test_the_cli_loads_no_slack_scheduler_or_database_module() -> None:
    heavy = ("slack_bolt", "slack_sdk", "apscheduler", "sqlalchemy", "alembic", "sqlite_utils", "httpx")
    probe = ("import sys, bot.cli; print(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))")
    result = subprocess.run([sys.executable, "-c", probe, *heavy], cwd=ROOT, capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"
