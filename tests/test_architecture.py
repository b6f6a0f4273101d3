"""The shape of the house: what each package may import, how long a function may grow, what the CLI loads."""

from __future__ import annotations

import ast
import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import ROOT
from tests.support.sources import parsed, sources

PACKAGES = ("bot", "rules", "pricing")
MAX_FUNCTION_LINES = 80


@functools.cache
def imported(path: Path) -> frozenset[str]:
    names: set[str] = set()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return frozenset(names)


def _body_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """A function's length from its `def` to its end, the signature included: a command whose options filled
    sixty lines of its signature was as long to read as any (issue 46 counted it so)."""
    return (node.end_lineno or node.lineno) - node.lineno + 1


def test_no_function_is_longer_than_80_lines() -> None:
    long = [
        f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({_body_lines(node)} lines)"
        for path in sources(*PACKAGES)
        for node in ast.walk(parsed(path))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _body_lines(node) > MAX_FUNCTION_LINES
    ]
    assert long == []


MAX_LOOSE_MODULES = 9


def test_the_root_of_bot_keeps_few_loose_modules() -> None:
    """What belongs together lives in a room; at most nine modules stand loose at bot/'s root (twelve once)."""
    loose = sorted(path.name for path in (ROOT / "bot").glob("*.py"))
    assert len(loose) <= MAX_LOOSE_MODULES, loose


@pytest.mark.parametrize(("package", "forbidden"), [("rules", ("bot", "pricing")), ("pricing", ("bot",))])
def test_data_flows_one_way(package: str, forbidden: tuple[str, ...]) -> None:
    for path in sources(package):
        bad = {name for name in imported(path) if name.split(".")[0] in forbidden}
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_the_bot_reaches_its_state_through_sqlalchemy_only() -> None:
    assert [p.relative_to(ROOT) for p in sources("bot") if "sqlite3" in imported(p)] == []


def test_only_the_state_package_and_the_installation_store_speak_sql() -> None:
    allowed = {Path("bot/slack/installs.py")}  # slack_sdk's SQLAlchemy installation and OAuth state stores
    speaking = {
        p.relative_to(ROOT) for p in sources("bot") if any(name.split(".")[0] == "sqlalchemy" for name in imported(p))
    }
    assert {p for p in speaking if p.parts[:2] != ("bot", "state")} == allowed


def room_of(module: str) -> str | None:
    """The room of `bot.x.y` (a folder or a loose module of bot/), or None outside bot/."""
    parts = module.split(".")
    return parts[1] if parts[0] == "bot" and len(parts) > 1 else None


def room_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sources("bot"):
        rel = path.relative_to(ROOT / "bot").parts
        room = rel[0].removesuffix(".py")
        graph.setdefault(room, set()).update(r for name in imported(path) if (r := room_of(name)) not in (None, room))
    return graph


def test_the_rooms_of_bot_import_one_way() -> None:
    """No arrow runs back up: the graph of bot/'s rooms (folders and loose modules) has no cycle."""
    graph, order, state = room_graph(), [], dict[str, str]()

    def visit(room: str, path: tuple[str, ...]) -> None:
        if state.get(room) == "done":
            return
        assert state.get(room) != "open", f"import cycle: {' -> '.join((*path, room))}"
        state[room] = "open"
        for target in sorted(graph.get(room, ())):
            visit(target, (*path, room))
        state[room] = "done"
        order.append(room)

    for room in sorted(graph):
        visit(room, ())
    assert "slack" in order and "server" in order


@pytest.mark.parametrize(
    ("room", "never"),
    [
        ("slack", "server"),
        ("digest", "slack"),
        ("digest", "server"),
        ("state", "slack"),
        ("capture", "slack"),
        ("fields", "slack"),
    ],
)
def test_a_room_never_imports_the_room_that_uses_it(room: str, never: str) -> None:
    assert never not in room_graph()[room]


CHAT_SDKS = ("slack_sdk", "slack_bolt", "lark_oapi")


@pytest.mark.parametrize("room", ["app", "chat", "digest", "report", "actions"])
def test_the_core_speaks_only_the_chat_port(room: str) -> None:
    """The conversation, the digest, the reports and warn-then-act know no chat: no chat SDK is imported there,
    at the top or inside a function, and neither is a chat's own room (bot/slack/, bot/feishu/)."""
    found = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / "bot" / room).rglob("*.py"))
        for name in imported(path)
        if name.split(".")[0] in CHAT_SDKS or name.startswith(("bot.slack", "bot.feishu"))
    }
    assert found == set()


# Loaded by the core, the SDKs' weight and their types would leak into every chat: only the wings (bot/slack/,
# bot/feishu/), the runtime (bot/server/) and the terminal (bot/cli/, which sends through the chats) load them.
WINGS_AND_RUNTIME = ("bot.slack", "bot.feishu", "bot.server", "bot.cli")
_LOADS_A_CHAT_SDK = """
import importlib, pkgutil, sys
sdks, wings = sys.argv[1].split(","), tuple(sys.argv[2].split(","))
for package in ("bot", "rules", "pricing"):
    for found in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
        if found.name.startswith(wings) or ".migrations" in found.name or found.name == "bot.__main__":
            continue
        importlib.import_module(found.name)
        loaded = sorted({m.split(".")[0] for m in sys.modules} & set(sdks))
        if loaded:
            print(found.name, loaded)
            break
    print("read", package)
"""


@pytest.mark.e2e  # starts a process: a fresh interpreter, so nothing the tests imported before counts
def test_no_module_outside_the_wings_and_the_runtime_loads_a_chat_sdk() -> None:
    """Not only what a module imports itself: what importing it loads, through everything it imports (Deps once
    loaded slack_sdk for nine modules of the core)."""
    result = subprocess.run(
        [sys.executable, "-c", _LOADS_A_CHAT_SDK, ",".join(CHAT_SDKS), ",".join(WINGS_AND_RUNTIME)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.split("\n")[:3] == ["read bot", "read rules", "read pricing"], result.stdout


@pytest.mark.e2e  # starts processes
@pytest.mark.parametrize(
    "command",
    [
        [
            "advise",
            "--duration",
            "10h",
            "--memory-peak",
            "no",
            "--model-parallel",
            "no",
            "--frequency",
            "daily",
            "--can-resume",
            "yes",
            "--json",
        ],
        ["prices", "list", "--gpu", "A100"],
        ["quote", "--gpu", "A100-80GB", "--hours-per-day", "4", "--days", "14", "--share", "1/2"],
    ],
)
def test_the_terminal_never_loads_the_feishu_sdk(command: list[str], tmp_path: Path) -> None:
    """lark-oapi is a heavy import (seconds of CPU): the terminal's commands never load it. Nor httpx where no
    request is sent: a quote and a list read the price cache (httpx and its TLS context were 0.15 s of their start).
    Nor sqlite_utils where the price cache is only read (the second run: the first fills it), 45 ms of a start."""
    env = {**os.environ, "GPU_ADVISOR_DB": str(tmp_path / "prices.db")}
    for heavy in (("lark_oapi", "httpx"), ("lark_oapi", "httpx", "sqlite_utils")):
        result = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "bot", *command],
            cwd=ROOT,
            capture_output=True,
            text=True,
            env=env,
        )
        assert result.returncode == 0, result.stderr[-2000:]
        loaded = [line for line in result.stderr.splitlines() if any(f"| {m}" in line for m in ("bot", *heavy))]
        assert any("bot.cli" in line for line in loaded)  # the probe saw the command's own imports
        assert not [line for line in loaded if any(f"| {m}" in line for m in heavy)]


@pytest.mark.e2e  # starts a process
def test_the_cli_loads_no_slack_scheduler_or_database_module() -> None:
    heavy = ("slack_bolt", "slack_sdk", "apscheduler", "sqlalchemy", "alembic", "sqlite_utils", "httpx")
    probe = "import sys, bot.cli; print(sorted({m.split('.')[0] for m in sys.modules} & set(sys.argv[1:])))"
    result = subprocess.run([sys.executable, "-c", probe, *heavy], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_block_kit_is_built_one_way_from_templates() -> None:
    """Every message's blocks come from bot/slack/ui/templates (rendered and validated by templating.py):
    no block is written as a Python literal beside them."""
    block = re.compile(r"""["'](type)["']\s*:\s*["'](section|context|actions|header|divider|input|button)["']""")
    literal = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sources("bot")
        for n, line in enumerate(p.read_text("utf-8").splitlines(), 1)
        if block.search(line)
    ]
    assert literal == []


def _assigned_attributes(tree: ast.Module) -> list[ast.Attribute]:
    targets: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets += node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets.append(node.target)
    flat = [t for target in targets for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
    return [t for t in flat if isinstance(t, ast.Attribute)]


def test_deps_is_complete_when_build_deps_returns() -> None:
    """Issue 28.3: create_app and serve's run() wrote into Deps after it was built."""
    writes = [
        f"{path.relative_to(ROOT)}:{target.lineno} {ast.unparse(target)}"
        for path in sources("bot")
        if path != ROOT / "bot" / "deps.py"
        for target in _assigned_attributes(parsed(path))
        if (isinstance(target.value, ast.Name) and target.value.id == "deps")
        or (isinstance(target.value, ast.Attribute) and target.value.attr == "deps")
    ]
    assert writes == []


def test_the_acknowledgement_gate_is_no_module_global() -> None:
    """Issue 28.3: ACKS, one AckGate in bot/state/write_lock.py, was reached from rendering, the Slack client and
    the store; the gate is made by build_deps and passed to what gives way through it."""
    globals_ = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in sources(*PACKAGES)
        for node in parsed(path).body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and isinstance(node.value, ast.Call)
        and "AckGate" in ast.unparse(node.value.func)
    ]
    assert globals_ == []
