from __future__ import annotations

import os
import socketserver
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rules.policy import Policy, load_policy
from tests.support.postgres import fresh_schema


@pytest.fixture(scope="session")
def policy() -> Policy:
    return load_policy()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The bot's state database, once on a SQLite file and once on PostgreSQL (a fresh schema)."""
    if request.param == "sqlite":
        yield str(tmp_path / "state.db")
        return
    with fresh_schema() as url:
        yield url


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL whose tables land in a fresh schema (skips, or fails when required, without one)."""
    with fresh_schema() as url:
        yield url


# Tests that start a server or a process are marked e2e, so that `pytest -m "not e2e"` is the fast loop.
# A test that starts either without the mark fails at teardown, naming what it started: the mark cannot
# drift from what the tests do. (A server started by a module- or session-scoped fixture is not seen.)
_started: list[str] = []
_popen_init = subprocess.Popen.__init__
_server_init = socketserver.BaseServer.__init__


def _popen(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
    _started.append(f"a process ({args[0] if args else kwargs.get('args')!r})")
    _popen_init(self, *args, **kwargs)


def _server(self: socketserver.BaseServer, *args: Any, **kwargs: Any) -> None:
    _started.append(f"a server ({type(self).__name__})")
    _server_init(self, *args, **kwargs)


def _forkpty() -> tuple[int, int]:
    _started.append("a process in a terminal (forkpty)")
    return _forkpty_real()


_forkpty_real = os.forkpty
os.forkpty = _forkpty
subprocess.Popen.__init__ = _popen  # type: ignore[assignment, method-assign]
socketserver.BaseServer.__init__ = _server  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _e2e_marked_when_it_starts_a_server_or_process(request: pytest.FixtureRequest) -> Iterator[None]:
    _started.clear()
    yield
    if _started and request.node.get_closest_marker("e2e") is None:
        pytest.fail(f"starts {_started[0]} but is not marked e2e (pytest.mark.e2e)", pytrace=False)
