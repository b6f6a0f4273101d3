from __future__ import annotations

import atexit
import gc
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# Bytecode caches, as pytest keeps them by default, even where PYTHONDONTWRITEBYTECODE is set (as on the
# development machines): without them every xdist worker compiles our sources and rewrites the asserts of every
# test module again on every run, 5-10 s of CPU each. Set before any test module or package of ours is imported
# by the tests; __pycache__ is ignored by git.
sys.dont_write_bytecode = False

from rules.policy import Policy, load_policy  # noqa: E402
from tests.support.postgres import fresh_schema, migrated_database  # noqa: E402
from tests.support.state_template import migrated_state_db  # noqa: E402
from tests.support.temp_root import use_memory_root  # noqa: E402


@pytest.fixture(scope="session")
def policy() -> Policy:
    return load_policy()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The bot's state database at the newest schema, once on a SQLite file and once on PostgreSQL (copies of
    databases the migrations made once per test process)."""
    if request.param == "sqlite":
        yield str(migrated_state_db(tmp_path / "state.db"))
        return
    with migrated_database() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_db_target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A state database with nothing in it yet, on SQLite and on PostgreSQL (a fresh schema): for the tests of
    the migrations themselves."""
    if request.param == "sqlite":
        yield str(tmp_path / "state.db")
        return
    with fresh_schema() as url:
        yield url


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL URL of a fresh database at the newest schema (skips, or fails when required, without one)."""
    with migrated_database() as url:
        yield url


# Tests that start a process are marked e2e, so that `pytest -m "not e2e"` is the fast loop. A server on a
# thread of the test's own process (the loopback fake Slack, moto's server, the app's front door) belongs to
# the fast tier, as in bolt-python's own tests. A test that starts a process without the mark fails at
# teardown, naming it: the mark cannot drift from what the tests do. A process a library starts for its own
# purposes (matplotlib's fc-list building its font cache on a clean machine) is not the test's.
_started: list[str] = []
_popen_init = subprocess.Popen.__init__
_LIBRARIES = (f"{os.sep}site-packages{os.sep}", f"{os.sep}dist-packages{os.sep}")


def _started_by_a_library() -> bool:
    """The innermost caller outside the standard library is a third-party package's code."""
    frame = sys._getframe(2)
    while frame is not None and _in_stdlib(frame.f_code.co_filename):
        frame = frame.f_back  # type: ignore[assignment]
    return frame is not None and any(part in frame.f_code.co_filename for part in _LIBRARIES)


def _in_stdlib(path: str) -> bool:
    return path.startswith(_STDLIB) and not any(part in path for part in _LIBRARIES)


def _popen(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
    if not _started_by_a_library():
        _started.append(f"a process ({args[0] if args else kwargs.get('args')!r})")
    _popen_init(self, *args, **kwargs)


def _forkpty() -> tuple[int, int]:
    _started.append("a process in a terminal (forkpty)")
    return _forkpty_real()


_STDLIB = os.path.dirname(os.__file__)
_forkpty_real = os.forkpty
os.forkpty = _forkpty
subprocess.Popen.__init__ = _popen  # type: ignore[assignment, method-assign]


@pytest.fixture(autouse=True)
def _e2e_marked_when_it_starts_a_process(request: pytest.FixtureRequest) -> Iterator[None]:
    _started.clear()
    yield
    if _started and request.node.get_closest_marker("e2e") is None:
        pytest.fail(f"starts {_started[0]} but is not marked e2e (pytest.mark.e2e)", pytrace=False)


# The PostgreSQL twin of a test (the `postgresql` parameter of db_target and empty_db_target, and every test on
# pg_url) belongs to the whole suite, not the fast loop: its SQLite twin runs the same code in the fast loop, and
# each copy of the template database costs the server about 0.1-0.4 s of CPU (about 5 s of a 2-core fast loop's
# 37-40 s, measured 2026-12-05 with and without a reachable server). CI and `pytest -n auto` run them all.
_ON_POSTGRES = ("pg_url",)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "postgresql" in params.values() or any(f in _ON_POSTGRES for f in getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`-n`'s default (`--dist load`), with each heavy fake's tests on one worker (tests/support/scheduling.py)."""
    if config.getoption("dist", "load") != "load":
        return None  # another --dist asked for: xdist's own
    from tests.support.scheduling import ByLibrary

    return ByLibrary(config, log)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers a core. The tests wait on loopback HTTP, threads and the database about half of
    their time: with one worker a core the 2-core machine stayed half idle (load 1.1; fast loop 58 s, 47 s with
    two a core). More than two a core overloads it and the fast loop slows again."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 2 * cores


# The fast loop's last seconds (measured with py-spy over the four workers of `-n auto` on 2 cores): each worker
# spent 1-2 s in pytest's closing garbage collections over everything the session had imported, and 1-2 s more
# in the interpreter's own teardown, after every test had reported. Two measures, fast loop 41-43 s -> 37-38 s,
# then a third:
# - what collection made (modules, test functions, parameters) is frozen out of the collector's generations
#   once collected (gc.freeze, as its documentation suggests for long-lived objects): every later full
#   collection, the closing ones included, walks only what the tests made, and still finds their garbage;
# - a worker leaves with os._exit once the exit handlers registered after this file (the test databases'
#   drops, moto's stop, the template folder's removal) have run: its results were all sent to the controller
#   before. Only in xdist workers, whose exit status nothing reads; a run without -n exits as usual;
# - the collector runs less often: a worker holds 300-600 MB of live objects (botocore's service models, moto's
#   backends, SQLAlchemy's compiled statements) and the tests make short-lived ones by the million (syntax trees,
#   Block Kit, JSON), so at Python's default thresholds (700, 10, 10) the four workers spent 13-36 s of a run in
#   the collector. At (100_000, 50, 1_000) the fast loop went 40-50 s -> 33-35 s (user CPU 61-76 s -> 45-49 s)
#   for the same largest worker (about 590 MB): garbage is still collected, in fewer, larger passes.
GC_THRESHOLDS = (100_000, 50, 1_000)
_IN_A_WORKER = bool(os.environ.get("PYTEST_XDIST_WORKER"))  # an xdist worker, not the controller or a run without -n


def pytest_configure(config: pytest.Config) -> None:
    gc.set_threshold(*GC_THRESHOLDS)
    use_memory_root(os.environ)  # tmp_path on /dev/shm where it has room (tests/support/temp_root.py)
    if not getattr(config.option, "numprocesses", None) or hasattr(config, "workerinput"):
        # where tests run (a worker, or a run without -n): one compiled-SQL cache for the process's engines. Not in
        # xdist's controller, which runs no test and starts the workers only once configured (SQLAlchemy's import
        # there was 0.1 s before any worker started)
        from tests.support import shared_sql  # noqa: F401


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    # Frozen without a collection first: the little cyclic garbage importing made stays frozen with the rest (a full
    # collection over a freshly collected worker's objects took 0.1-0.2 s a worker, all four at once).
    gc.freeze()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """A worker's last act before its os._exit: pytest's unraisable-exception plugin runs a full collection at
    unconfigure and another at cleanup, each walking every object the session's tests left alive (moto's backends,
    botocore's models, SQLAlchemy's caches), 0.5-1 s a worker, all four at the same moment at the end of the run.
    Freezing what is alive makes both walk nothing. What pytest reports after each test stays reported; only what
    a last collection alone would have found (a cycle of the last tests' garbage whose finalizer raises) goes
    unseen in a worker, and a run without -n still collects. Fast loop 29-31 s -> 27-28 s (alternated runs)."""
    if _IN_A_WORKER:
        gc.freeze()


def _leave_now() -> None:
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if _IN_A_WORKER:
    atexit.register(_leave_now)  # registered before the tests' own, so run after them
