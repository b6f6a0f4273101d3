"""Where a run's temporary folders (tmp_path) go: under /dev/shm, the memory-backed file system Linux mounts there,
when it is writable and has room; else pytest's own choice (the system's temporary folder).

A test's folder holds its SQLite state and price cache (WAL files, checkpoints when the last connection closes),
the agent's captures and the fakes' files, about 3,000 folders a run, each removed as its test passes. On the
development host's ext4 disk that file work cost the fast loop 1.0-2.0 s of its 29-31 s (five alternated pairs,
2026-12-06: system CPU 6.4-6.6 s -> 5.4-5.7 s). A container's /dev/shm is often 64 MB, and hardened systems mount it
noexec (the agent's tests run fake nvidia-smi scripts written in their folders): with less than ROOM free, or
noexec, it is left alone. pytest reads PYTEST_DEBUG_TEMPROOT (its documented setting for this) when it first makes a
folder; a root already set there, or --basetemp, wins."""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from pathlib import Path

MEMORY = Path("/dev/shm")
ROOM = 1 << 30  # bytes free: far above a run's peak (a few MB, passing tests' folders removed as they pass)
VARIABLE = "PYTEST_DEBUG_TEMPROOT"


def memory_root(path: Path = MEMORY, room: int = ROOM) -> Path | None:
    """`path` when it is a folder this process may write in, on a file system that suits (`suits`), else None."""
    try:
        stats = os.statvfs(path)
    except OSError:
        return None
    if not path.is_dir() or not os.access(path, os.W_OK | os.X_OK):
        return None
    return path if suits(stats, room) else None


def suits(stats: os.statvfs_result, room: int) -> bool:
    """`room` bytes free, and programs written there may run (not mounted noexec)."""
    return stats.f_bavail * stats.f_frsize >= room and not stats.f_flag & getattr(os, "ST_NOEXEC", 0)


def use_memory_root(environ: MutableMapping[str, str], path: Path = MEMORY, room: int = ROOM) -> None:
    """Point pytest's temporary folders at `path` (memory_root), unless a root is set already."""
    if VARIABLE not in environ and (root := memory_root(path, room)) is not None:
        environ[VARIABLE] = str(root)
