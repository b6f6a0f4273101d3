"""Start-up work done once and kept between runs: the text catalogue read from its YAML files, the
bundled policy validated. Each result is kept in the user's cache folder (GPU_ADVISOR_CACHE_DIR, else
$XDG_CACHE_HOME/gpu-advisor, else ~/.cache/gpu-advisor) under a key made of the bytes of every file it
comes from (the data and the code that reads it) and the Python version, so an upgrade or an edit is
a new key, never a stale result. Anything wrong with the cache (unwritable, corrupt, missing) only
means the work is done again: the cache is never needed.

Results are pickled: the folder is the user's own, like their shell start-up files."""

from __future__ import annotations

import os
import pickle
import sys
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol, TypeVar

T = TypeVar("T")


class Readable(Protocol):
    """A file of the package (importlib.resources) or of the disk."""

    @property
    def name(self) -> str: ...

    def read_bytes(self) -> bytes: ...


def cache_dir() -> Path:
    given = os.environ.get("GPU_ADVISOR_CACHE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gpu-advisor"


def key_of(sources: Iterable[Readable]) -> str:
    """The files' names and bytes and the Python version, as two 32-bit checksums and the length (zlib is loaded
    by the start-up anyway; hashlib would load OpenSSL's library, 3-4 ms of every start, for a key whose only
    job is to change when a file does)."""
    data = f"{sys.version_info[:2]}".encode()
    for source in sources:
        data += source.name.encode() + b"\0" + source.read_bytes() + b"\0"
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}"


def cached(name: str, sources: Iterable[Readable], build: Callable[[], T]) -> T:
    """`build()`, or what it returned for the same `sources` on an earlier run."""
    path = cache_dir() / f"{name}-{key_of(sources)}.pickle"
    try:
        value: T = pickle.loads(path.read_bytes())
        return value
    except Exception:  # missing, unreadable, truncated, or pickled by other code: each is a cache miss
        pass  # (no logging here: this runs on the terminal's start-up path, which imports as little as it can)
    value = build()
    import tempfile  # only when writing: a start that reads the cache needs no more

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{name}-", delete=False) as out:
            out.write(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(out.name, path)  # readers see the old file or the whole new one, never half of it
    except OSError:
        pass  # no cache this time: the next run builds it again
    return value
