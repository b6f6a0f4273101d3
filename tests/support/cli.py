"""`gpu-advise` as the tests run it: in this process with typer's CliRunner (run_cli: fast, for what a
command prints and exits with), or as a process of its own (run_process: where the process is the point,
signals, a server, a terminal, the modules it loads). Both give a clean GPU_ADVISOR_*/SLACK_* environment
and an English (C.UTF-8) locale unless `env` gives another, and return a CompletedProcess."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from unittest import mock

import typer.main
import typer.testing
from typer.testing import CliRunner

from bot.settings import state_db_beside
from tests.support.price_template import filled_price_cache
from tests.support.state_template import migrated_state_db

ROOT = Path(__file__).parents[2]


def _clean(name: str) -> bool:
    return name.startswith(("GPU_ADVISOR_", "SLACK_", "LC_")) or name == "LANG"


def _env(env: Mapping[str, str | None] | None, tmp: Path | None) -> dict[str, str | None]:
    """The command's environment: a clean language, files in `tmp`, rich's width; a variable given as None is
    unset (`{"COLUMNS": None}`: no width given, as through a pipe)."""
    base: dict[str, str | None] = {"LANG": "C.UTF-8"}
    if tmp is not None:
        base["GPU_ADVISOR_DB"] = str(tmp / "advisor.db")
    environment = base | {"COLUMNS": "200", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"} | (env or {})
    if tmp is not None:
        _migrated_state_in(tmp, environment)
    return environment


def _migrated_state_in(tmp: Path, environment: dict[str, str | None]) -> None:
    """The command's state file and price cache, when they lie in `tmp`'s folder and are not there yet, start as
    a user's are after a first command: a migrated copy (tests/support/state_template.py), the bundled rate card
    loaded (tests/support/price_template.py)."""
    db = Path(environment["GPU_ADVISOR_DB"] or "")
    if db.parent == tmp and tmp.is_dir():
        filled_price_cache(db)
    if environment.get("GPU_ADVISOR_DATABASE_URL"):
        return
    state = Path(environment.get("GPU_ADVISOR_STATE_DB") or state_db_beside(db))
    if state.parent == tmp and tmp.is_dir():
        migrated_state_db(state)


def run_process(
    *args: str, stdin: str = "", env: Mapping[str, str | None] | None = None, tmp: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `gpu-advise` in a subprocess, as a user would."""
    given = _env(env, tmp)
    base = {k: v for k, v in os.environ.items() if not _clean(k) and k not in given}
    base |= {k: v for k, v in given.items() if v is not None}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=base,
        cwd=tmp or ROOT,
        timeout=60,
    )


@contextlib.contextmanager
def _logging_as_it_was() -> Iterator[None]:
    """A command sets up logging for its process (basicConfig on the root, the agent's own handler): in this
    process its handlers would outlive the run, writing to the runner's closed stderr in a later test."""
    import logging

    loggers = [
        logging.getLogger(),
        *(v for v in logging.Logger.manager.loggerDict.values() if isinstance(v, logging.Logger)),
    ]
    kept = {id(lg): (lg, lg.handlers[:], lg.level, lg.propagate) for lg in loggers}
    try:
        yield
    finally:
        for logger in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
            if not isinstance(logger, logging.Logger):
                continue
            _, handlers, level, propagate = kept.get(id(logger), (logger, [], logging.NOTSET, True))
            logger.handlers[:], logger.propagate = handlers, propagate
            if logger.level != level:  # setLevel clears every logger's cache: thousands of loggers, each time
                logger.setLevel(level)


@functools.cache
def _app(only: str | None, lang: Any, explain: bool) -> typer.Typer:
    """The app main() builds for these arguments: it depends on the command named, the help's language and whether
    the help is printed only."""
    from bot.cli.main import build_app

    return build_app(only, lang, listing=True, explain=explain)


_commands: dict[int, Any] = {}
_build_command = typer.main.get_command


def _command(app: typer.Typer) -> Any:
    """typer's click command for `app`, built once: typer's runner builds it again on every invocation, from the
    type hints of every command's parameters (about 1.3 s of the fast loop's CPU). The command holds no state of
    an invocation; each run gets its own click context."""
    if id(app) not in _commands:
        _commands[id(app)] = _build_command(app)
    return _commands[id(app)]


def _built_once() -> Any:
    return mock.patch.object(typer.testing, "_get_command", _command)


def run_cli(
    *args: str, stdin: str = "", env: Mapping[str, str | None] | None = None, tmp: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `gpu-advise` in this process (the command line built as main() builds it). An exception the
    command does not handle is raised here: a traceback is a failure, not an output to compare."""
    from bot.cli.main import COMMANDS, explains, help_lang, invoked

    unset: dict[str, str | None] = {k: None for k in os.environ if _clean(k)}
    environment = unset | _env(env, tmp)
    runner = CliRunner()
    with contextlib.chdir(tmp or ROOT), runner.isolation(env=environment):  # the app is built as main() builds it
        only = invoked(list(args))
        app = _app(only if only in COMMANDS else None, help_lang(list(args)), explains(list(args)))
    with contextlib.chdir(tmp or ROOT), _logging_as_it_was(), _built_once():
        result = runner.invoke(
            app, list(args), input=stdin, env=environment, prog_name="gpu-advise", catch_exceptions=True
        )
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(["gpu-advise", *args], result.exit_code, result.stdout, result.stderr)
