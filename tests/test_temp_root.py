"""tmp_path on /dev/shm where the machine has room there (tests/support/temp_root.py), pytest's own choice else."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.temp_root import VARIABLE, memory_root, suits, use_memory_root


def test_a_writable_folder_with_room_is_the_root(tmp_path: Path) -> None:
    environ: dict[str, str] = {}
    use_memory_root(environ, tmp_path, room=1)
    assert environ == {VARIABLE: str(tmp_path)}


def test_a_folder_without_room_or_missing_is_left_alone(tmp_path: Path) -> None:
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    assert memory_root(tmp_path, room=free + (1 << 40)) is None
    assert memory_root(tmp_path / "absent", room=1) is None
    file = tmp_path / "a-file"
    file.write_text("")
    assert memory_root(file, room=1) is None


@pytest.mark.skipif(not hasattr(os, "ST_NOEXEC"), reason="the mount flag is Linux's")
def test_a_file_system_mounted_noexec_is_left_alone(tmp_path: Path) -> None:
    """The agent's tests write fake nvidia-smi scripts in their folders and run them: not where nothing may run."""
    found = list(os.statvfs(tmp_path))
    may_run, noexec = found.copy(), found.copy()
    may_run[8] &= ~os.ST_NOEXEC  # f_flag: as an ordinary tmpfs reports it
    noexec[8] |= os.ST_NOEXEC  # as a hardened system's /dev/shm reports it
    assert suits(os.statvfs_result(may_run), room=1) and not suits(os.statvfs_result(noexec), room=1)


def test_a_root_already_set_wins(tmp_path: Path) -> None:
    environ = {VARIABLE: "/elsewhere"}
    use_memory_root(environ, tmp_path, room=1)
    assert environ == {VARIABLE: "/elsewhere"}


@pytest.mark.skipif(memory_root() is None, reason="no /dev/shm here with room, or it is mounted noexec")
def test_this_runs_folders_are_on_memory(tmp_path: Path, request: pytest.FixtureRequest) -> None:
    root = os.environ.get(VARIABLE)
    assert root is not None  # set by tests/conftest.py (or by whoever runs the tests)
    given = request.config.option.basetemp  # a worker's is the controller's, under the root unless one was given
    if given and not Path(given).resolve().is_relative_to(Path(root).resolve()):
        pytest.skip("--basetemp given: the folders are where it says")
    assert tmp_path.resolve().is_relative_to(Path(root).resolve())
