"""The docs stay honest: the README's commands are the ones CI runs; every CLI command, flag, setting and room
is in the docs pages; the pages build with `mkdocs build --strict`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import typer.main

from bot.cli import app
from tests.support.cli import ROOT
from tests.support.docs import all_docs, between, page, readme


def _commands() -> dict[str, list[str]]:
    """Every leaf command path ('advise', 'policy show', ...) with its long options."""
    group = typer.main.get_command(app)
    found: dict[str, list[str]] = {}

    def walk(cmd: object, path: list[str]) -> None:
        sub = getattr(cmd, "commands", None)
        if sub:
            for name, child in sub.items():
                walk(child, [*path, name])
            return
        opts = [o for p in getattr(cmd, "params", []) for o in p.opts + p.secondary_opts if o.startswith("--")]
        found[" ".join(path)] = opts

    walk(group, [])
    return found


def test_ci_runs_the_readme_test_command() -> None:
    blocks = re.findall(r"```sh\n(.+?)\n```", readme(), flags=re.S)
    test_command = next(b for b in blocks if "pytest" in b)
    assert test_command in (ROOT / ".ci" / "run").read_text("utf-8")


def test_every_command_is_documented() -> None:
    for path in _commands():
        assert f"gpu-advise {path}" in all_docs(), path


def test_every_flag_is_documented() -> None:
    # every whole --flag the docs write, found in one pass (a search of the docs for each flag was 0.6 s of CPU)
    written = set(re.findall(r"(?<![\w-])(--\w[\w-]*)", all_docs()))
    for path, flags in _commands().items():
        for flag in flags:
            if flag in ("--no-interactive", "--help"):
                continue
            assert flag in written, (path, flag)


def test_the_settings_table_is_made_from_the_settings_model() -> None:
    from bot.settings.table import settings_table

    assert between(page("configuration.md"), "<!-- settings:start -->\n", "\n<!-- settings:end -->") == settings_table()


def _interview() -> list[list[str]]:
    """The question keys the terminal page lists, in its order: one list per kind of work."""
    block = between(page("terminal.md"), "<!-- interview:start -->", "<!-- interview:end -->")
    return [re.findall(r"`(\w+)`", item) for item in block.split("\n- ") if item.strip()]


def test_the_terminal_page_lists_the_questions_in_the_order_the_code_asks_them() -> None:
    from rules.profile import Workload
    from rules.questions import conversation

    training, service = _interview()
    assert training == [a.key for a in conversation({})]
    assert ["workload", *[k for k in service if k not in ("workload", "inference")]] == [
        a.key for a in conversation({"workload": Workload.INFERENCE})
    ]


def test_answers_piped_in_the_documented_order_give_the_decision() -> None:
    """Issue 17.13: the README said the five questions come first; the code asks the kind of work first."""
    from tests.support.cli import run_cli

    answers = {
        "workload": "lora",
        "duration": "10h",
        "memory": "70/80",
        "model_parallel": "no",
        "frequency": "daily",
        "can_resume": "no",
        "phase": "",
        "gpu": "",
        "schedule": "",
    }
    training, _ = _interview()
    stdin = "".join(answers[key] + "\n" for key in training)
    result = run_cli("advise", "--interactive", "--lang", "en", "--json", stdin=stdin)
    assert result.returncode == 0, result.stderr
    decided = json.loads(result.stdout)
    assert decided["choice"] == "dedicated"
    assert set(decided["hits"]) == {"long_run", "memory_tight", "no_interruption"}
    assert decided["profile"]["workload"] == "lora"


def test_the_heartbeat_snippet_runs_on_python_3_8() -> None:
    """Issue 19.15: the snippet for 'a machine with only Python and curl' used datetime.UTC (3.11+)."""
    import ast
    import contextlib
    import io

    block = page("tracking.md").split("from a machine with only Python and curl:")[1].split("```sh")[1].split("```")[0]
    code = block.split("python3 -c '")[1].split("' > hour.json")[0]
    tree = ast.parse(code, feature_version=(3, 8))
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "UTC"]  # added in 3.11
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(tree, "docs heartbeat snippet", "exec"), {})  # the docs page's own example
    body = json.loads(printed.getvalue())
    assert len(body["samples"]) == 13 and body["samples"][0]["ts"].endswith("+00:00")


def test_every_inline_key_is_in_the_slack_help_and_the_slack_page() -> None:
    """Issue 19.8: `serving=` was suggested by the bot but listed by neither the help nor the README."""
    from bot.fields.answers import FIELDS
    from bot.slack.listeners.commands import usage_text
    from bot.text import Lang

    block = page("slack.md").split("Inline keys:")[1].split("\n\n")[0]
    for lang in Lang:
        helped = usage_text(lang)
        assert all(f"`{key}`" in helped for f in FIELDS for key in (*f.keys, *f.keys_zh))
    assert [f.keys[0] for f in FIELDS if f"`{f.keys[0]}`" not in block] == []
    assert [k for f in FIELDS for k in f.keys_zh if k not in block] == []


def test_the_readme_is_a_short_front_page_that_links_into_the_docs() -> None:
    text = readme()
    assert len(text.splitlines()) <= 200
    linked = set(re.findall(r"\(docs/([\w-]+\.md)", text))
    assert {"getting-started.md", "configuration.md", "architecture.md"} <= linked
    assert all((ROOT / "docs" / name).is_file() for name in linked), linked


def test_every_room_is_on_the_architecture_page() -> None:
    """Issue 28.1: the map of the code left out bot/actions/, bot/discover/ and bot/report/."""
    rooms = between(page("architecture.md"), "<!-- rooms:start -->", "<!-- rooms:end -->")
    folders = sorted(
        {
            p.parent.relative_to(ROOT).as_posix()
            for pkg in ("bot", "rules", "pricing")
            for p in (ROOT / pkg).rglob("__init__.py")
        }
    )
    assert [f for f in folders if f"`{f}/`" not in rooms] == []


def test_the_docs_build_strict(tmp_path: Path) -> None:
    """`mkdocs build --strict`: a broken link, a missing anchor or a page left out of the navigation fails."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"), strict=True, site_dir=str(tmp_path / "site"))
    build(config)
    assert (tmp_path / "site" / "architecture" / "index.html").is_file()
